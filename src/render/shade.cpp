#include "render/shade.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "render/projection.hpp"

namespace nbody::render {

std::vector<double> surface_density(const DensityMap& map) {
  std::vector<double> v(map.mass.size());
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = map.surface_density(k);
  return v;
}

Scale density_scale(const DensityMap& map, double decades) {
  double hi = 0;
  for (std::size_t k = 0; k < map.mass.size(); ++k)
    if (map.mass[k] > 0) hi = std::max(hi, map.surface_density(k));
  const auto [lo, top] = density_range(hi, decades);
  return Scale::log(lo, top);
}

namespace {

// std::lround(x) for x in [0, 255] (halves away from zero) without the library call; NaN: 0.
// x - int(x) is exact, so the comparison with 0.5 is lround's.
inline std::uint8_t round_byte(double x) {
  if (!(x > 0)) return 0;
  const int i = int(x);
  return std::uint8_t(x - i >= 0.5 ? i + 1 : i);
}

}  // namespace

std::vector<Rgb> shade(const DensityMap& map, ColormapId id, const Scale& scale) {
  const Colormap& cm = colormap(id);
  const std::size_t n = map.mass.size();
  std::vector<Rgb> out(n);  // black
  const double* mass = map.mass.data();
  const double area = map.pixel_size * map.pixel_size;  // as DensityMap::surface_density
  Rgb* o = out.data();
  if (map.rgb_mass.empty()) {
    const Rgb empty = colormap_colour(cm, 0.0);
    for (std::size_t k = 0; k < n; ++k) o[k] = mass[k] > 0 ? colormap_colour(cm, scale.normalize(mass[k] / area)) : empty;
    return out;
  }
  const double* rgb = map.rgb_mass.data();
  for (std::size_t k = 0; k < n; ++k) {
    const double m = mass[k];
    if (!(m > 0)) continue;  // an empty pixel is black
    const double t = scale.normalize(m / area);
    for (std::size_t q = 0; q < 3; ++q) o[k][q] = round_byte(255 * std::clamp(t * rgb[3 * k + q] / m, 0.0, 1.0));
  }
  return out;
}

Image shaded_image(const DensityMap& map, ColormapId colormap, double decades) {
  const std::vector<Rgb> c = shade(map, colormap, density_scale(map, decades));
  Image im(map.nx, map.ny, 3);
  const std::size_t row = std::size_t(map.nx) * 3;  // Rgb is 3 bytes: a row of colours is a row of pixels
  static_assert(sizeof(Rgb) == 3);
  for (int j = 0; j < map.ny; ++j)
    std::memcpy(im.pixels.data() + std::size_t(map.ny - 1 - j) * row, c.data() + std::size_t(j) * std::size_t(map.nx), row);
  return im;
}

std::vector<Rgb> brightness_ramp() {
  std::vector<Rgb> r(256);
  for (int k = 0; k < 256; ++k) r[std::size_t(k)] = {std::uint8_t(k), std::uint8_t(k), std::uint8_t(k)};
  return r;
}

}  // namespace nbody::render
