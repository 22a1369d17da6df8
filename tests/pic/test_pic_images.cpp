// The PIC images through the renderer: field maps at known pixels (the colour map's colours in
// the map's box), the phase-space histogram and its figure, and a run writing them (axes and a
// colour bar in every image, the same bytes twice, a bad key refused). Files are read back with
// libpng (render::read_png).
#include <gtest/gtest.h>

#include <unistd.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "pic/output/images.hpp"
#include "render/image.hpp"

namespace nbody::pic {
namespace {

namespace fs = std::filesystem;
using render::Rgb;

// The colour of map sample (i, j) (j from the bottom) in a figure.
Rgb sample_pixel(const render::Figure& f, int i, int j) {
  const int s = f.pixels_per_sample;
  return f.image.rgb(f.plot.x + i * s + s / 2, f.plot.y + f.plot.h - 1 - (j * s + s / 2));
}

Rgb coolwarm(double t) { return render::colormap_colour(render::colormap(render::ColormapId::coolwarm), t); }
Rgb viridis(double t) { return render::colormap_colour(render::colormap(render::ColormapId::viridis), t); }

TEST(PicImages, FieldMapShowsAKnownPatternAtKnownPixels) {
  GridGeometry g;
  g.nx = 64, g.ny = 16, g.dx = 1, g.dy = 1;
  int w, h;
  field_image_size(g, w, h);
  EXPECT_EQ(w, 64);
  EXPECT_EQ(h, 32);  // 16 from the aspect ratio, raised to 32
  // v = (i - 32) / 2 + 0.25 j: largest |v| = 19.25 at node (63, 15), -16 at (0, 0).
  std::vector<double> v(std::size_t(g.nx * g.ny));
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) v[std::size_t(j * g.nx + i)] = 0.5 * (i - 32) + 0.25 * j;
  double lo = 0, hi = 0;
  const render::Figure f = field_map(g, v, FieldMapKind::signed_field, {"Ey", "t = 0", "Ey"}, lo, hi);
  EXPECT_EQ(hi, 19.25);
  EXPECT_EQ(lo, -19.25);
  EXPECT_EQ(f.pixels_per_sample, 10);  // min(640 / 64, 480 / 32)
  EXPECT_EQ(f.plot.w, 640);
  EXPECT_EQ(f.plot.h, 320);
  const double t = 0.5 / 19.25;  // symmetric: 0.5 + 0.5 v / max
  // Top right: node (63, 15), the largest value: the map's red end.
  EXPECT_EQ(sample_pixel(f, 63, 31), coolwarm(1.0));
  // Bottom left: node (0, 0), v = -16.
  EXPECT_EQ(sample_pixel(f, 0, 0), coolwarm(0.5 - 16 * t));
  // Node (32, 0) is zero: the middle of the map; two samples per node along y.
  EXPECT_EQ(sample_pixel(f, 32, 0), coolwarm(0.5));
  EXPECT_EQ(sample_pixel(f, 32, 1), coolwarm(0.5));
  for (int py = 0; py < h; ++py)
    for (int px = 0; px < w; ++px) {
      int i, j;
      pixel_node(g, w, h, px, py, i, j);
      EXPECT_EQ(j, g.ny - 1 - py / 2);
      EXPECT_EQ(i, px);
      ASSERT_EQ(sample_pixel(f, px, h - 1 - py), coolwarm(0.5 + v[std::size_t(j * g.nx + i)] * t)) << px << " " << py;
    }
  // Density: viridis on a log scale from the smallest value above max / 1e4 to the max.
  std::vector<double> n(v.size(), 0.0);
  n[std::size_t(3 * g.nx + 10)] = 2.0;
  n[std::size_t(3 * g.nx + 11)] = 0.02;
  const render::Figure d = field_map(g, n, FieldMapKind::density, {"n", "", "n"}, lo, hi);
  EXPECT_EQ(hi, 2.0);
  EXPECT_EQ(lo, 0.02);
  EXPECT_EQ(sample_pixel(d, 10, 2 * 3), viridis(1.0));
  EXPECT_EQ(sample_pixel(d, 11, 2 * 3), viridis(0.0));
  EXPECT_EQ(sample_pixel(d, 12, 2 * 3), viridis(0.0)) << "zero: the low end";
  // |E|: linear from 0.
  const render::Figure m = field_map(g, n, FieldMapKind::magnitude, {"|E|", "", "|E|"}, lo, hi);
  EXPECT_EQ(lo, 0.0);
  EXPECT_EQ(sample_pixel(m, 11, 2 * 3), viridis(0.01));
}

TEST(PicImages, PhaseSpaceHistogramCountsEveryParticle) {
  GridGeometry g;
  g.nx = 40, g.ny = 4, g.dx = 0.5, g.dy = 0.5, g.x0 = -2;
  Species s;
  s.name = "e";
  // ux from -1 to 3 over 200 bins (0.02 each); x over 20 = 400 bins of 0.05.
  s.push_back(-2.0, 0, -1.0, 0, 0, 1);   // first x bin, first u bin
  s.push_back(17.99, 0, 3.0, 0, 0, 1);   // last x bin, last u bin (the maximum is clamped in)
  for (int k = 0; k < 10; ++k) s.push_back(5.01, 0, 1.005, 0, 0, 1);  // x bin 140, u bin 100
  s.push_back(5.01, 0, 1.005, 0, 0, 90);  // weight 90 in the same bin: 100 there
  const PhaseHistogram h = phase_histogram(s, g);
  EXPECT_EQ(h.nx_bins, 400);
  EXPECT_EQ(h.nu_bins, 200);
  EXPECT_EQ(h.u_lo, -1.0);
  EXPECT_EQ(h.u_hi, 3.0);
  double total = 0;
  for (double w : h.weight) total += w;
  EXPECT_EQ(total, 102.0);
  EXPECT_EQ(h.weight[0], 1.0);
  EXPECT_EQ(h.weight[std::size_t(199 * 400 + 399)], 1.0);
  EXPECT_EQ(h.weight[std::size_t(100 * 400 + 140)], 100.0);
  const render::Figure f = phase_image(h, {"phase", "", "weight"});
  EXPECT_EQ(f.pixels_per_sample, 1);
  EXPECT_EQ(f.plot.w, 400);
  EXPECT_EQ(f.plot.h, 200);
  // u up: the largest bin is the top of viridis, one at 1/100 of it two decades down (t = 0.6 of
  // 5 decades), an empty bin white.
  EXPECT_EQ(sample_pixel(f, 140, 100), viridis(1.0));
  EXPECT_EQ(sample_pixel(f, 0, 0), viridis(0.6));
  EXPECT_EQ(sample_pixel(f, 399, 199), viridis(0.6));
  EXPECT_EQ(sample_pixel(f, 1, 0), (Rgb{255, 255, 255}));
}

TEST(PicImages, SpectrumImageDrawsDnDeOnALogAxis) {
  // Four bins of 1 MeV: weights 0, 4, 0, 1 -> dN/dE 0, 4, 0, 1 per MeV; y from 1 to 10.
  EnergySpectrum s;
  s.top_mev = 4;
  s.weight = {0, 4, 0, 1};
  double lo = 0, hi = 0;
  const render::LinePlot f = spectrum_image(s, {"spectrum", "t = 1", "dN/dE"}, lo, hi);
  EXPECT_EQ(lo, 1.0);
  EXPECT_EQ(hi, 10.0);
  const render::Box& p = f.plot;
  const Rgb line{31, 119, 180};
  auto line_near = [&](int x, int y) { return f.image.rgb(x, y) == line || f.image.rgb(x, y - 1) == line; };
  // Bin 1 (x from 1/4 to 1/2 of the box) at log10(4) of the height; bins 2 and 0 on the floor;
  // bin 3 at 1 (the floor too: the low end of the axis).
  const int row4 = int(std::lround(p.y + p.h - std::log10(4.0) * p.h));
  for (int x = p.x + p.w / 4 + 3; x < p.x + p.w / 2 - 3; ++x) ASSERT_TRUE(line_near(x, row4)) << x;
  for (int x = p.x + 3; x < p.x + p.w / 4 - 3; ++x) ASSERT_EQ(f.image.rgb(x, p.y + p.h - 1), line) << x;
  for (int x = p.x + p.w / 2 + 3; x < p.x + p.w - 3; ++x) ASSERT_EQ(f.image.rgb(x, p.y + p.h - 1), line) << x;
  for (int x = p.x + p.w / 2 + 3; x < p.x + p.w - 3; ++x) ASSERT_FALSE(line_near(x, row4)) << x;
  // Nobody moving: axes and a note, no line.
  const render::LinePlot still = spectrum_image(EnergySpectrum{}, {"spectrum", "", "dN/dE"}, lo, hi);
  EXPECT_EQ(lo, 0.1);
  EXPECT_EQ(hi, 1.0);
  int lines = 0, note = 0;
  for (int y = p.y; y < p.y + p.h; ++y)
    for (int x = p.x; x < p.x + p.w; ++x) {
      lines += still.image.rgb(x, y) == line;
      note += still.image.rgb(x, y) != Rgb{255, 255, 255};
    }
  EXPECT_EQ(lines, 0);
  EXPECT_GT(note, 50);
}

const char* kRun = R"(
[grid]
nx = 48
ny = 8
dx = 0.02
dy = 0.04
[time]
steps = 6
courant = 0.9
[solver]
shape = "tsc"
[output]
images_every = 3
[[species]]
name = "electron"
ppc = 4
density = 2.0
temperature_keV = 1.0
drift_ux = 0.05
[[species]]
name = "proton"
ppc = 2
regular = true
density = 2.0
)";

int shell(const std::string& command, const fs::path& err) {
  const int s = std::system((command + " >/dev/null 2>" + err.string()).c_str());
  return WIFEXITED(s) ? WEXITSTATUS(s) : -1;
}

// A box "x y w h" from a text chunk.
render::Box box_of(const std::string& text) {
  render::Box b;
  std::istringstream(text) >> b.x >> b.y >> b.w >> b.h;
  return b;
}

std::string bytes_of(const fs::path& f) {
  std::ifstream in(f, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool ink(Rgb c) { return c != Rgb{255, 255, 255}; }

TEST(PicImages, ARunWritesFiguresWithAxesAndAColourBarTheSameBytesTwice) {
  const fs::path d = fs::temp_directory_path() / ("nbody_pic_png_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  const fs::path cfg = d / "pic.toml";
  std::ofstream(cfg) << kRun;
  const std::string exe = NBODY_EXE_PATH;
  ASSERT_EQ(shell(exe + " pic run --config " + cfg.string() + " --out " + (d / "o").string(), d / "e"), 0);
  ASSERT_EQ(shell(exe + " pic run --config " + cfg.string() + " --out " + (d / "o2").string(), d / "e"), 0);
  for (const char* step : {"00000000", "00000003", "00000006"})
    for (const std::string name : {"Ey", "Ez", "Bz", "E_abs", "density_electron", "density_proton", "phase_electron",
                                   "phase_proton"}) {
      const std::string file = name + "_" + step + ".png";
      const fs::path f = d / "o" / "images" / file;
      ASSERT_TRUE(fs::exists(f)) << f;
      EXPECT_EQ(bytes_of(f), bytes_of(d / "o2" / "images" / file)) << "the same bytes: " << file;
      const render::PngFile png = render::read_png(f);
      const render::Image& im = png.image;
      EXPECT_EQ(png.text_value("Step"), std::to_string(std::stoi(step)));
      const render::Box p = box_of(png.text_value("Plot_box")), b = box_of(png.text_value("Colorbar_box"));
      if (name.rfind("phase", 0) == 0) {
        EXPECT_EQ(p.w, 400);
        EXPECT_EQ(p.h, 200);
      } else {
        EXPECT_EQ(p.w, 48 * 13);  // 48 x 32 samples, 13 pixels each
        EXPECT_EQ(p.h, 32 * 13);
      }
      ASSERT_GT(p.x, 40) << "room for the y axis";
      ASSERT_LT(p.y + p.h + 40, im.height) << "room for the x axis";
      ASSERT_GT(b.x, p.x + p.w);
      ASSERT_LT(b.x + b.w + 40, im.width) << "room for the colour bar's labels";
      // The frame and ticks: black below the map, tick marks under the axis.
      for (int x = p.x; x < p.x + p.w; ++x) ASSERT_EQ(im.rgb(x, p.y + p.h), (Rgb{0, 0, 0})) << file;
      int ticks = 0, labels = 0, ylabels = 0, barlabels = 0;
      for (int x = p.x; x < p.x + p.w; ++x) ticks += ink(im.rgb(x, p.y + p.h + 3));
      for (int y = p.y + p.h + 8; y < im.height; ++y)
        for (int x = p.x; x < p.x + p.w; ++x) labels += ink(im.rgb(x, y));
      for (int y = p.y; y < p.y + p.h; ++y) {
        for (int x = 0; x < p.x - 2; ++x) ylabels += ink(im.rgb(x, y));
        for (int x = b.x + b.w + 8; x < im.width; ++x) barlabels += ink(im.rgb(x, y));
      }
      EXPECT_GE(ticks, 2) << file;
      EXPECT_GT(labels, 40) << file;
      EXPECT_GT(ylabels, 40) << file;
      EXPECT_GT(barlabels, 40) << file;
      // The colour bar: its map from the low end at the bottom to the high end at the top.
      const auto& cm = render::colormap(png.text_value("Colormap").rfind("coolwarm", 0) == 0 ? render::ColormapId::coolwarm
                                                                                               : render::ColormapId::viridis);
      for (int r = 0; r < b.h; ++r)
        ASSERT_EQ(im.rgb(b.x + b.w / 2, b.y + r), render::colormap_colour(cm, 1.0 - (r + 0.5) / b.h)) << file << " " << r;
      EXPECT_EQ(im.rgb(b.x + 1, b.y + b.h - 1), render::colormap_entry(cm, 0));
      EXPECT_EQ(im.rgb(b.x + 1, b.y), render::colormap_entry(cm, 255));
    }
  // The energy spectra: line plots with ticks, labels and tEXt chunks, the same bytes twice; the
  // warm electrons' line drawn in the box, the protons (loaded cold) with a note at step 0.
  for (const char* step : {"00000000", "00000003", "00000006"})
    for (const std::string name : {"spectrum_electron", "spectrum_proton"}) {
      const std::string file = name + "_" + step + ".png";
      const fs::path f = d / "o" / "images" / file;
      ASSERT_TRUE(fs::exists(f)) << f;
      EXPECT_EQ(bytes_of(f), bytes_of(d / "o2" / "images" / file)) << "the same bytes: " << file;
      const render::PngFile png = render::read_png(f);
      const render::Image& im = png.image;
      EXPECT_EQ(png.text_value("Step"), std::to_string(std::stoi(step)));
      EXPECT_EQ(png.text_value("Scale"), "log10 (dN/dE)");
      EXPECT_NE(png.text_value("Unit").find("MeV"), std::string::npos);
      EXPECT_EQ(png.text_value("Bins"), "200");
      EXPECT_LT(std::stod(png.text_value("Min")), std::stod(png.text_value("Max")));
      const render::Box p = box_of(png.text_value("Plot_box"));
      EXPECT_EQ(p.w, 560);
      EXPECT_EQ(p.h, 360);
      for (int x = p.x; x < p.x + p.w; ++x) ASSERT_EQ(im.rgb(x, p.y + p.h), (Rgb{0, 0, 0})) << file;
      int ticks = 0, labels = 0, ylabels = 0, line = 0, title = 0;
      for (int x = p.x; x < p.x + p.w; ++x) ticks += ink(im.rgb(x, p.y + p.h + 3));
      for (int y = p.y + p.h + 8; y < im.height; ++y)
        for (int x = p.x; x < p.x + p.w; ++x) labels += ink(im.rgb(x, y));
      for (int y = p.y; y < p.y + p.h; ++y) {
        for (int x = 0; x < p.x - 8; ++x) ylabels += ink(im.rgb(x, y));
        for (int x = p.x; x < p.x + p.w; ++x) line += im.rgb(x, y) == Rgb{31, 119, 180};
      }
      for (int y = 0; y < p.y - 2; ++y)
        for (int x = 0; x < im.width; ++x) title += ink(im.rgb(x, y));
      EXPECT_GE(ticks, 2) << file;
      EXPECT_GT(labels, 40) << file;
      EXPECT_GT(ylabels, 40) << file;
      EXPECT_GT(title, 40) << file;
      const std::string extent = png.text_value("Extent");
      const double top_mev = std::stod(extent.substr(extent.find(".. ") + 3));
      if (name == "spectrum_electron") {
        EXPECT_GT(top_mev, 0.0) << extent;
        EXPECT_GT(line, 400) << file << ": the line is drawn";
      } else if (std::string(step) == "00000000") {
        EXPECT_EQ(top_mev, 0.0) << extent;
        EXPECT_EQ(line, 0) << file << ": no line where nobody moves";
      }
    }
  // A uniform proton density: every pixel of its map has the same colour (the top one).
  const render::PngFile p = render::read_png(d / "o" / "images" / "density_proton_00000000.png");
  EXPECT_NEAR(std::stod(p.text_value("Max")), 2.0, 1e-9);
  const render::Box pb = box_of(p.text_value("Plot_box"));
  for (int y = pb.y; y < pb.y + pb.h; ++y)
    for (int x = pb.x; x < pb.x + pb.w; ++x) ASSERT_EQ(p.image.rgb(x, y), viridis(1.0));
  for (const fs::directory_entry& e : fs::directory_iterator(d / "o" / "images"))
    EXPECT_EQ(e.path().extension(), ".png") << "no temporary file left";
  // Bad values: one line, exit status 2, nothing written.
  for (const std::string bad : {"output.images_every=-1", "output.images_every=true", "output.images_every=1.5"}) {
    EXPECT_EQ(shell(exe + " pic run --config " + cfg.string() + " --set " + bad + " --out " + (d / "bad").string(), d / "e"), 2)
        << bad;
    std::ifstream err(d / "e");
    std::string line, more;
    std::getline(err, line);
    EXPECT_NE(line.find("output.images_every"), std::string::npos) << line;
    EXPECT_FALSE(std::getline(err, more)) << "one line";
    EXPECT_FALSE(fs::exists(d / "bad"));
  }
  fs::remove_all(d);
}

}  // namespace
}  // namespace nbody::pic
