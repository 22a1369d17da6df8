#pragma once
// Colour maps and scales of the renderer. A colour map is a table of 256 RGB entries
// (colormap_tables.inc, generated from matplotlib's published tables by scripts/gen_colormaps.py);
// a Scale takes a value to [0, 1] along the map: linear over [lo, hi], log10 over [lo, hi]
// (lo > 0), or symmetric (signed: -a .. +a with zero at the map's middle).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nbody::render {

using Rgb = std::array<std::uint8_t, 3>;

enum class ColormapId { viridis, magma, coolwarm };

struct Colormap {
  ColormapId id;
  const char* name;     // "viridis", "magma", "coolwarm"
  const char* kind;     // "sequential" or "diverging"
  const double (*rgb)[3];  // 256 entries in [0, 1], low end first
};

[[nodiscard]] const Colormap& colormap(ColormapId id);
// The map of that name; an input error naming the name and the known maps otherwise.
[[nodiscard]] const Colormap& colormap(std::string_view name);
[[nodiscard]] std::vector<std::string> colormap_names();

// Entry k (0..255) as 8-bit RGB (each channel round(255 * c)).
[[nodiscard]] Rgb colormap_entry(const Colormap& map, int k);
// The colour at t in [0, 1] (clamped; NaN gives the low end): entry floor(256 t), 255 at t = 1.
[[nodiscard]] Rgb colormap_colour(const Colormap& map, double t);

enum class ScaleKind { linear, log, symmetric };

struct Scale {
  ScaleKind kind = ScaleKind::linear;
  double lo = 0, hi = 1;  // symmetric: lo = -hi

  static Scale linear(double lo, double hi) { return {ScaleKind::linear, lo, hi}; }
  // log10 from lo to hi (both > 0).
  static Scale log(double lo, double hi) { return {ScaleKind::log, lo, hi}; }
  // -a .. +a, zero in the middle.
  static Scale symmetric(double a) { return {ScaleKind::symmetric, -a, a}; }

  // t in [0, 1] for a value (clamped); 0 for NaN, for a value <= 0 on a log scale and for a
  // degenerate range (hi <= lo: a constant map shows the low end, symmetric the middle).
  [[nodiscard]] double normalize(double v) const;
  // The value at t (the inverse of normalize inside the range).
  [[nodiscard]] double value_at(double t) const;
  [[nodiscard]] const char* name() const;  // "linear", "log", "symmetric"
};

}  // namespace nbody::render
