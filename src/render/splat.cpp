#include "render/splat.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "nbody/error.hpp"

namespace nbody::render {
namespace {

double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
Vec3 unit(const Vec3& a, const char* what) {
  const double n = std::sqrt(dot(a, a));
  if (!(n > 0) || !std::isfinite(n)) throw_input_error(std::string("render: the camera's ") + what + " must be a nonzero vector");
  return {a[0] / n, a[1] / n, a[2] / n};
}

}  // namespace

CameraBasis camera_basis(const Camera& c) {
  CameraBasis b;
  b.forward = unit(c.direction, "direction");
  const Vec3 r = cross(b.forward, unit(c.up, "up"));
  if (!(std::sqrt(dot(r, r)) > 1e-12)) throw_input_error("render: the camera's up must not lie along its direction");
  b.right = unit(r, "up");
  b.up = cross(b.right, b.forward);
  return b;
}

template <class T>
SurfaceMap splat_surface_density(std::span<const T> x, std::span<const T> y, std::span<const T> z,
                                 std::span<const T> m, const Camera& camera, int nx, int ny) {
  if (y.size() != x.size() || z.size() != x.size() || m.size() != x.size())
    throw_input_error("render: positions and masses have different lengths");
  if (nx < 1 || ny < 1) throw_input_error("render: bad image size " + std::to_string(nx) + " x " + std::to_string(ny));
  if (!(camera.width > 0) || !std::isfinite(camera.width))
    throw_input_error("render: the camera's width must be > 0 (it is " + std::to_string(camera.width) + ")");
  const CameraBasis b = camera_basis(camera);
  SurfaceMap s;
  s.nx = nx, s.ny = ny;
  if (camera.centre) {
    s.centre = *camera.centre;
  } else {
    double mt = 0;
    Vec3 c{0, 0, 0};
    for (std::size_t k = 0; k < x.size(); ++k) {
      mt += double(m[k]);
      c[0] += double(m[k]) * double(x[k]), c[1] += double(m[k]) * double(y[k]), c[2] += double(m[k]) * double(z[k]);
    }
    if (mt > 0) s.centre = {c[0] / mt, c[1] / mt, c[2] / mt};
  }
  s.pixel_size = camera.width / nx;
  s.x_lo = -0.5 * camera.width, s.x_hi = 0.5 * camera.width;
  s.y_hi = 0.5 * s.pixel_size * ny, s.y_lo = -s.y_hi;
  s.value.assign(std::size_t(nx) * std::size_t(ny), 0.0);
  const double inv = 1.0 / s.pixel_size;
  for (std::size_t k = 0; k < x.size(); ++k) {
    const Vec3 d{double(x[k]) - s.centre[0], double(y[k]) - s.centre[1], double(z[k]) - s.centre[2]};
    const double fx = (dot(d, b.right) - s.x_lo) * inv, fy = (dot(d, b.up) - s.y_lo) * inv;
    if (!(fx >= 0 && fx < nx && fy >= 0 && fy < ny)) continue;  // outside (NaN too)
    const int i = std::min(nx - 1, int(fx)), j = std::min(ny - 1, int(fy));
    s.value[std::size_t(j) * std::size_t(nx) + std::size_t(i)] += double(m[k]);
    s.mass_inside += double(m[k]);
    ++s.bodies_inside;
  }
  const double per_area = inv * inv;
  for (double& v : s.value) v *= per_area;
  return s;
}

template SurfaceMap splat_surface_density<float>(std::span<const float>, std::span<const float>, std::span<const float>,
                                                 std::span<const float>, const Camera&, int, int);
template SurfaceMap splat_surface_density<double>(std::span<const double>, std::span<const double>,
                                                  std::span<const double>, std::span<const double>, const Camera&, int,
                                                  int);

}  // namespace nbody::render
