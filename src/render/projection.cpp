#include "render/projection.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fnmatch.h>
#include <sstream>
#include <utility>
#include <vector>
#include <numbers>
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
std::string number(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
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

void check_camera(const Camera& camera, int nx, int ny) {
  if (nx < 1 || ny < 1 || nx > kMaxMapSide || ny > kMaxMapSide)
    throw_input_error("render: bad image size " + std::to_string(nx) + "x" + std::to_string(ny) + " (each side 1 to " +
                      std::to_string(kMaxMapSide) + ")");
  if (camera.projection == Projection::orthographic) {
    if (!(camera.width > 0) || !std::isfinite(camera.width))
      throw_input_error("render: the camera's width must be > 0 (it is " + number(camera.width) + ")");
  } else {
    if (!(camera.fov_degrees > 0 && camera.fov_degrees < 180))
      throw_input_error("render: the camera's field of view must be in (0, 180) degrees (it is " +
                        number(camera.fov_degrees) + ")");
    if (!(camera.distance > 0) || !std::isfinite(camera.distance))
      throw_input_error("render: the camera's distance must be > 0 (it is " + number(camera.distance) + ")");
  }
  if (camera.centre)
    for (double c : *camera.centre)
      if (!std::isfinite(c)) throw_input_error("render: the camera's centre must be finite");
  (void)camera_basis(camera);
}

ProjectionParams prepare_projection(const Camera& camera, const Vec3& centre, int nx, int ny, bool with_components,
                                    DensityMap& map) {
  const ProjectionParams p = prepare_projection_geometry(camera, centre, nx, ny, map);
  map.mass.assign(std::size_t(nx) * std::size_t(ny), 0.0);
  if (with_components) map.rgb_mass.assign(3 * map.mass.size(), 0.0);
  return p;
}

std::array<double, 2> density_range(double hi, double decades) {
  if (!(hi > 0) || !std::isfinite(hi)) return {0.1, 1};
  return {hi * std::pow(10.0, -decades), hi};
}

ProjectionParams prepare_projection_geometry(const Camera& camera, const Vec3& centre, int nx, int ny,
                                             DensityMap& map) {
  check_camera(camera, nx, ny);
  const CameraBasis b = camera_basis(camera);
  ProjectionParams p{};
  p.nx = nx, p.ny = ny;
  p.perspective = camera.projection == Projection::perspective;
  for (int k = 0; k < 4; ++k) p.shown[k] = camera.shown[std::size_t(k)];
  for (int k = 0; k < 3; ++k) p.right[k] = b.right[k], p.up[k] = b.up[k], p.forward[k] = b.forward[k];
  double width;  // of the view in the centre's plane
  if (p.perspective) {
    const double half = std::tan(0.5 * camera.fov_degrees * std::numbers::pi / 180.0);
    p.scale = 0.5 * nx / half;
    for (int k = 0; k < 3; ++k) p.origin[k] = centre[k] - camera.distance * b.forward[k];
    width = 2 * half * camera.distance;
  } else {
    p.scale = nx / camera.width;
    for (int k = 0; k < 3; ++k) p.origin[k] = centre[k];
    width = camera.width;
  }
  map = DensityMap{};
  map.nx = nx, map.ny = ny;
  map.projection = camera.projection;
  map.centre = centre;
  map.pixel_size = width / nx;
  map.x_lo = -0.5 * width, map.x_hi = 0.5 * width;
  map.y_hi = 0.5 * map.pixel_size * ny, map.y_lo = -map.y_hi;
  return p;
}

std::array<std::uint64_t, 4> component_mask(const std::string& patterns, const std::vector<std::string>& names,
                                            const std::string& flag) {
  std::array<std::uint64_t, 4> mask{~0ull, ~0ull, ~0ull, ~0ull};
  if (patterns == "all") return mask;
  mask = {0, 0, 0, 0};
  std::string known;
  for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
  std::istringstream in(patterns);
  std::string pattern;
  while (std::getline(in, pattern, ',')) {
    const std::size_t first = pattern.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    pattern = pattern.substr(first, pattern.find_last_not_of(' ') + 1 - first);
    bool matched = false;
    for (std::size_t c = 0; c < names.size() && c < 256; ++c) {
      if (fnmatch(pattern.c_str(), names[c].c_str(), 0) != 0) continue;
      mask[c / 64] |= 1ull << (c % 64);
      matched = true;
    }
    if (!matched)
      throw_input_error(flag + ": '" + pattern + "' matches no component (the bodies' components: " +
                        (known.empty() ? "none named" : known) + ")");
  }
  return mask;
}

std::vector<std::string> shown_names(const Camera& camera, std::vector<std::string> names) {
  for (std::size_t c = 0; c < names.size(); ++c)
    if (c > 255 || !camera.shows(std::uint8_t(c))) names[c].clear();
  return names;
}

template <class T>
DensityMap project_bodies(std::span<const T> x, std::span<const T> y, std::span<const T> z, std::span<const T> m,
                          std::span<const std::uint8_t> components, const Camera& camera, int nx, int ny) {
  if (y.size() != x.size() || z.size() != x.size() || m.size() != x.size())
    throw_input_error("render: positions and masses have different lengths");
  if (!components.empty() && components.size() != x.size())
    throw_input_error("render: " + std::to_string(components.size()) + " components for " + std::to_string(x.size()) +
                      " bodies");
  Vec3 centre{0, 0, 0};
  if (camera.centre) {
    centre = *camera.centre;
  } else {
    double mt = 0;
    Vec3 c{0, 0, 0};
    for (std::size_t k = 0; k < x.size(); ++k) {
      mt += double(m[k]);
      c[0] += double(m[k]) * double(x[k]), c[1] += double(m[k]) * double(y[k]), c[2] += double(m[k]) * double(z[k]);
    }
    if (mt > 0) centre = {c[0] / mt, c[1] / mt, c[2] / mt};
  }
  DensityMap map;
  const ProjectionParams p = prepare_projection(camera, centre, nx, ny, !components.empty(), map);
  for (std::size_t k = 0; k < x.size(); ++k) {
    int i, j;
    if (!components.empty() && !shows(p, components[k])) continue;
    if (!pixel_of(p, double(x[k]), double(y[k]), double(z[k]), i, j)) continue;
    const std::size_t at = std::size_t(j) * std::size_t(nx) + std::size_t(i);
    map.mass[at] += double(m[k]);
    if (!components.empty()) {
      const auto c = component_colour(components[k]);
      for (int q = 0; q < 3; ++q) map.rgb_mass[3 * at + std::size_t(q)] += double(m[k]) * (c[q] / 255.0);
    }
    map.mass_inside += double(m[k]);
    ++map.bodies_inside;
  }
  return map;
}

template <class T>
double auto_width(std::span<const T> x, std::span<const T> y, std::span<const T> z, std::span<const T> m,
                  const std::optional<Vec3>& centre) {
  Vec3 c{0, 0, 0};
  if (centre) {
    c = *centre;
  } else {
    double mt = 0;
    for (std::size_t k = 0; k < x.size(); ++k) {
      mt += double(m[k]);
      c[0] += double(m[k]) * double(x[k]), c[1] += double(m[k]) * double(y[k]), c[2] += double(m[k]) * double(z[k]);
    }
    if (mt > 0) c = {c[0] / mt, c[1] / mt, c[2] / mt};
  }
  std::vector<std::pair<double, double>> r;
  double total = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    const double d = std::hypot(double(x[k]) - c[0], double(y[k]) - c[1], double(z[k]) - c[2]);
    if (std::isfinite(d) && double(m[k]) > 0) r.emplace_back(d, double(m[k])), total += double(m[k]);
  }
  std::sort(r.begin(), r.end());
  double acc = 0, r90 = 0;
  for (const auto& [d, mk] : r) {
    acc += mk, r90 = d;
    if (acc >= 0.9 * total) break;
  }
  const double w = 2.5 * r90;
  return w > 0 && std::isfinite(w) ? w : 1.0;
}
template double auto_width<float>(std::span<const float>, std::span<const float>, std::span<const float>,
                                  std::span<const float>, const std::optional<Vec3>&);
template double auto_width<double>(std::span<const double>, std::span<const double>, std::span<const double>,
                                   std::span<const double>, const std::optional<Vec3>&);

template DensityMap project_bodies<float>(std::span<const float>, std::span<const float>, std::span<const float>,
                                          std::span<const float>, std::span<const std::uint8_t>, const Camera&, int,
                                          int);
template DensityMap project_bodies<double>(std::span<const double>, std::span<const double>, std::span<const double>,
                                           std::span<const double>, std::span<const std::uint8_t>, const Camera&, int,
                                           int);

}  // namespace nbody::render
