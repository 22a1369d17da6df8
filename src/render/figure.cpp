#include "render/figure.hpp"

#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nbody/error.hpp"
#include "render/ticks.hpp"

namespace nbody::render {
namespace {

constexpr int kLeft = 84, kTop = 40, kBottom = 62, kBarGap = 18, kBarWidth = 20, kRight = 150;
constexpr double kFont = 13.0, kTitleFont = 15.0, kTickLength = 5.0;

struct CairoDeleter {
  void operator()(cairo_t* c) const { cairo_destroy(c); }
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};

// A pixel of cairo's RGB24 surface: 0x00RRGGBB in a 32-bit word.
std::uint32_t pixel(Rgb c) { return (std::uint32_t(c[0]) << 16) | (std::uint32_t(c[1]) << 8) | std::uint32_t(c[2]); }

std::uint32_t* surface_row(unsigned char* data, int stride, int y) {
  return reinterpret_cast<std::uint32_t*>(data + std::ptrdiff_t(y) * stride);
}

// The RGB image of a finished RGB24 surface, row by row.
Image image_of_surface(cairo_surface_t* surface) {
  const unsigned char* data = cairo_image_surface_get_data(surface);
  const int stride = cairo_image_surface_get_stride(surface);
  const int W = cairo_image_surface_get_width(surface), H = cairo_image_surface_get_height(surface);
  Image im;
  im.width = W, im.height = H, im.channels = 3;
  im.pixels.resize(std::size_t(W) * std::size_t(H) * 3);
  for (int y = 0; y < H; ++y) {
    const auto* src = reinterpret_cast<const std::uint32_t*>(data + std::ptrdiff_t(y) * stride);
    std::uint8_t* dst = im.pixels.data() + std::size_t(y) * std::size_t(W) * 3;
    for (int x = 0; x < W; ++x, dst += 3) {
      const std::uint32_t v = src[x];
      dst[0] = std::uint8_t(v >> 16), dst[1] = std::uint8_t(v >> 8), dst[2] = std::uint8_t(v);
    }
  }
  return im;
}

enum class Align { left, centre, right };

// One line of text with its reference point at (x, y): aligned horizontally, vertically centred.
void text(cairo_t* cr, const std::string& s, double x, double y, Align a, double size = kFont, double angle = 0) {
  if (s.empty()) return;
  cairo_save(cr);
  cairo_set_font_size(cr, size);
  cairo_text_extents_t e;
  cairo_text_extents(cr, s.c_str(), &e);
  cairo_translate(cr, x, y);
  cairo_rotate(cr, angle);
  const double dx = a == Align::left ? -e.x_bearing : a == Align::centre ? -(e.x_bearing + e.width / 2) : -(e.x_bearing + e.width);
  const double dy = -(e.y_bearing + e.height / 2);
  cairo_move_to(cr, std::round(dx), std::round(dy));
  cairo_show_text(cr, s.c_str());
  cairo_restore(cr);
}

void line(cairo_t* cr, double x0, double y0, double x1, double y1) {
  cairo_move_to(cr, x0, y0);
  cairo_line_to(cr, x1, y1);
  cairo_stroke(cr);
}

// The text style of the figures: DejaVu Sans, grey antialiasing, no hinting (the same glyphs at
// any position), black lines 1 pixel wide without antialiasing.
void figure_text_style(cairo_t* cr) {
  cairo_font_options_t* fo = cairo_font_options_create();
  cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
  cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
  cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
  cairo_set_font_options(cr, fo);
  cairo_font_options_destroy(fo);
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1.0);
  cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
}

void set_colour(cairo_t* cr, Rgb c) { cairo_set_source_rgb(cr, c[0] / 255.0, c[1] / 255.0, c[2] / 255.0); }

std::vector<Tick> colorbar_ticks(const Scale& s) {
  if (s.kind == ScaleKind::log) return log_ticks(s.lo, s.hi);
  return linear_ticks(s.lo, s.hi, 5);
}

}  // namespace

std::string Box::text() const {
  return std::to_string(x) + " " + std::to_string(y) + " " + std::to_string(w) + " " + std::to_string(h);
}

Rgb sample_colour(const FigureSpec& spec, double v) {
  if (spec.empty_colour && (std::isnan(v) || (spec.scale.kind == ScaleKind::log && !(v > 0)))) return *spec.empty_colour;
  return colormap_colour(colormap(spec.colormap), spec.scale.normalize(v));
}

Figure draw_figure(const MapView& map, const FigureSpec& spec) {
  const std::size_t samples = std::size_t(std::max(map.nx, 0)) * std::size_t(std::max(map.ny, 0));
  if (map.nx < 1 || map.ny < 1 || (map.colours.empty() && map.value.size() != samples) ||
      (!map.colours.empty() && (map.colours.size() != samples || (!map.value.empty() && map.value.size() != samples))))
    throw_input_error("render: a figure needs a map of nx x ny > 0 samples");
  Figure f;
  const int s = std::max(1, std::min(spec.max_map_width / map.nx, spec.max_map_height / map.ny));
  f.pixels_per_sample = s;
  f.plot = {kLeft, kTop, map.nx * s, map.ny * s};
  f.colorbar = {kLeft + f.plot.w + kBarGap, kTop, kBarWidth, f.plot.h};
  const int W = kLeft + f.plot.w + kRight, H = kTop + f.plot.h + kBottom;

  std::unique_ptr<cairo_surface_t, CairoDeleter> surface(cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H));
  if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS)
    throw_runtime_error(std::string("render: cairo: ") + cairo_status_to_string(cairo_surface_status(surface.get())));
  std::unique_ptr<cairo_t, CairoDeleter> owner(cairo_create(surface.get()));
  cairo_t* cr = owner.get();
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_surface_flush(surface.get());

  // The map and the colour bar, pixel by pixel.
  unsigned char* data = cairo_image_surface_get_data(surface.get());
  const int stride = cairo_image_surface_get_stride(surface.get());
  // Each sample's row is written once into the top row of its block, then copied to the s - 1 below.
  const double* value = map.value.data();
  const Rgb* colours = map.colours.empty() ? nullptr : map.colours.data();
  for (int j = 0; j < map.ny; ++j) {
    const int top = f.plot.y + (map.ny - 1 - j) * s;
    std::uint32_t* row = surface_row(data, stride, top) + f.plot.x;
    const std::size_t k0 = std::size_t(j) * std::size_t(map.nx);
    for (int i = 0; i < map.nx; ++i) {
      const std::uint32_t c = pixel(colours != nullptr ? colours[k0 + std::size_t(i)] : sample_colour(spec, value[k0 + std::size_t(i)]));
      std::fill_n(row + std::ptrdiff_t(i) * s, s, c);
    }
    for (int y = top + 1; y < top + s; ++y)
      std::copy_n(row, f.plot.w, surface_row(data, stride, y) + f.plot.x);
  }
  const Colormap& cm = colormap(spec.colormap);
  for (int r = 0; r < f.colorbar.h; ++r) {
    const double t = 1.0 - (r + 0.5) / f.colorbar.h;
    const std::size_t nb = spec.colorbar_colours.size();
    const Rgb c = nb == 0 ? colormap_colour(cm, t) : spec.colorbar_colours[std::min(nb - 1, std::size_t(t * double(nb)))];
    std::fill_n(surface_row(data, stride, f.colorbar.y + r) + f.colorbar.x, f.colorbar.w, pixel(c));
  }
  cairo_surface_mark_dirty(surface.get());

  figure_text_style(cr);

  // Frames just outside the map and the bar (their pixels stay the data's).
  const Box& p = f.plot;
  const Box& b = f.colorbar;
  cairo_rectangle(cr, p.x - 0.5, p.y - 0.5, p.w + 1, p.h + 1);
  cairo_stroke(cr);
  cairo_rectangle(cr, b.x - 0.5, b.y - 0.5, b.w + 1, b.h + 1);
  cairo_stroke(cr);

  // Axes: ticks outward, labels beyond them.
  const double xl = spec.x.lo, xh = spec.x.hi, yl = spec.y.lo, yh = spec.y.hi;
  for (const Tick& t : linear_ticks(xl, xh, std::max(2, p.w / 110))) {
    const double px = std::round(p.x + (t.value - xl) / (xh - xl) * p.w) + 0.5;
    line(cr, px, p.y + p.h + 0.5, px, p.y + p.h + 0.5 + kTickLength);
    text(cr, t.label, px, p.y + p.h + 16, Align::centre);
  }
  for (const Tick& t : linear_ticks(yl, yh, std::max(2, p.h / 70))) {
    const double py = std::round(p.y + p.h - (t.value - yl) / (yh - yl) * p.h) - 0.5;
    line(cr, p.x - 0.5, py, p.x - 0.5 - kTickLength, py);
    text(cr, t.label, p.x - 9, py, Align::right);
  }
  for (const Tick& t : colorbar_ticks(spec.scale)) {
    const double u = spec.scale.normalize(t.value);
    const double py = std::round(b.y + b.h - u * b.h) - 0.5;
    line(cr, b.x + b.w + 0.5, py, b.x + b.w + 0.5 + kTickLength, py);
    text(cr, t.label, b.x + b.w + 9, py, Align::left);
  }
  text(cr, spec.x.label, p.x + p.w / 2.0, p.y + p.h + 40, Align::centre);
  text(cr, spec.y.label, 16, p.y + p.h / 2.0, Align::centre, kFont, -M_PI / 2);
  text(cr, spec.colorbar_label, W - 16, b.y + b.h / 2.0, Align::centre, kFont, -M_PI / 2);
  text(cr, spec.title, p.x, kTop / 2.0, Align::left, kTitleFont);
  text(cr, spec.time, W - 10, kTop / 2.0, Align::right);

  // The scale bar: white with a black edge, in the map's lower left corner, where it fits.
  if (spec.scale_bar > 0 && xh > xl) {
    const double len = spec.scale_bar / (xh - xl) * p.w;
    if (len >= 4 && len < p.w - 20 && p.h >= 40) {
      const double x0 = p.x + 10, y0 = p.y + p.h - 12;
      cairo_rectangle(cr, x0 - 1, y0 - 2, std::round(len) + 2, 5);
      cairo_set_source_rgb(cr, 0, 0, 0);
      cairo_fill(cr);
      cairo_rectangle(cr, x0, y0 - 1, std::round(len), 3);
      cairo_set_source_rgb(cr, 1, 1, 1);
      cairo_fill(cr);
      text(cr, spec.scale_bar_label, x0, y0 - 12, Align::left);
    }
  }

  // The legend: a square of the entry's colour (black edge) and its name in white, one a line.
  for (std::size_t k = 0; k < spec.legend.size(); ++k) {
    const double x0 = p.x + 10, y0 = p.y + 10 + 18.0 * double(k);
    if (y0 + 12 > p.y + p.h - 30) break;
    cairo_rectangle(cr, x0 - 1, y0 - 1, 12, 12);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_fill(cr);
    cairo_rectangle(cr, x0, y0, 10, 10);
    set_colour(cr, spec.legend[k].second);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    text(cr, spec.legend[k].first, x0 + 16, y0 + 5, Align::left);
  }

  cairo_surface_flush(surface.get());
  if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
    throw_runtime_error(std::string("render: cairo: ") + cairo_status_to_string(cairo_status(cr)));
  f.image = image_of_surface(surface.get());
  return f;
}

}  // namespace nbody::render

namespace nbody::render {
namespace {

constexpr int kLinePlotWidth = 560, kLinePlotHeight = 360, kLinePlotRight = 30;

// Where v lies along an axis: 0 at lo, 1 at hi.
double axis_fraction(const LineAxis& a, double v) {
  if (a.log) return (std::log10(std::max(v, a.lo)) - std::log10(a.lo)) / (std::log10(a.hi) - std::log10(a.lo));
  return (v - a.lo) / (a.hi - a.lo);
}

std::vector<Tick> axis_ticks(const LineAxis& a, int target) {
  return a.log ? log_ticks(a.lo, a.hi) : linear_ticks(a.lo, a.hi, target);
}

void check_axis(const LineAxis& a, const char* name) {
  if (!std::isfinite(a.lo) || !std::isfinite(a.hi) || !(a.hi > a.lo) || (a.log && !(a.lo > 0)))
    throw_input_error(std::string("render: a line plot's ") + name + " axis needs lo < hi" +
                      (a.log ? " and lo > 0 (log scale)" : "") + ", not " + tick_label(a.lo, 0) + " .. " +
                      tick_label(a.hi, 0));
}


}  // namespace

LinePlot draw_line_plot(const LinePlotSpec& spec) {
  check_axis(spec.x, "x");
  check_axis(spec.y, "y");
  for (const LineSeries& s : spec.series)
    if (s.x.size() != s.y.size()) throw_input_error("render: a line plot's series has x and y of different lengths");
  LinePlot f;
  f.plot = {kLeft, kTop, kLinePlotWidth, kLinePlotHeight};
  const int W = kLeft + f.plot.w + kLinePlotRight, H = kTop + f.plot.h + kBottom;
  std::unique_ptr<cairo_surface_t, CairoDeleter> surface(cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H));
  if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS)
    throw_runtime_error(std::string("render: cairo: ") + cairo_status_to_string(cairo_surface_status(surface.get())));
  std::unique_ptr<cairo_t, CairoDeleter> owner(cairo_create(surface.get()));
  cairo_t* cr = owner.get();
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  figure_text_style(cr);

  const Box& p = f.plot;
  // The series, clipped to the box (positions kept within ten boxes of it: cairo's fixed point).
  auto px = [&](double x) { return p.x + std::clamp(axis_fraction(spec.x, x), -10.0, 11.0) * p.w; };
  auto py = [&](double y) { return p.y + p.h - std::clamp(axis_fraction(spec.y, y), -10.0, 11.0) * p.h; };
  cairo_save(cr);
  cairo_rectangle(cr, p.x, p.y, p.w, p.h);
  cairo_clip(cr);
  cairo_set_line_width(cr, 2.0);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER);
  for (const LineSeries& s : spec.series) {
    set_colour(cr, s.colour);
    bool open = false;
    for (std::size_t k = 0; k < s.x.size(); ++k) {
      const double x = s.x[k], y = s.y[k];
      if (!std::isfinite(x) || !std::isfinite(y)) {
        if (open) cairo_stroke(cr);
        open = false;
        continue;
      }
      if (open) {
        cairo_line_to(cr, px(x), py(y));
      } else {
        cairo_move_to(cr, px(x), py(y));
        open = true;
      }
    }
    if (open) cairo_stroke(cr);
  }
  cairo_restore(cr);

  // The frame just outside the box, ticks outward, labels beyond them.
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_rectangle(cr, p.x - 0.5, p.y - 0.5, p.w + 1, p.h + 1);
  cairo_stroke(cr);
  for (const Tick& t : axis_ticks(spec.x, std::max(2, p.w / 110))) {
    const double x = std::round(p.x + axis_fraction(spec.x, t.value) * p.w) + 0.5;
    line(cr, x, p.y + p.h + 0.5, x, p.y + p.h + 0.5 + kTickLength);
    text(cr, t.label, x, p.y + p.h + 16, Align::centre);
  }
  for (const Tick& t : axis_ticks(spec.y, std::max(2, p.h / 70))) {
    const double y = std::round(p.y + p.h - axis_fraction(spec.y, t.value) * p.h) - 0.5;
    line(cr, p.x - 0.5, y, p.x - 0.5 - kTickLength, y);
    text(cr, t.label, p.x - 9, y, Align::right);
  }
  text(cr, spec.x.label, p.x + p.w / 2.0, p.y + p.h + 40, Align::centre);
  text(cr, spec.y.label, 16, p.y + p.h / 2.0, Align::centre, kFont, -M_PI / 2);
  text(cr, spec.title, p.x, kTop / 2.0, Align::left, kTitleFont);
  text(cr, spec.time, W - 10, kTop / 2.0, Align::right);
  text(cr, spec.note, p.x + p.w / 2.0, p.y + p.h / 2.0, Align::centre);

  // The legend: a short line of each labelled series' colour and its label, at the top right.
  double widest = 0;
  int rows = 0;
  cairo_set_font_size(cr, kFont);
  for (const LineSeries& s : spec.series) {
    if (s.label.empty()) continue;
    cairo_text_extents_t e;
    cairo_text_extents(cr, s.label.c_str(), &e);
    widest = std::max(widest, e.x_advance);
    ++rows;
  }
  if (rows > 0) {
    const double x0 = std::round(p.x + p.w - widest - 44), y0 = p.y + 16;
    int r = 0;
    for (const LineSeries& s : spec.series) {
      if (s.label.empty()) continue;
      const double y = y0 + 18 * r++;
      set_colour(cr, s.colour);
      cairo_set_line_width(cr, 2.0);
      line(cr, x0, y, x0 + 22, y);
      cairo_set_source_rgb(cr, 0, 0, 0);
      text(cr, s.label, x0 + 30, y, Align::left);
    }
  }

  cairo_surface_flush(surface.get());
  if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
    throw_runtime_error(std::string("render: cairo: ") + cairo_status_to_string(cairo_status(cr)));
  f.image = image_of_surface(surface.get());
  return f;
}

}  // namespace nbody::render
