// nbody plot: a small run directory of each physics plotted into a PNG that is a real figure (its
// size, ink inside every panel and in the tick labels beside it, read back with libpng), and the
// refusals: a directory that is no run, a bad --out, a Python without matplotlib (one line, exit 2,
// nothing written). Skipped where no Python with numpy and matplotlib is found.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "render/figure.hpp"
#include "render/image.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

namespace fs = std::filesystem;

std::vector<render::Box> panels_of(const render::PngFile& png) {
  std::vector<render::Box> boxes;
  std::istringstream in(png.text_value("Panels"));
  std::string one;
  while (std::getline(in, one, ';')) {
    render::Box b;
    std::istringstream(one) >> b.x >> b.y >> b.w >> b.h;
    boxes.push_back(b);
  }
  return boxes;
}

bool ink(render::Rgb c) { return c[0] < 200 || c[1] < 200 || c[2] < 200; }

// Pixels with ink strictly inside a box (its frame, 3 pixels wide, left out).
int ink_inside(const render::Image& im, const render::Box& b) {
  int n = 0;
  for (int y = b.y + 3; y < b.y + b.h - 3; ++y)
    for (int x = b.x + 3; x < b.x + b.w - 3; ++x) n += ink(im.rgb(x, y));
  return n;
}

// Pixels with ink in the band left of a box (the y tick labels and the axis label).
int ink_left_of(const render::Image& im, const render::Box& b) {
  int n = 0;
  for (int y = b.y; y < b.y + b.h; ++y)
    for (int x = 0; x < b.x - 8; ++x) n += ink(im.rgb(x, y));
  return n;
}

bool no_python(const ProcessResult& r) { return r.status == 2 && r.err.find("no Python with") != std::string::npos; }

void expect_one_line(const ProcessResult& r, const std::string& names) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("nbody: error: plot: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(names), std::string::npos) << r.err;
}

// The figure at `png`: 700 x 1000 pixels (7 x 10 inches at 100 dpi), four panels one above the
// other, each with lines inside and tick labels to its left.
void expect_figure(const fs::path& file) {
  ASSERT_TRUE(fs::is_regular_file(file)) << file;
  const render::PngFile png = render::read_png(file);
  const render::Image& im = png.image;
  EXPECT_EQ(im.width, 700);
  EXPECT_EQ(im.height, 1000);
  const std::vector<render::Box> boxes = panels_of(png);
  ASSERT_EQ(boxes.size(), 4u) << png.text_value("Panels");
  for (std::size_t k = 0; k < boxes.size(); ++k) {
    const render::Box& b = boxes[k];
    ASSERT_GT(b.w, 300) << k;
    ASSERT_GT(b.h, 100) << k;
    ASSERT_GE(b.x, 40) << k;
    ASSERT_LE(b.x + b.w, im.width) << k;
    ASSERT_LE(b.y + b.h, im.height) << k;
    if (k > 0) EXPECT_GE(b.y, boxes[k - 1].y + boxes[k - 1].h) << "one above the other";
    EXPECT_GT(ink_inside(im, b), 150) << "panel " << k << " draws its data";
    EXPECT_LT(ink_inside(im, b), b.w * b.h / 2) << "panel " << k << " is not filled";
    EXPECT_GT(ink_left_of(im, b), 100) << "panel " << k << " has tick labels and a label";
  }
  for (const fs::directory_entry& e : fs::directory_iterator(file.parent_path()))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << "no temporary file left: " << e.path();
}

const char* kPicDeck = R"(
[grid]
nx = 48
ny = 8
dx = 0.02
dy = 0.04
[time]
steps = 6
courant = 0.9
[output]
diag_every = 1
fields_every = 3
[[species]]
name = "electron"
ppc = 4
density = 2.0
temperature_keV = 1.0
[[species]]
name = "proton"
ppc = 2
density = 2.0
temperature_keV = 0.5
)";

TEST(CliPlot, AGravityRunGivesAFigureWithFourPanels) {
  const std::string d = temp_dir("plot_gravity");
  const ProcessResult run = run_nbody("run --ic plummer --n 128 --steps 40 --diag-every 4 --out " + d + "/g");
  ASSERT_EQ(run.status, 0) << run.err;
  const ProcessResult r = run_nbody("plot " + d + "/g --out " + d + "/g.png");
  if (no_python(r)) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  expect_figure(d + "/g.png");
  // Without --out: RUN_DIR/plot.png; --out DIR: DIR/<run name>.png.
  ASSERT_EQ(run_nbody("plot " + d + "/g").status, 0);
  EXPECT_TRUE(fs::is_regular_file(d + "/g/plot.png"));
  fs::create_directories(d + "/figs");
  ASSERT_EQ(run_nbody("plot " + d + "/g/ --out " + d + "/figs").status, 0);
  EXPECT_TRUE(fs::is_regular_file(d + "/figs/g.png"));
}

TEST(CliPlot, APicRunGivesEnergiesGaussAndSpectra) {
  const std::string d = temp_dir("plot_pic");
  std::ofstream(d + "/deck.toml") << kPicDeck;
  const ProcessResult run = run_nbody("pic run --config " + d + "/deck.toml --out " + d + "/p");
  ASSERT_EQ(run.status, 0) << run.err;
  ASSERT_TRUE(fs::exists(d + "/p/spectrum_00000006.csv"));
  const ProcessResult r = run_nbody("plot " + d + "/p --out " + d + "/p.png");
  if (no_python(r)) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  expect_figure(d + "/p.png");
}

TEST(CliPlot, BadInputIsOneLineAndWritesNothing) {
  const std::string d = temp_dir("plot_bad");
  expect_one_line(run_nbody("plot " + d + "/missing --out " + d + "/x.png"), "missing");
  expect_one_line(run_nbody("plot " + d + " --out " + d + "/x.png"), "not a run directory");
  // A run directory whose diagnostics have no rows.
  fs::create_directories(d + "/empty");
  std::ofstream(d + "/empty/config.toml") << "\n";
  std::ofstream(d + "/empty/diagnostics.csv") << "step,time,rel_energy_error\n";
  const ProcessResult empty = run_nbody("plot " + d + "/empty --out " + d + "/x.png");
  if (no_python(empty)) GTEST_SKIP() << empty.err;
  expect_one_line(empty, "diagnostics.csv");
  expect_one_line(run_nbody("plot " + d + "/empty --out " + d + "/x.jpg"), "--out");
  expect_one_line(run_nbody("plot " + d + "/empty --out " + d + "/nowhere/x.png"), "nowhere");
  EXPECT_FALSE(fs::exists(d + "/x.png"));
  EXPECT_FALSE(fs::exists(d + "/empty/plot.png"));
}

TEST(CliPlot, APythonWithoutMatplotlibIsOneLine) {
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  const std::string d = temp_dir("plot_nompl");
  const ProcessResult run = run_nbody("run --ic plummer --n 64 --steps 4 --diag-every 2 --out " + d + "/g");
  ASSERT_EQ(run.status, 0) << run.err;
  // Debian's Python without its site directories (-S): no numpy, no matplotlib.
  const std::string py = d + "/python-without-site";
  std::ofstream(py) << "#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n";
  fs::permissions(py, fs::perms::owner_all);
  ::setenv("NBODY_PYTHON", py.c_str(), 1);
  const ProcessResult r = run_nbody("plot " + d + "/g --out " + d + "/g.png");
  ::unsetenv("NBODY_PYTHON");
  expect_one_line(r, "NBODY_PYTHON");
  EXPECT_NE(r.err.find("matplotlib"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d + "/g.png"));
}

}  // namespace
}  // namespace nbody::test
