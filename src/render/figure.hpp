#pragma once
// A figure around a 2D map, drawn with cairo: the map (each sample an s x s block of pixels, s the
// largest integer that keeps the map within about 640 x 480), a frame with ticks and tick labels
// on both axes, the axis labels (with their units), a colour bar on the right with its ticks and
// label, the title at the top left, the time at the top right and an optional scale bar in the
// map's lower left corner. Text goes through cairo's toy text API in DejaVu Sans (Debian
// fonts-dejavu-core, through fontconfig): it needs no layout engine for one-line ASCII and Greek
// labels, and adds no library beyond cairo. The map and the colour bar are written pixel by pixel
// (exact colours of the colour map); cairo draws the lines and text around them. The same input
// gives the same pixels.
#include <optional>
#include <span>
#include <utility>
#include <string>
#include <vector>

#include "render/colormap.hpp"
#include "render/image.hpp"

namespace nbody::render {

// Samples of a 2D map: value[j * nx + i], j counted from the bottom (y up).
// With `colours` (one per sample, same order) the map shows those colours instead of the colour
// map's (colour by component, or colours shaded beforehand); the colour bar then shows
// colorbar_colours when given. With colours the values may be left empty.
struct MapView {
  int nx = 0, ny = 0;
  std::span<const double> value;
  std::span<const Rgb> colours = {};
};

struct FigureAxis {
  double lo = 0, hi = 1;  // the data range the map spans
  std::string label;      // with its unit, "x (λ)"
};

struct FigureSpec {
  std::string title;
  std::string time;  // "t = 3.2 T0"; empty: none
  FigureAxis x, y;
  std::string colorbar_label;
  ColormapId colormap = ColormapId::viridis;
  Scale scale;
  // The colour of samples that are NaN or, on a log scale, <= 0 ("empty"); none: the map's low end.
  std::optional<Rgb> empty_colour;
  // The colour bar's colours from its low end to its high end (any count); empty: the colour map.
  std::vector<Rgb> colorbar_colours;
  // The largest map in pixels before samples are enlarged to s x s blocks (s >= 1).
  int max_map_width = 640, max_map_height = 480;
  double scale_bar = 0;  // length of a scale bar in x's units; 0: none
  std::string scale_bar_label;
  // A legend in the map's upper left corner: a square of each colour and its name (colour by
  // component); empty: none.
  std::vector<std::pair<std::string, Rgb>> legend;
};

// A box of pixels: left, top, width, height.
struct Box {
  int x = 0, y = 0, w = 0, h = 0;
  [[nodiscard]] std::string text() const;  // "x y w h"
};

struct Figure {
  Image image;    // RGB
  Box plot;       // the map's pixels
  Box colorbar;   // the colour bar's pixels (the high end at the top)
  int pixels_per_sample = 1;
};

// Input error for an empty map or a value or colour span of the wrong size; runtime error when
// cairo fails.
[[nodiscard]] Figure draw_figure(const MapView& map, const FigureSpec& spec);

// The colour a sample gets on a figure with that spec.
[[nodiscard]] Rgb sample_colour(const FigureSpec& spec, double v);

// A line plot: series of points joined by straight lines in a plot box of 560 x 360 pixels, a
// frame with ticks and tick labels on both axes (linear, or log10 with ticks at powers of ten),
// the axis labels (with their units), the title at the top left, the time at the top right, a
// legend at the top right of the box when a series has a label, and an optional note in the
// middle of the box (for a plot without data). Lines are 2 pixels wide in the series' exact
// colour (no antialiasing) and clipped to the box; on a log axis values <= 0 are drawn at the
// axis' low end, and a NaN or infinite value breaks the line. The same input gives the same pixels.
struct LineSeries {
  std::vector<double> x, y;  // the same length
  Rgb colour{31, 119, 180};
  std::string label;  // in the legend; empty: none
};

struct LineAxis {
  double lo = 0, hi = 1;  // the range shown (hi > lo; lo > 0 on a log axis)
  bool log = false;
  std::string label;
};

struct LinePlotSpec {
  std::string title;
  std::string time;  // empty: none
  LineAxis x, y;
  std::vector<LineSeries> series;
  std::string note;  // empty: none
};

struct LinePlot {
  Image image;  // RGB
  Box plot;     // the plot box's pixels (inside the frame)
};

// Input error for an empty or reversed range, a log axis reaching 0, or series of unequal
// lengths; runtime error when cairo fails.
[[nodiscard]] LinePlot draw_line_plot(const LinePlotSpec& spec);

}  // namespace nbody::render
