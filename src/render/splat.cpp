#include "render/splat.hpp"

#include "nbody/error.hpp"

namespace nbody::render {

template <class T>
SurfaceMap splat_surface_density(std::span<const T> x, std::span<const T> y, std::span<const T> z,
                                 std::span<const T> m, const Camera& camera, int nx, int ny) {
  if (camera.projection != Projection::orthographic)
    throw_input_error("render: a surface density needs an orthographic camera");
  const DensityMap d = project_bodies<T>(x, y, z, m, {}, camera, nx, ny);
  SurfaceMap s;
  s.nx = d.nx, s.ny = d.ny;
  s.x_lo = d.x_lo, s.x_hi = d.x_hi, s.y_lo = d.y_lo, s.y_hi = d.y_hi;
  s.pixel_size = d.pixel_size;
  s.value.resize(d.mass.size());
  for (std::size_t k = 0; k < d.mass.size(); ++k) s.value[k] = d.surface_density(k);
  s.mass_inside = d.mass_inside;
  s.bodies_inside = d.bodies_inside;
  s.centre = d.centre;
  return s;
}

template SurfaceMap splat_surface_density<float>(std::span<const float>, std::span<const float>, std::span<const float>,
                                                 std::span<const float>, const Camera&, int, int);
template SurfaceMap splat_surface_density<double>(std::span<const double>, std::span<const double>,
                                                  std::span<const double>, std::span<const double>, const Camera&, int,
                                                  int);

}  // namespace nbody::render
