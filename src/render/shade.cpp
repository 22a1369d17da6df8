#include "render/shade.hpp"

#include <algorithm>
#include <cmath>

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
  if (!(hi > 0) || !std::isfinite(hi)) return Scale::log(0.1, 1);
  return Scale::log(hi * std::pow(10.0, -decades), hi);
}

std::vector<Rgb> shade(const DensityMap& map, ColormapId id, const Scale& scale) {
  const Colormap& cm = colormap(id);
  const bool by_component = !map.rgb_mass.empty();
  std::vector<Rgb> out(map.mass.size());
  for (std::size_t k = 0; k < out.size(); ++k) {
    const double m = map.mass[k];
    if (!by_component) {
      out[k] = colormap_colour(cm, m > 0 ? scale.normalize(map.surface_density(k)) : 0.0);
      continue;
    }
    if (!(m > 0)) {
      out[k] = {0, 0, 0};
      continue;
    }
    const double t = scale.normalize(map.surface_density(k));
    for (int q = 0; q < 3; ++q) {
      const double c = std::clamp(t * map.rgb_mass[3 * k + std::size_t(q)] / m, 0.0, 1.0);
      out[k][std::size_t(q)] = std::uint8_t(std::lround(255 * c));
    }
  }
  return out;
}

Image shaded_image(const DensityMap& map, ColormapId colormap, double decades) {
  const std::vector<Rgb> c = shade(map, colormap, density_scale(map, decades));
  Image im(map.nx, map.ny, 3);
  for (int j = 0; j < map.ny; ++j)
    for (int i = 0; i < map.nx; ++i) im.set(i, map.ny - 1 - j, c[std::size_t(j) * std::size_t(map.nx) + std::size_t(i)]);
  return im;
}

std::vector<Rgb> brightness_ramp() {
  std::vector<Rgb> r(256);
  for (int k = 0; k < 256; ++k) r[std::size_t(k)] = {std::uint8_t(k), std::uint8_t(k), std::uint8_t(k)};
  return r;
}

}  // namespace nbody::render
