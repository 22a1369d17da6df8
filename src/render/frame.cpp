#include "render/frame.hpp"

#include <cmath>
#include <cstdio>

#include "render/shade.hpp"

namespace nbody::render {
namespace {

std::string number(double v, const char* format = "%.9g") {
  char b[48];
  std::snprintf(b, sizeof b, format, v);
  return b;
}

// A round length (1, 2 or 5 times a power of ten) near a fifth of the view's width.
double scale_bar_length(double width) {
  if (!(width > 0) || !std::isfinite(width)) return 0;
  const double target = width / 5, p = std::pow(10.0, std::floor(std::log10(target)));
  for (double f : {5.0, 2.0, 1.0})
    if (f * p <= target) return f * p;
  return p;
}

}  // namespace

ShortUnits short_units(const std::string& system) {
  if (system == "galactic") return {"kpc", "Msun", "kpc/(km/s)"};
  if (system == "solar") return {"au", "Msun", "yr"};
  return {"", "", ""};
}

namespace {

// A map's colours with what the figure says of them: `map` gives the geometry (its mass may be
// empty: a map shaded on the device).
struct Shaded {
  const DensityMap& map;
  const std::vector<Rgb>& colours;
  Scale scale;
  bool by_component;
};

Figure draw_shaded(const Shaded& s, const FrameStyle& style, const FrameLabels& labels) {
  const DensityMap& map = s.map;
  const ShortUnits u = short_units(labels.units);
  const std::string length = u.length.empty() ? "N-body length" : u.length;
  const std::string density = u.mass.empty() ? "N-body mass / length\u00b2" : u.mass + " / " + u.length + "\u00b2";
  FigureSpec spec;
  spec.title = labels.title;
  spec.time = "t = " + number(labels.time, "%.4g") + (u.time.empty() ? "" : " " + u.time) +
              (labels.step >= 0 ? " (step " + std::to_string(labels.step) + ")" : "");
  const char* plane = map.projection == Projection::perspective ? " at the centre" : "";
  spec.x = {map.x_lo, map.x_hi, "x' (" + length + ")" + plane};
  spec.y = {map.y_lo, map.y_hi, "y' (" + length + ")"};
  spec.colorbar_label = "\u03a3 (" + density + ")" + (s.by_component ? ", hue: component" : "");
  spec.colormap = style.colormap;
  spec.scale = s.scale;
  if (s.by_component) spec.colorbar_colours = brightness_ramp();
  spec.max_map_width = std::max(640, map.nx);
  spec.max_map_height = std::max(480, map.ny);
  spec.scale_bar = scale_bar_length(map.x_hi - map.x_lo);
  spec.scale_bar_label = number(spec.scale_bar, "%g") + (u.length.empty() ? "" : " " + u.length);
  if (s.by_component) {
    for (std::size_t c = 0; c < labels.components.size(); ++c) {
      if (labels.components[c].empty()) continue;  // not drawn
      const auto hue = component_colour(std::uint8_t(c));
      spec.legend.emplace_back(labels.components[c], Rgb{std::uint8_t(hue[0]), std::uint8_t(hue[1]), std::uint8_t(hue[2])});
    }
  }
  return draw_figure({map.nx, map.ny, {}, s.colours}, spec);  // the colours shaded: no values needed
}

TextChunks shaded_chunks(const Shaded& s, const FrameStyle& style, const FrameLabels& labels, const Figure& figure) {
  const DensityMap& map = s.map;
  const Colormap& cm = colormap(style.colormap);
  return {{"Title", labels.title},
          {"Software", "nbody"},
          {"Quantity", "surface density"},
          {"Units", labels.units},
          {"Colormap", s.by_component ? "component hues, log brightness" : cm.name},
          {"Scale", s.scale.name()},
          {"Min", number(s.scale.lo)},
          {"Max", number(s.scale.hi)},
          {"Step", std::to_string(labels.step)},
          {"Time", number(labels.time)},
          {"Camera", labels.camera},
          {"Centre", number(map.centre[0]) + " " + number(map.centre[1]) + " " + number(map.centre[2])},
          {"Extent", number(map.x_lo) + " " + number(map.x_hi) + " " + number(map.y_lo) + " " + number(map.y_hi)},
          {"Mass_inside", number(map.mass_inside)},
          {"Bodies_inside", std::to_string(map.bodies_inside)},
          {"Plot_box", figure.plot.text()},
          {"Colorbar_box", figure.colorbar.text()}};
}

void write_shaded(const std::filesystem::path& path, const Shaded& s, const FrameStyle& style,
                  const FrameLabels& labels, PngEncoding encoding) {
  const Figure f = draw_shaded(s, style, labels);
  write_png(path, f.image, shaded_chunks(s, style, labels, f), encoding);
}

}  // namespace

Figure draw_frame(const DensityMap& map, const FrameStyle& style, const FrameLabels& labels) {
  const Scale scale = density_scale(map, style.decades);
  const std::vector<Rgb> colours = shade(map, style.colormap, scale);
  return draw_shaded({map, colours, scale, !map.rgb_mass.empty()}, style, labels);
}

TextChunks frame_chunks(const DensityMap& map, const FrameStyle& style, const FrameLabels& labels,
                        const Figure& figure) {
  return shaded_chunks({map, {}, density_scale(map, style.decades), !map.rgb_mass.empty()}, style, labels, figure);
}

void write_frame(const std::filesystem::path& path, const DensityMap& map, const FrameStyle& style,
                 const FrameLabels& labels, PngEncoding encoding) {
  const Scale scale = density_scale(map, style.decades);
  const std::vector<Rgb> colours = shade(map, style.colormap, scale);
  write_shaded(path, {map, colours, scale, !map.rgb_mass.empty()}, style, labels, encoding);
}

void write_frame(const std::filesystem::path& path, const ShadedMap& shaded, const FrameStyle& style,
                 const FrameLabels& labels, PngEncoding encoding) {
  write_shaded(path, {shaded.map, shaded.colours, Scale::log(shaded.lo, shaded.hi), shaded.by_component}, style,
               labels, encoding);
}

ShadeSpec shade_spec(const FrameStyle& style, bool by_component) {
  ShadeSpec spec;
  const Colormap& cm = colormap(style.colormap);
  for (int e = 0; e < 256; ++e) spec.colormap[std::size_t(e)] = colormap_entry(cm, e);
  spec.by_component = by_component;
  spec.decades = style.decades;
  return spec;
}

std::string frame_file_name(std::int64_t step) {
  char b[40];
  std::snprintf(b, sizeof b, "frame_%08lld.png", static_cast<long long>(step));
  return b;
}

}  // namespace nbody::render
