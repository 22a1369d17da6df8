// Frames made cheap without changing what they show: the shading row by row gives the colours of
// the definition (std::lround of the mix, the colour map's entries), a figure from colours alone
// equals one with values, every PNG encoding holds the same pixels and text (the default's bytes
// unchanged), and the run's frame writer runs its jobs on several threads at once, reports a
// worker's error, and writes the same bytes as frames written one at a time.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "nbody/error.hpp"
#include "render/figure.hpp"
#include "render/frame.hpp"
#include "render/image.hpp"
#include "render/shade.hpp"
#include "run/frame_output.hpp"

namespace nbody::render {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& what) {
  const fs::path d = fs::temp_directory_path() / ("nbody_frame_speed_" + what + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A map of nx x ny pixels: about a third empty, the rest random masses; with components, random
// component colours; pixel 0 the densest with a mix whose channels land on exact halves.
DensityMap random_map(int nx, int ny, bool components, unsigned seed) {
  DensityMap m;
  m.nx = nx, m.ny = ny;
  m.x_lo = -2, m.x_hi = 2, m.y_lo = -1, m.y_hi = 1;
  m.pixel_size = 4.0 / nx;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  m.mass.resize(std::size_t(nx) * std::size_t(ny));
  if (components) m.rgb_mass.resize(3 * m.mass.size());
  for (std::size_t k = 0; k < m.mass.size(); ++k) {
    m.mass[k] = u(rng) < 0.35 ? 0.0 : std::pow(10.0, -5 * u(rng));
    if (components)
      for (std::size_t q = 0; q < 3; ++q) m.rgb_mass[3 * k + q] = m.mass[k] * u(rng);
    m.mass_inside += m.mass[k];
  }
  m.mass[0] = 2;  // t = 1 there: 255 * 0.5 = 127.5 and 255 * 0.25 = 63.75
  if (components) m.rgb_mass[0] = 1, m.rgb_mass[1] = 0.5, m.rgb_mass[2] = 2;
  return m;
}

TEST(FrameSpeed, ShadingGivesTheDefinitionsColours) {
  for (bool components : {false, true}) {
    const DensityMap map = random_map(64, 36, components, 11);
    const Scale scale = density_scale(map);
    const std::vector<Rgb> got = shade(map, ColormapId::magma, scale);
    ASSERT_EQ(got.size(), map.mass.size());
    const Colormap& cm = colormap(ColormapId::magma);
    for (std::size_t k = 0; k < got.size(); ++k) {
      const double m = map.mass[k];
      Rgb want{0, 0, 0};
      if (!components) {
        want = colormap_colour(cm, m > 0 ? scale.normalize(map.surface_density(k)) : 0.0);
      } else if (m > 0) {
        const double t = scale.normalize(map.surface_density(k));
        for (std::size_t q = 0; q < 3; ++q)
          want[q] = std::uint8_t(std::lround(255 * std::clamp(t * map.rgb_mass[3 * k + q] / m, 0.0, 1.0)));
      }
      ASSERT_EQ(got[k], want) << "pixel " << k << (components ? " (components)" : "");
    }
    if (components) EXPECT_EQ(got[0], (Rgb{128, 64, 255})) << "127.5 rounds up, 63.75 to 64";
  }
}

TEST(FrameSpeed, AFigureFromColoursAloneEqualsOneWithValues) {
  const DensityMap map = random_map(40, 30, true, 5);
  const std::vector<double> sigma = surface_density(map);
  const std::vector<Rgb> colours = shade(map, ColormapId::magma, density_scale(map));
  FigureSpec spec;
  spec.scale = density_scale(map);
  spec.colorbar_colours = brightness_ramp();
  const Figure with = draw_figure({map.nx, map.ny, sigma, colours}, spec);
  const Figure alone = draw_figure({map.nx, map.ny, {}, colours}, spec);
  EXPECT_EQ(alone.pixels_per_sample, 16);
  EXPECT_TRUE(with.image.pixels == alone.image.pixels);
  // Colours of the wrong count are refused, with or without values.
  const std::vector<Rgb> short_colours(colours.begin(), colours.end() - 1);
  EXPECT_THROW((void)draw_figure({map.nx, map.ny, {}, short_colours}, spec), Error);
  EXPECT_THROW((void)draw_figure({map.nx, map.ny, std::span<const double>(sigma).first(10), colours}, spec), Error);
}

TEST(FrameSpeed, EveryPngEncodingHoldsTheSamePixelsAndText) {
  const DensityMap map = random_map(120, 68, true, 3);
  const Figure f = draw_frame(map, {}, {"t", 4, 0.5, "henon", "orthographic", {"disk", "halo"}});
  const TextChunks text{{"Title", "t"}, {"Step", "4"}};
  const fs::path d = scratch("encodings");
  const std::string standard = encode_png(f.image, text);
  EXPECT_EQ(standard, encode_png(f.image, text, {6, PngFilters::adaptive})) << "the default: level 6, adaptive";
  EXPECT_NE(standard, encode_png(f.image, text, kFastPng));
  for (int level : {0, 1, 6, 9})
    for (PngFilters filters : {PngFilters::adaptive, PngFilters::none, PngFilters::sub, PngFilters::up, PngFilters::paeth}) {
      const fs::path p = d / "e.png";
      write_png(p, f.image, text, {level, filters});
      const PngFile back = read_png(p);
      EXPECT_TRUE(back.image.pixels == f.image.pixels) << "level " << level << " filters " << int(filters);
      EXPECT_EQ(back.text, text);
    }
  for (int level : {-1, 10}) {
    try {
      (void)encode_png(f.image, text, {level, PngFilters::none});
      ADD_FAILURE() << "level " << level << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::input);
      EXPECT_NE(std::string(e.what()).find(std::to_string(level)), std::string::npos) << e.what();
    }
  }
  fs::remove_all(d);
}

TEST(FrameSpeed, TheWriterRunsJobsOnSeveralThreadsAtOnce) {
  runloop::FrameWriter writer(3);
  EXPECT_EQ(writer.workers(), 3u);
  // Three jobs that each wait for the other two to start: they meet only when three threads run them.
  std::mutex m;
  std::condition_variable cv;
  int started = 0;
  std::atomic<int> met{0};
  for (int k = 0; k < 3; ++k)
    writer.push([&] {
      std::unique_lock<std::mutex> lock(m);
      ++started;
      cv.notify_all();
      if (cv.wait_for(lock, std::chrono::seconds(10), [&] { return started == 3; })) ++met;
    });
  writer.flush();
  EXPECT_EQ(met.load(), 3);
  EXPECT_GE(runloop::FrameWriter::default_workers(), 1u);
  EXPECT_LE(runloop::FrameWriter::default_workers(), 8u);
}

TEST(FrameSpeed, AWorkersErrorComesBackAndWaitingJobsAreDropped) {
  runloop::FrameWriter writer(2, 64);
  std::atomic<int> ran{0};
  std::mutex gate1, gate2;
  std::unique_lock<std::mutex> closed1(gate1), closed2(gate2);
  // The first job fails once gate 1 opens while the second holds the other worker (gate 2): the
  // 20 jobs waiting behind them are dropped, and flush reports the error before the second ends.
  writer.push([&] {
    std::lock_guard<std::mutex> wait(gate1);
    throw std::runtime_error("frame 1 failed");
  });
  writer.push([&] {
    std::lock_guard<std::mutex> wait(gate2);
    ++ran;
  });
  for (int k = 0; k < 20; ++k) writer.push([&] { ran += 1000; });
  closed1.unlock();
  try {
    writer.flush();
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "frame 1 failed");
  }
  EXPECT_EQ(ran.load(), 0);
  closed2.unlock();
  writer.flush();  // reported once
  EXPECT_LE(ran.load(), 1) << "the jobs queued behind the error were dropped";
  writer.push([&] { ran = 100; });
  writer.flush();
  EXPECT_EQ(ran.load(), 100) << "the writer takes jobs again";
}

TEST(FrameSpeed, FramesFromSeveralWorkersEqualFramesWrittenOneAtATime) {
  const fs::path d = scratch("workers");
  std::vector<DensityMap> maps;
  for (unsigned k = 0; k < 8; ++k) maps.push_back(random_map(160, 90, k % 2 == 0, 100 + k));
  auto labels = [](std::size_t k) {
    FrameLabels l;
    l.title = "frame " + std::to_string(k);
    l.step = std::int64_t(k);
    l.time = 0.25 * double(k);
    l.camera = "orthographic";
    if (k % 2 == 0) l.components = {"disk", "bulge", "halo"};
    return l;
  };
  for (std::size_t k = 0; k < maps.size(); ++k) write_frame(d / ("one_" + frame_file_name(std::int64_t(k))), maps[k], {}, labels(k));
  {
    runloop::FrameWriter writer(4);
    for (std::size_t k = 0; k < maps.size(); ++k)
      writer.push([&, k] { write_frame(d / ("many_" + frame_file_name(std::int64_t(k))), maps[k], {}, labels(k)); });
    writer.flush();
  }
  for (std::size_t k = 0; k < maps.size(); ++k) {
    const std::string one = bytes_of(d / ("one_" + frame_file_name(std::int64_t(k))));
    ASSERT_FALSE(one.empty());
    EXPECT_TRUE(one == bytes_of(d / ("many_" + frame_file_name(std::int64_t(k))))) << "frame " << k;
  }
  fs::remove_all(d);
}

}  // namespace
}  // namespace nbody::render
