#pragma once
// The projection of bodies onto a map of mass per pixel (nbody/camera.hpp): the camera's basis,
// the pixel of a position (written once for the CPU loop and the CUDA kernel,
// src/render/splat_gpu.cu) and the CPU splat in float64. Part of nbody_core: it needs neither
// cairo nor libpng, so a GPU build without the renderer's libraries still projects.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/hd.hpp"
#include "nbody/camera.hpp"

namespace nbody::render {

// The camera's orthonormal basis: right, up (both in the image plane) and the line of sight.
// Input error for a zero direction, a zero up or an up along the direction.
struct CameraBasis {
  Vec3 right, up, forward;
};
[[nodiscard]] CameraBasis camera_basis(const Camera& c);

// Everything the pixel of a position needs, as plain numbers (copied to a kernel by value).
struct ProjectionParams {
  double origin[3];  // orthographic: the centre; perspective: the eye
  double right[3], up[3], forward[3];
  double scale;      // orthographic: pixels per length unit; perspective: pixels per unit of tangent
  int nx, ny;
  bool perspective;
  std::uint64_t shown[4];  // Camera::shown
};

// Whether a body of component tag c is drawn (Camera::shown).
NBODY_HD bool shows(const ProjectionParams& p, std::uint8_t c) { return ((p.shown[c >> 6] >> (c & 63)) & 1u) != 0; }

// The pixel (i, j), j from the bottom, of the position (x, y, z); false outside the view (and
// behind the eye of a perspective camera, and for NaN).
NBODY_HD bool pixel_of(const ProjectionParams& p, double x, double y, double z, int& i, int& j) {
  const double d0 = x - p.origin[0], d1 = y - p.origin[1], d2 = z - p.origin[2];
  double u = d0 * p.right[0] + d1 * p.right[1] + d2 * p.right[2];
  double v = d0 * p.up[0] + d1 * p.up[1] + d2 * p.up[2];
  if (p.perspective) {
    const double w = d0 * p.forward[0] + d1 * p.forward[1] + d2 * p.forward[2];
    if (!(w > 0)) return false;
    u /= w, v /= w;
  }
  const double fx = u * p.scale + 0.5 * p.nx, fy = v * p.scale + 0.5 * p.ny;
  if (!(fx >= 0 && fx < p.nx && fy >= 0 && fy < p.ny)) return false;
  i = int(fx) < p.nx - 1 ? int(fx) : p.nx - 1;
  j = int(fy) < p.ny - 1 ? int(fy) : p.ny - 1;
  return true;
}

// The largest image side a map may have.
inline constexpr int kMaxMapSide = 16384;

// Checks the camera and the size (an input error naming the bad value), and returns the
// parameters of a projection about `centre`; fills `map`'s size, extent and centre and zeroes
// its mass (and rgb_mass when `with_components`).
[[nodiscard]] ProjectionParams prepare_projection(const Camera& camera, const Vec3& centre, int nx, int ny,
                                                  bool with_components, DensityMap& map);
// The same without allocating the map's mass (a map shaded on the device has none).
[[nodiscard]] ProjectionParams prepare_projection_geometry(const Camera& camera, const Vec3& centre, int nx, int ny,
                                                           DensityMap& map);
// The log scale of surface density of a map whose largest pixel is `hi` (mass per area):
// [hi * 10^-decades, hi], or [0.1, 1] when hi is not a positive finite number (nothing in view).
[[nodiscard]] std::array<double, 2> density_range(double hi, double decades);
// The same checks alone (before a run starts).
void check_camera(const Camera& camera, int nx, int ny);

// Camera::shown for `patterns` ("all", or names and shell patterns separated by commas) against
// the bodies' component names; an input error naming `flag` for a pattern that matches none.
[[nodiscard]] std::array<std::uint64_t, 4> component_mask(const std::string& patterns,
                                                         const std::vector<std::string>& names, const std::string& flag);

// The names with those the camera does not show emptied (a frame's legend).
[[nodiscard]] std::vector<std::string> shown_names(const Camera& camera, std::vector<std::string> names);

// The map of the bodies (x, y, z, m: one entry per body, equal lengths; components empty or one
// per body) in float64, on the CPU. The centre of mass when the camera has no centre.
template <class T>
[[nodiscard]] DensityMap project_bodies(std::span<const T> x, std::span<const T> y, std::span<const T> z,
                                        std::span<const T> m, std::span<const std::uint8_t> components,
                                        const Camera& camera, int nx, int ny);

// An orthographic width that shows the bodies: 2.5 times the radius about the centre (none: the
// centre of mass) that holds 90% of the mass; 1 when there is nothing to measure.
template <class T>
[[nodiscard]] double auto_width(std::span<const T> x, std::span<const T> y, std::span<const T> z, std::span<const T> m,
                                const std::optional<Vec3>& centre);

}  // namespace nbody::render
