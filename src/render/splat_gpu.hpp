#pragma once
// The projection of bodies that live on a CUDA device (render/splat_gpu.cu): one thread a body,
// the pixel by render::pixel_of in float64 (the CPU splat's arithmetic, contraction off), the mass
// added with a float atomicAdd into a device image, the image copied back once. No body is
// copied to the host. Built only with CUDA.
//
// Agreement with the float64 CPU splat (project_bodies) at the same centre: every body lands on
// the same pixel; a pixel holding k bodies differs by at most k * 2^-23 of its mass (each body's
// mass rounded to float, then k - 1 float additions in an order the atomics choose: the low bits
// vary from run to run). mass_inside and bodies_inside are summed in float64 and uint64.
#include <cstddef>
#include <cstdint>
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

// components: empty, or one per body on the host in the store's order (uploaded for the call);
// when empty, bodies.component (on the device) colours by component where it is not null.
template <class T>
[[nodiscard]] DensityMap project_on_device(const DeviceBodies<T>& bodies, std::span<const std::uint8_t> components,
                                           const Camera& camera, const Vec3& centre, int nx, int ny);

}  // namespace nbody::render
