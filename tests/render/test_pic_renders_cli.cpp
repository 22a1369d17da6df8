// nbody render of a PIC run's directory: the images drawn from its openPMD dumps are the images
// the run drew itself (the same bytes), a choice of quantities, steps and colour map, nbody movie
// of a series the run did not draw, and bad input (one line, exit status 2).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "render/colormap.hpp"
#include "render/figure.hpp"
#include "render/image.hpp"

namespace nbody::render {
namespace {
namespace fs = std::filesystem;

struct Result {
  int status = -1;
  std::string err;
};

std::string bytes_of(const fs::path& f) {
  std::ifstream in(f, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

Result nbody(const std::string& args, const fs::path& dir) {
  const std::string cmd = std::string(NBODY_EXE_PATH) + " " + args + " >/dev/null 2>" + (dir / "err").string() +
                          " </dev/null";
  const int raw = std::system(cmd.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, bytes_of(dir / "err")};
}

std::vector<std::string> pngs(const fs::path& dir) {
  std::vector<std::string> n;
  if (!fs::is_directory(dir)) return n;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".png") n.push_back(e.path().filename().string());
  std::sort(n.begin(), n.end());
  return n;
}

// A small warm plasma under a laser: fields, densities, phase spaces and spectra all non-trivial.
const char* kDeck = R"(
[grid]
nx = 40
ny = 8
dx = 0.05
dy = 0.05
boundary_x = "open"
[time]
steps = 6
courant = 0.9
[laser]
a0 = 0.5
duration = 10.0
[output]
fields_every = 3
[[species]]
name = "electron"
ppc = 4
density = 2.0
boundary_xmin = "absorb"
boundary_xmax = "absorb"
temperature_keV = 1.0
drift_ux = 0.05
[[species]]
name = "proton"
ppc = 2
regular = true
density = 2.0
boundary_xmin = "absorb"
boundary_xmax = "absorb"
)";

fs::path fresh(const std::string& tag) {
  const fs::path d = fs::temp_directory_path() / ("nbody_pic_renders_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  std::ofstream(d / "deck.toml") << kDeck;
  return d;
}

TEST(PicRendersCli, TheImagesOfTheDumpsAreTheRunsOwn) {
  const fs::path d = fresh("same");
  // The run draws its images at the steps of its dumps (0, 3, 6).
  Result r = nbody("pic run --config " + (d / "deck.toml").string() + " --set output.images_every=3 --out " +
                   (d / "run").string(), d);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> own = pngs(d / "run" / "images");
  ASSERT_EQ(own.size(), 3u * 10u) << "Ey Ez Bz E_abs and three per species, at 3 steps";
  // Without them: nbody render draws every one of them from the dumps, byte for byte.
  r = nbody("render " + (d / "run").string(), d);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(pngs(d / "run" / "renders"), own);
  for (const std::string& f : own)
    EXPECT_EQ(bytes_of(d / "run" / "renders" / f), bytes_of(d / "run" / "images" / f)) << f << ": the same bytes";

  // A choice: two quantities, the last two dumps, another colour map.
  r = nbody("render " + (d / "run").string() + " --quantity Ey,density_electron --quantity spectrum_proton --steps 3: "
            "--colormap magma --out " + (d / "magma").string(), d);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(pngs(d / "magma"),
            (std::vector<std::string>{"Ey_00000003.png", "Ey_00000006.png", "density_electron_00000003.png",
                                      "density_electron_00000006.png", "spectrum_proton_00000003.png",
                                      "spectrum_proton_00000006.png"}));
  for (const char* f : {"Ey_00000006.png", "density_electron_00000006.png"}) {
    const PngFile mine = read_png(d / "magma" / f), run = read_png(d / "run" / "images" / f);
    EXPECT_EQ(mine.text_value("Colormap"), "magma") << f;
    EXPECT_EQ(mine.text_value("Min"), run.text_value("Min")) << f << ": the same scale";
    EXPECT_EQ(mine.text_value("Max"), run.text_value("Max")) << f;
    EXPECT_EQ(mine.text_value("Plot_box"), run.text_value("Plot_box")) << f;
    const Box b = [&] {
      Box x;
      std::istringstream(mine.text_value("Plot_box")) >> x.x >> x.y >> x.w >> x.h;
      return x;
    }();
    const Colormap& magma = colormap(ColormapId::magma);
    bool all_magma = true;
    for (int y = b.y; y < b.y + b.h; y += 7)
      for (int x = b.x; x < b.x + b.w; x += 7) {
        const Rgb c = mine.image.rgb(x, y);
        bool found = false;
        for (int k = 0; k < 256 && !found; ++k) found = colormap_entry(magma, k) == c;
        all_magma = all_magma && found;
      }
    EXPECT_TRUE(all_magma) << f << ": the map's pixels are magma's colours";
    EXPECT_NE(mine.image.pixels, run.image.pixels) << f;
  }
  // A spectrum has no colour map: the same bytes whatever --colormap says.
  EXPECT_EQ(bytes_of(d / "magma" / "spectrum_proton_00000006.png"),
            bytes_of(d / "run" / "images" / "spectrum_proton_00000006.png"));
  fs::remove_all(d);
}

TEST(PicRendersCli, BadInputIsOneLineAndExitStatusTwo) {
  const fs::path d = fresh("bad");
  Result r = nbody("pic run --config " + (d / "deck.toml").string() + " --out " + (d / "run").string(), d);
  ASSERT_EQ(r.status, 0) << r.err;
  r = nbody("pic run --config " + (d / "deck.toml").string() + " --set output.fields_every=0 --out " +
            (d / "nodumps").string(), d);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string run = (d / "run").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"render " + (d / "nodumps").string(), "holds no openPMD dumps"},
      {"render " + run + " --steps 7:", "holds no openPMD dumps (pic_<step>.h5, written every output.fields_every steps) "
                                         "in the steps asked for"},
      {"render " + run + " --quantity Ex", "quantity 'Ex' is not known (there are: Ey, Ez, Bz, E_abs, density_electron"},
      {"render " + run + " --quantity density_ion", "the run has no species 'ion' (its species: electron, proton)"},
      {"render " + run + " --colormap jet", "colour map 'jet' is not known"},
      {"render " + run + " --steps 5:2", "--steps 5:2: the first step is after the last"},
      {"render " + run + " --steps x", "--steps x: not a step range"},
      {"render " + run + " --camera perspective", "--camera: '" + run + "' is a PIC run"},
  };
  for (const auto& [args, says] : cases) {
    r = nbody(args + " --out " + (d / "out").string(), d);
    EXPECT_EQ(r.status, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": one line: " << r.err;
    EXPECT_TRUE(pngs(d / "out").empty()) << args << ": nothing drawn";
  }
  // nbody movie of a series to draw from the dumps says the same (it needs ffmpeg first).
  if (std::system("command -v ffmpeg >/dev/null 2>&1") == 0) {
    for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
             {"movie " + (d / "nodumps").string() + " --quantity Ey", "holds no openPMD dumps"},
             {"movie " + run + " --quantity phase_ion", "the run has no species 'ion'"},
             {"movie " + run + " --quantity Ey --out " + (d / "Ey.avi").string(), "the movie is an .mp4 file"}}) {
      r = nbody(args, d);
      EXPECT_EQ(r.status, 2) << args << ": " << r.err;
      EXPECT_NE(r.err.find(says), std::string::npos) << args << ": " << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": one line: " << r.err;
    }
  }
  EXPECT_FALSE(fs::exists(d / "run" / "renders")) << "nothing drawn";
  fs::remove_all(d);
}

TEST(PicRendersCli, AMovieOfASeriesTheRunDidNotDrawIsDrawnFromTheDumps) {
  if (std::system("command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "skipped: no ffmpeg/ffprobe (Debian ffmpeg)";
  const fs::path d = fresh("movie");
  Result r = nbody("pic run --config " + (d / "deck.toml").string() + " --out " + (d / "run").string(), d);
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_FALSE(fs::exists(d / "run" / "images"));
  r = nbody("movie " + (d / "run").string() + " --quantity Ez --fps 4", d);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(pngs(d / "run" / "renders"),
            (std::vector<std::string>{"Ez_00000000.png", "Ez_00000003.png", "Ez_00000006.png"}));
  const fs::path movie = d / "run" / "movie_Ez.mp4";
  ASSERT_TRUE(fs::exists(movie));
  const std::string probe = "ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames "
                            "-of csv=p=0 " + movie.string() + " > " + (d / "frames").string();
  ASSERT_EQ(std::system(probe.c_str()), 0);
  EXPECT_EQ(bytes_of(d / "frames"), "3\n");
  r = nbody("movie " + (d / "run").string(), d);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("is a PIC run: choose one quantity with --quantity"), std::string::npos) << r.err;
  fs::remove_all(d);
}

}  // namespace
}  // namespace nbody::render
