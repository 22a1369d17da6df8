#pragma once
// The projection of bodies that live on a CUDA device (render/splat_gpu.cu): one thread a body,
// the pixel by render::pixel_of in float64 (the CPU splat's arithmetic, contraction off), the mass
// added with a float atomicAdd into a device image. No body is copied to the host. Built only
// with CUDA.
//
// Agreement with the float64 CPU splat (project_bodies) at the same centre: every body lands on
// the same pixel; a pixel holding k bodies differs by at most k * 2^-23 of its mass (each body's
// mass rounded to float, then k - 1 float additions in an order the atomics choose: the low bits
// vary from run to run). mass_inside and bodies_inside are summed in float64 and uint64.
// Coloured by component, a pixel's four floats (mass and the mass-weighted red, green, blue) are
// added by one vector atomicAdd (float4, sm_90; four scalar ones on older devices).
//
// project_on_device copies the float image back (the map, for any use); shade_on_device also
// shades it there (render/shade.hpp's rules: the largest pixel found by a device reduction, the
// log scale computed on the host from it exactly as density_scale does, each pixel's colour by a
// kernel) and copies back only 3 bytes a pixel (through a pinned buffer kept in the workspace):
// what a frame of a run needs. Its colours equal
// the host's shade() of the same map but where the device's log10 (within 1 ulp) puts a value
// on the other side of a colour step: a neighbouring colour-map entry, or one level of a channel.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "nbody/camera.hpp"
#include "particles/memory.hpp"

namespace nbody::render {

template <class T>
struct DeviceBodies {
  const T *x, *y, *z, *m;  // device pointers
  const std::uint8_t* component;  // device pointer to one per body, or null
  std::size_t n;
  int ordinal;             // the CUDA device
  StreamHandle stream;     // the store's stream: the kernel is ordered after its work
};

// The device images and reduction buffers of the splat, kept between frames (a run renders many
// frames of one size: no allocation per frame). Grows as needed; one per store.
class SplatWorkspace {
 public:
  SplatWorkspace();
  ~SplatWorkspace();
  SplatWorkspace(const SplatWorkspace&) = delete;
  SplatWorkspace& operator=(const SplatWorkspace&) = delete;
  struct Buffers;
  [[nodiscard]] Buffers& buffers(Location at, std::size_t pixels, bool with_components, std::size_t bodies_tagged);

 private:
  std::unique_ptr<Buffers> b_;
};

// components: empty, or one per body on the host in the store's order (uploaded for the call);
// when empty, bodies.component (on the device) colours by component where it is not null.
template <class T>
[[nodiscard]] DensityMap project_on_device(const DeviceBodies<T>& bodies, std::span<const std::uint8_t> components,
                                           const Camera& camera, const Vec3& centre, int nx, int ny,
                                           SplatWorkspace& workspace);
// The same, shaded on the device (spec.by_component: by bodies.component, which must be set).
template <class T>
[[nodiscard]] ShadedMap shade_on_device(const DeviceBodies<T>& bodies, const Camera& camera, const Vec3& centre, int nx,
                                        int ny, const ShadeSpec& spec, SplatWorkspace& workspace);

}  // namespace nbody::render
