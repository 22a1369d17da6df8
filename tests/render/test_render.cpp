// The renderer: colour maps against matplotlib's published values, scales, the NGP splat (one
// body on its pixel, the projected mass equal to the mass inside the view), PNG files through
// libpng's reader (and a full disk: one error, nothing left), and a figure's axes and colour bar
// found in its pixels.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "io/atomic_file.hpp"
#include "nbody/error.hpp"
#include "render/colormap.hpp"
#include "render/figure.hpp"
#include "render/image.hpp"
#include "render/splat.hpp"

namespace nbody::render {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& what) {
  const fs::path d = fs::temp_directory_path() / ("nbody_render_" + what + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// The kind of error `f` throws; none when it throws nothing.
template <class F>
std::optional<ErrorKind> error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind();
  }
  return std::nullopt;
}

// matplotlib's _cm_listed.py (viridis, magma: CC0) and Moreland's coolwarm ends.
TEST(RenderColormap, EndpointsAreThePublishedValues) {
  const Colormap& v = colormap("viridis");
  EXPECT_DOUBLE_EQ(v.rgb[0][0], 0.267004);
  EXPECT_DOUBLE_EQ(v.rgb[0][1], 0.004874);
  EXPECT_DOUBLE_EQ(v.rgb[0][2], 0.329415);
  EXPECT_DOUBLE_EQ(v.rgb[255][0], 0.993248);
  EXPECT_DOUBLE_EQ(v.rgb[255][1], 0.906157);
  EXPECT_DOUBLE_EQ(v.rgb[255][2], 0.143936);
  EXPECT_EQ(colormap_entry(v, 0), (Rgb{68, 1, 84}));
  EXPECT_EQ(colormap_entry(v, 255), (Rgb{253, 231, 37}));
  const Colormap& m = colormap("magma");
  EXPECT_DOUBLE_EQ(m.rgb[0][0], 0.001462);
  EXPECT_DOUBLE_EQ(m.rgb[0][2], 0.013866);
  EXPECT_DOUBLE_EQ(m.rgb[255][0], 0.987053);
  EXPECT_DOUBLE_EQ(m.rgb[255][1], 0.991438);
  EXPECT_DOUBLE_EQ(m.rgb[255][2], 0.749504);
  EXPECT_EQ(colormap_entry(m, 0), (Rgb{0, 0, 4}));
  EXPECT_EQ(colormap_entry(m, 255), (Rgb{252, 253, 191}));
  const Colormap& c = colormap("coolwarm");
  EXPECT_STREQ(c.kind, "diverging");
  EXPECT_NEAR(c.rgb[0][0], 0.2298057, 1e-7);
  EXPECT_NEAR(c.rgb[0][1], 0.298717966, 1e-7);
  EXPECT_NEAR(c.rgb[0][2], 0.753683153, 1e-7);
  EXPECT_NEAR(c.rgb[255][0], 0.705673158, 1e-7);
  EXPECT_NEAR(c.rgb[255][1], 0.01555616, 1e-7);
  EXPECT_NEAR(c.rgb[255][2], 0.150232812, 1e-7);
  // Its middle is a light grey (zero shows as neither blue nor red).
  const Rgb mid = colormap_colour(c, 0.5);
  EXPECT_GT(mid[0], 200);
  EXPECT_GT(mid[1], 200);
  EXPECT_GT(mid[2], 200);
  EXPECT_EQ(colormap_colour(v, 0.0), colormap_entry(v, 0));
  EXPECT_EQ(colormap_colour(v, 1.0), colormap_entry(v, 255));
  EXPECT_EQ(colormap_colour(v, 7.0), colormap_entry(v, 255));
  EXPECT_EQ(colormap_colour(v, std::nan("")), colormap_entry(v, 0));
  EXPECT_EQ(error_of([&] { (void)colormap("jet"); }), ErrorKind::input);
}

TEST(RenderColormap, ScalesMapValuesToTheUnitInterval) {
  EXPECT_DOUBLE_EQ(Scale::linear(2, 6).normalize(3), 0.25);
  EXPECT_DOUBLE_EQ(Scale::linear(2, 6).normalize(100), 1.0);
  EXPECT_DOUBLE_EQ(Scale::log(1e-2, 1e2).normalize(1), 0.5);
  EXPECT_DOUBLE_EQ(Scale::log(1e-2, 1e2).normalize(10), 0.75);
  EXPECT_DOUBLE_EQ(Scale::log(1e-2, 1e2).normalize(0), 0.0);
  EXPECT_DOUBLE_EQ(Scale::symmetric(4).normalize(0), 0.5);
  EXPECT_DOUBLE_EQ(Scale::symmetric(4).normalize(-2), 0.25);
  EXPECT_DOUBLE_EQ(Scale::symmetric(4).normalize(4), 1.0);
  EXPECT_DOUBLE_EQ(Scale::symmetric(0).normalize(3), 0.5);
  EXPECT_NEAR(Scale::log(1e-2, 1e2).value_at(0.75), 10, 1e-12);
}

TEST(RenderSplat, OneBodyLandsOnTheExpectedPixel) {
  // A 10 x 8 image 10 wide around (0, 0, 0), looking down z: pixel size 1, x in [-5, 5),
  // y in [-4, 4). The body at (2.5, -3.5) is in column 7 and row 0 from the bottom.
  const std::vector<double> x{2.5}, y{-3.5}, z{7.0}, m{3.0};
  Camera cam;
  cam.centre = Vec3{0, 0, 0};
  cam.width = 10;
  const SurfaceMap s = splat_surface_density<double>(x, y, z, m, cam, 10, 8);
  ASSERT_EQ(s.value.size(), 80u);
  for (int j = 0; j < 8; ++j)
    for (int i = 0; i < 10; ++i)
      EXPECT_EQ(s.value[std::size_t(j * 10 + i)], (i == 7 && j == 0) ? 3.0 : 0.0) << i << " " << j;
  EXPECT_EQ(s.mass_inside, 3.0);
  EXPECT_EQ(s.bodies_inside, 1u);
  // Looking along -x with z up, right is +y: the body (y = -3.5) is 3.5 left of the centre, and
  // z = 7 is outside a view 8 high, then inside one 16 high.
  cam.direction = Vec3{-1, 0, 0};
  cam.up = Vec3{0, 0, 1};
  EXPECT_EQ(splat_surface_density<double>(x, y, z, m, cam, 10, 8).bodies_inside, 0u);
  cam.width = 20;  // pixel size 2, height 16: z = 7 in row (7 + 8) / 2 = 7
  const SurfaceMap t = splat_surface_density<double>(x, y, z, m, cam, 10, 8);
  ASSERT_EQ(t.bodies_inside, 1u);
  EXPECT_EQ(t.value[std::size_t(7 * 10 + 3)], 3.0 / 4.0) << "mass per area 2 x 2; column (-3.5 + 10) / 2 = 3";
  // Bad cameras: an input error each.
  cam.up = Vec3{-2, 0, 0};
  EXPECT_EQ(error_of([&] { (void)splat_surface_density<double>(x, y, z, m, cam, 10, 8); }), ErrorKind::input);
  cam.up = Vec3{0, 0, 1};
  cam.width = 0;
  EXPECT_EQ(error_of([&] { (void)splat_surface_density<double>(x, y, z, m, cam, 10, 8); }), ErrorKind::input);
}

TEST(RenderSplat, ProjectedMassEqualsTheMassInsideTheView) {
  // Bodies on a spiral, some outside the view; the centre of mass by default.
  std::vector<float> x, y, z, m;
  double inside = 0;
  for (int k = 0; k < 5000; ++k) {
    const double r = 0.001 * k, a = 0.37 * k;
    x.push_back(float(r * std::cos(a)));
    y.push_back(float(r * std::sin(a)));
    z.push_back(float(0.1 * std::sin(0.1 * k)));
    m.push_back(float(1.0 + (k % 7)));
  }
  Camera cam;
  cam.width = 6.0;
  cam.direction = Vec3{0.3, -0.2, -1.0};
  cam.up = Vec3{0, 1, 0};
  const SurfaceMap s = splat_surface_density<float>(x, y, z, m, cam, 64, 48);
  // The mass inside, counted here from the same projection.
  double cm[3] = {0, 0, 0}, mt = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    mt += m[k];
    cm[0] += double(m[k]) * x[k], cm[1] += double(m[k]) * y[k], cm[2] += double(m[k]) * z[k];
  }
  EXPECT_NEAR(s.centre[0], cm[0] / mt, 1e-12);
  const CameraBasis b = camera_basis(cam);
  std::size_t n = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    const double d[3] = {x[k] - s.centre[0], y[k] - s.centre[1], z[k] - s.centre[2]};
    const double u = d[0] * b.right[0] + d[1] * b.right[1] + d[2] * b.right[2];
    const double v = d[0] * b.up[0] + d[1] * b.up[1] + d[2] * b.up[2];
    if (u >= -3.0 && u < 3.0 && v >= -2.25 && v < 2.25) inside += m[k], ++n;
  }
  ASSERT_GT(n, 100u);
  ASSERT_LT(n, x.size()) << "some bodies are outside the view";
  EXPECT_EQ(s.bodies_inside, n);
  double projected = 0;
  for (double v : s.value) projected += v * s.pixel_size * s.pixel_size;
  EXPECT_NEAR(projected, inside, 1e-12 * inside);
  EXPECT_DOUBLE_EQ(s.mass_inside, inside);
}

TEST(RenderPng, RoundTripThroughLibpngsReader) {
  const fs::path d = scratch("png");
  Image rgb(7, 5);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 7; ++x) rgb.set(x, y, {std::uint8_t(30 * x), std::uint8_t(50 * y), std::uint8_t(x * y)});
  write_png(d / "a.png", rgb, {{"Min", "-1.5"}, {"Max", "1.5"}});
  const PngFile r = read_png(d / "a.png");
  EXPECT_EQ(r.image.width, 7);
  EXPECT_EQ(r.image.height, 5);
  EXPECT_EQ(r.image.channels, 3);
  EXPECT_EQ(r.image.pixels, rgb.pixels);
  EXPECT_EQ(r.text_value("Min"), "-1.5");
  EXPECT_EQ(r.text_value("Max"), "1.5");
  Image rgba(300, 200, 4);
  for (std::size_t k = 0; k < rgba.pixels.size(); ++k) rgba.pixels[k] = std::uint8_t(k * 7 + k / 1000);
  write_png(d / "b.png", rgba);
  const PngFile q = read_png(d / "b.png");
  EXPECT_EQ(q.image.channels, 4);
  EXPECT_EQ(q.image.pixels, rgba.pixels);
  // The same bytes again, and no time chunk.
  const std::string bytes = encode_png(rgb, {{"Min", "-1.5"}});
  EXPECT_EQ(bytes, encode_png(rgb, {{"Min", "-1.5"}}));
  EXPECT_EQ(bytes.find("tIME"), std::string::npos);
  // Bad input.
  EXPECT_EQ(error_of([&] { (void)encode_png(Image(0, 3)); }), ErrorKind::input);
  EXPECT_EQ(error_of([&] { (void)encode_png(rgb, {{"", "x"}}); }), ErrorKind::input);
  std::ofstream(d / "not.png") << "hello";
  EXPECT_EQ(error_of([&] { (void)read_png(d / "not.png"); }), ErrorKind::runtime);
  for (const auto& e : fs::directory_iterator(d)) EXPECT_FALSE(is_temporary_file(e.path())) << e.path();
  fs::remove_all(d);
}

// A disk that fills up (a file size limit, as a full disk answers: EFBIG) while a PNG is written:
// one error naming the file, no file and no temporary left.
TEST(RenderPng, AFullDiskGivesOneErrorAndLeavesNothing) {
  const fs::path d = scratch("full");
  Image img(400, 300);
  for (std::size_t k = 0; k < img.pixels.size(); ++k) img.pixels[k] = std::uint8_t((k * 2654435761u) >> 24);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit lim{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    try {
      write_png(d / "f.png", img);
    } catch (const Error& e) {
      const std::string what = e.what();
      ::_exit(e.kind() == ErrorKind::runtime && what.find("f.png") != std::string::npos ? 3 : 4);
    }
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3) << "a runtime error naming the file";
  EXPECT_TRUE(fs::is_empty(d)) << "nothing left behind";
  fs::remove_all(d);
}

bool is_background(Rgb c) { return c == Rgb{255, 255, 255}; }

TEST(RenderFigure, DrawsTheMapTheColourBarAndTheAxes) {
  // A ramp along x: 40 x 20 samples from 0 to 1, on a linear magma scale.
  const int nx = 40, ny = 20;
  std::vector<double> v(std::size_t(nx * ny));
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) v[std::size_t(j * nx + i)] = (i + 0.5) / nx;
  v[std::size_t(3 * nx + 5)] = std::nan("");
  FigureSpec spec;
  spec.title = "ramp";
  spec.time = "t = 1.00";
  spec.x = {0, 4, "x (\u03bb)"};
  spec.y = {-1, 1, "y (\u03bb)"};
  spec.colorbar_label = "value";
  spec.colormap = ColormapId::magma;
  spec.scale = Scale::linear(0, 1);
  spec.empty_colour = Rgb{255, 255, 255};
  spec.scale_bar = 1;
  spec.scale_bar_label = "1 \u03bb";
  const Figure f = draw_figure({nx, ny, v}, spec);
  const Image& im = f.image;
  ASSERT_EQ(f.pixels_per_sample, 16);
  EXPECT_EQ(f.plot.w, nx * 16);
  EXPECT_EQ(f.plot.h, ny * 16);
  EXPECT_GT(f.colorbar.x, f.plot.x + f.plot.w) << "the bar right of the map";
  EXPECT_LE(f.colorbar.x + f.colorbar.w + 60, im.width) << "room for the bar's labels";
  const Colormap& cm = colormap(ColormapId::magma);
  // The map: every sample's block has its colour (away from the scale bar in the lower left).
  for (int j = 4; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const Rgb want = (j == 3 && i == 5) ? Rgb{255, 255, 255} : colormap_colour(cm, (i + 0.5) / nx);
      const int px = f.plot.x + i * 16 + 8, py = f.plot.y + (ny - 1 - j) * 16 + 8;
      ASSERT_EQ(im.rgb(px, py), want) << i << " " << j;
    }
  EXPECT_EQ(im.rgb(f.plot.x + 5 * 16 + 8, f.plot.y + (ny - 4) * 16 + 8), (Rgb{255, 255, 255})) << "the empty sample";
  // The colour bar: not background anywhere, its colours follow the map from bottom to top.
  const Box& b = f.colorbar;
  for (int r = 0; r < b.h; ++r)
    for (int x = b.x; x < b.x + b.w; ++x) {
      ASSERT_FALSE(is_background(im.rgb(x, b.y + r)));
      ASSERT_EQ(im.rgb(x, b.y + r), colormap_colour(cm, 1.0 - (r + 0.5) / b.h)) << r;
    }
  EXPECT_EQ(im.rgb(b.x + 3, b.y + b.h - 1), colormap_entry(cm, 0));
  EXPECT_EQ(im.rgb(b.x + 3, b.y), colormap_entry(cm, 255));
  // Frames around both: black lines just outside.
  for (int x = f.plot.x; x < f.plot.x + f.plot.w; ++x) {
    ASSERT_EQ(im.rgb(x, f.plot.y - 1), (Rgb{0, 0, 0}));
    ASSERT_EQ(im.rgb(x, f.plot.y + f.plot.h), (Rgb{0, 0, 0}));
  }
  for (int y = b.y; y < b.y + b.h; ++y) ASSERT_EQ(im.rgb(b.x + b.w, y), (Rgb{0, 0, 0}));
  // Ticks below the x axis at 0, 1, 2, 3, 4 (every 160 pixels) and nothing between them.
  const int below = f.plot.y + f.plot.h + 3;
  int ticks = 0;
  for (int x = f.plot.x; x < f.plot.x + f.plot.w; ++x) ticks += !is_background(im.rgb(x, below));
  EXPECT_GE(ticks, 4);
  EXPECT_LE(ticks, 6);
  EXPECT_FALSE(is_background(im.rgb(f.plot.x + 160, below)));
  EXPECT_TRUE(is_background(im.rgb(f.plot.x + 80, below)));
  // Tick labels under the axis, the axis labels, the title and the bar's labels: ink in each region.
  auto ink = [&](int x0, int y0, int x1, int y1) {
    int n = 0;
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x) n += !is_background(im.rgb(x, y));
    return n;
  };
  EXPECT_GT(ink(f.plot.x, f.plot.y + f.plot.h + 8, f.plot.x + f.plot.w, f.plot.y + f.plot.h + 26), 20) << "x tick labels";
  EXPECT_GT(ink(f.plot.x, f.plot.y + f.plot.h + 30, f.plot.x + f.plot.w, im.height), 20) << "x label";
  EXPECT_GT(ink(0, f.plot.y, 30, f.plot.y + f.plot.h), 20) << "y label";
  EXPECT_GT(ink(30, f.plot.y, f.plot.x - 2, f.plot.y + f.plot.h), 20) << "y tick labels";
  EXPECT_GT(ink(b.x + b.w + 8, b.y, im.width - 30, b.y + b.h), 20) << "colour bar tick labels";
  EXPECT_GT(ink(im.width - 30, b.y, im.width, b.y + b.h), 20) << "colour bar label";
  EXPECT_GT(ink(0, 0, im.width / 2, f.plot.y - 4), 20) << "title";
  EXPECT_GT(ink(im.width / 2, 0, im.width, f.plot.y - 4), 20) << "time";
  // The scale bar: 1 of 4 units = 160 pixels of white in the lower left, 12 above the bottom.
  const int sy = f.plot.y + f.plot.h - 12;
  EXPECT_EQ(im.rgb(f.plot.x + 10 + 80, sy), (Rgb{255, 255, 255}));
  EXPECT_EQ(im.rgb(f.plot.x + 10 + 200, sy), colormap_colour(cm, (13 + 0.5) / nx));
  // The same figure again: the same pixels.
  EXPECT_EQ(draw_figure({nx, ny, v}, spec).image.pixels, im.pixels);
}

TEST(RenderLinePlot, DrawsTheLinesInTheBoxWithAxesLabelsAndALegend) {
  // x from 0 to 10; y on a log axis from 1 to 1000. A step at y = 10 from x = 0 to 5 and at
  // y = 100 from 5 to 10 (blue); a line at y = 0 (at the axis' floor on a log scale) broken by a
  // NaN (orange).
  LinePlotSpec spec;
  spec.title = "spectrum";
  spec.time = "t = 2.00";
  spec.x = {0, 10, false, "E (MeV)"};
  spec.y = {1, 1000, true, "dN/dE"};
  const Rgb blue{31, 119, 180}, orange{255, 127, 14};
  spec.series.push_back({{0, 5, 5, 10}, {10, 10, 100, 100}, blue, "a"});
  spec.series.push_back({{0, 2, std::nan(""), 8, 10}, {0, 0, 0, 0, 0}, orange, "b"});
  const LinePlot f = draw_line_plot(spec);
  const Image& im = f.image;
  const Box& p = f.plot;
  EXPECT_EQ(p.w, 560);
  EXPECT_EQ(p.h, 360);
  EXPECT_GE(p.x, 60) << "room for the y axis";
  EXPECT_LE(p.y + p.h + 50, im.height) << "room for the x axis";
  // y = 10 lies a third of the way up, y = 100 two thirds; x = 5 half way.
  const int row10 = p.y + p.h - p.h / 3, row100 = p.y + p.h - 2 * p.h / 3;
  for (int x = p.x + 10; x < p.x + p.w / 2 - 5; ++x) {
    ASSERT_TRUE(im.rgb(x, row10) == blue || im.rgb(x, row10 - 1) == blue) << x;
    ASSERT_NE(im.rgb(x, row100), blue) << x;
  }
  for (int x = p.x + p.w / 2 + 5; x < p.x + p.w - 160; ++x) {  // (the legend at the top right)
    ASSERT_TRUE(im.rgb(x, row100) == blue || im.rgb(x, row100 - 1) == blue) << x;
    ASSERT_NE(im.rgb(x, row10), blue) << x;
  }
  // The rise at x = 5.
  for (int y = row100 + 3; y < row10 - 3; ++y) {
    const int x = p.x + p.w / 2;
    ASSERT_TRUE(im.rgb(x, y) == blue || im.rgb(x - 1, y) == blue) << y;
  }
  // The orange line along the floor, inside the box, with a gap between x = 2 and 8.
  const int floor_row = p.y + p.h - 1;
  EXPECT_EQ(im.rgb(p.x + p.w / 10, floor_row), orange);
  EXPECT_EQ(im.rgb(p.x + 9 * p.w / 10, floor_row), orange);
  EXPECT_NE(im.rgb(p.x + p.w / 2, floor_row), orange) << "a NaN breaks the line";
  // Nothing outside the box but the frame, ticks, text and legend: no series colour outside it.
  for (int y = 0; y < im.height; ++y)
    for (int x = 0; x < im.width; ++x)
      if (x < p.x || x >= p.x + p.w || y < p.y || y >= p.y + p.h) ASSERT_NE(im.rgb(x, y), blue) << x << " " << y;
  // The frame just outside the box.
  for (int x = p.x; x < p.x + p.w; ++x) {
    ASSERT_EQ(im.rgb(x, p.y - 1), (Rgb{0, 0, 0}));
    ASSERT_EQ(im.rgb(x, p.y + p.h), (Rgb{0, 0, 0}));
  }
  auto ink = [&](int x0, int y0, int x1, int y1) {
    int n = 0;
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x) n += !is_background(im.rgb(x, y));
    return n;
  };
  // Ticks: 0, 2, 4, ..., 10 below (every 112 pixels), 1, 10, 100, 1000 left (every 120).
  int xticks = 0, yticks = 0;
  for (int x = p.x; x < p.x + p.w; ++x) xticks += !is_background(im.rgb(x, p.y + p.h + 3));
  for (int y = p.y; y < p.y + p.h; ++y) yticks += !is_background(im.rgb(p.x - 4, y));
  EXPECT_GE(xticks, 5);
  EXPECT_LE(xticks, 7);
  EXPECT_GE(yticks, 3);
  EXPECT_LE(yticks, 5);
  EXPECT_FALSE(is_background(im.rgb(p.x - 4, row10)) && is_background(im.rgb(p.x - 4, row10 - 1))) << "a tick at 10";
  EXPECT_GT(ink(p.x, p.y + p.h + 8, p.x + p.w, p.y + p.h + 26), 20) << "x tick labels";
  EXPECT_GT(ink(p.x, p.y + p.h + 30, p.x + p.w, im.height), 20) << "x label";
  EXPECT_GT(ink(0, p.y, 30, p.y + p.h), 20) << "y label";
  EXPECT_GT(ink(30, p.y, p.x - 8, p.y + p.h), 20) << "y tick labels";
  EXPECT_GT(ink(0, 0, im.width / 2, p.y - 4), 20) << "title";
  EXPECT_GT(ink(im.width / 2, 0, im.width, p.y - 4), 20) << "time";
  // The legend: a sample of each colour and its label in the box's top right corner.
  int legend_blue = 0, legend_orange = 0;
  for (int y = p.y + 2; y < p.y + 60; ++y)
    for (int x = p.x + p.w - 150; x < p.x + p.w - 2; ++x) {
      legend_blue += im.rgb(x, y) == blue;
      legend_orange += im.rgb(x, y) == orange;
    }
  EXPECT_GE(legend_blue, 20);
  EXPECT_GE(legend_orange, 20);
  // A note in an empty plot; the same input, the same pixels.
  LinePlotSpec empty = spec;
  empty.series.clear();
  empty.note = "no data";
  const LinePlot e = draw_line_plot(empty);
  EXPECT_GT([&] {
    int n = 0;
    for (int y = p.y + p.h / 2 - 10; y < p.y + p.h / 2 + 10; ++y)
      for (int x = p.x + p.w / 2 - 60; x < p.x + p.w / 2 + 60; ++x) n += !is_background(e.image.rgb(x, y));
    return n;
  }(), 20) << "the note";
  EXPECT_EQ(draw_line_plot(spec).image.pixels, im.pixels);
  // Bad ranges and series: input errors.
  LinePlotSpec bad = spec;
  bad.y.lo = 0;
  EXPECT_THROW((void)draw_line_plot(bad), Error);
  bad = spec;
  bad.x.hi = bad.x.lo;
  EXPECT_THROW((void)draw_line_plot(bad), Error);
  bad = spec;
  bad.series[0].y.pop_back();
  EXPECT_THROW((void)draw_line_plot(bad), Error);
}

}  // namespace
}  // namespace nbody::render
