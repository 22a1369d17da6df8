#include "render/colormap.hpp"

#include <algorithm>
#include <cmath>

#include "nbody/error.hpp"

namespace nbody::render {
namespace {

#include "render/colormap_tables.inc"

const Colormap kMaps[] = {
    {ColormapId::viridis, "viridis", "sequential", k_viridis},
    {ColormapId::magma, "magma", "sequential", k_magma},
    {ColormapId::coolwarm, "coolwarm", "diverging", k_coolwarm},
};

}  // namespace

const Colormap& colormap(ColormapId id) {
  for (const Colormap& m : kMaps)
    if (m.id == id) return m;
  throw_runtime_error("render: unknown colour map id");
}

const Colormap& colormap(std::string_view name) {
  for (const Colormap& m : kMaps)
    if (name == m.name) return m;
  std::string known;
  for (const Colormap& m : kMaps) known += (known.empty() ? "" : ", ") + std::string(m.name);
  throw_input_error("colour map '" + std::string(name) + "' is not known (" + known + ")");
}

std::vector<std::string> colormap_names() {
  std::vector<std::string> names;
  for (const Colormap& m : kMaps) names.emplace_back(m.name);
  return names;
}

Rgb colormap_entry(const Colormap& map, int k) {
  k = std::clamp(k, 0, 255);
  auto c = [](double x) { return std::uint8_t(std::lround(std::clamp(x, 0.0, 1.0) * 255.0)); };
  return {c(map.rgb[k][0]), c(map.rgb[k][1]), c(map.rgb[k][2])};
}

Rgb colormap_colour(const Colormap& map, double t) {
  if (!(t > 0)) return colormap_entry(map, 0);  // NaN too
  return colormap_entry(map, t >= 1 ? 255 : int(t * 256.0));
}

double Scale::normalize(double v) const {
  if (std::isnan(v)) return 0;
  double t = 0;
  switch (kind) {
    case ScaleKind::linear:
      if (!(hi > lo)) return 0;
      t = (v - lo) / (hi - lo);
      break;
    case ScaleKind::symmetric:
      if (!(hi > 0)) return 0.5;
      t = 0.5 + 0.5 * v / hi;
      break;
    case ScaleKind::log:
      if (!(v > 0) || !(lo > 0) || !(hi > lo)) return 0;
      t = std::log10(v / lo) / std::log10(hi / lo);
      break;
  }
  return std::clamp(t, 0.0, 1.0);
}

double Scale::value_at(double t) const {
  switch (kind) {
    case ScaleKind::linear: return lo + t * (hi - lo);
    case ScaleKind::symmetric: return (2 * t - 1) * hi;
    case ScaleKind::log: return lo * std::pow(hi / lo, t);
  }
  return lo;
}

const char* Scale::name() const {
  switch (kind) {
    case ScaleKind::linear: return "linear";
    case ScaleKind::log: return "log";
    case ScaleKind::symmetric: return "symmetric";
  }
  return "linear";
}

}  // namespace nbody::render
