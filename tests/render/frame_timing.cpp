// nbody_frame_timing SNAPSHOT [REPEATS] [OUT_DIR]: where the time of one frame of a run goes
// (the work of `nbody run --render-every`'s writer threads, docs/pictures.md "Alongside the run"):
// the map of the snapshot's bodies is projected once at 1920x1080 (the run's default camera,
// coloured by component where the file names two or more), then each stage of write_frame is
// timed REPEATS times (default 7) and its median printed, with the PNG's size for each zlib
// level and filter. A measuring tool, not a test: it prints and asserts nothing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/particle_file.hpp"
#include "render/figure.hpp"
#include "render/frame.hpp"
#include "render/projection.hpp"
#include "render/shade.hpp"

namespace {

using namespace nbody;
using namespace nbody::render;

double median_ms(int repeats, const std::function<void()>& work) {
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto a = std::chrono::steady_clock::now();
    work();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

const char* filter_name(PngFilters f) {
  switch (f) {
    case PngFilters::adaptive: return "adaptive";
    case PngFilters::none: return "none";
    case PngFilters::sub: return "sub";
    case PngFilters::up: return "up";
    case PngFilters::paeth: return "paeth";
  }
  return "?";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: nbody_frame_timing SNAPSHOT [REPEATS] [OUT_DIR]\n");
    return 2;
  }
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 7;
  const std::filesystem::path out = argc > 3 ? argv[3] : std::filesystem::temp_directory_path();
  const ParticleFileData data = read_particle_file(argv[1]);
  const Particles<double>& p = data.particles;
  Camera camera;
  camera.width = auto_width<double>(p.x, p.y, p.z, p.m, camera.centre);
  std::span<const std::uint8_t> components;
  if (p.component_names.size() > 1 && p.component.size() == p.size()) components = p.component;
  const DensityMap map = project_bodies<double>(p.x, p.y, p.z, p.m, components, camera, 1920, 1080);
  FrameStyle style;
  FrameLabels labels;
  labels.title = "galaxy-collision, " + std::to_string(p.size()) + " bodies";
  labels.step = 0;
  labels.camera = "orthographic";
  if (!components.empty()) labels.components = p.component_names;
  std::printf("%zu bodies, %d x %d map, %s, median of %d\n", p.size(), map.nx, map.ny,
              components.empty() ? "one colour map" : "coloured by component", repeats);

  Scale scale;
  std::vector<Rgb> colours;
  std::printf("%-34s %8.2f ms\n", "surface_density", median_ms(repeats, [&] { (void)surface_density(map); }));
  std::printf("%-34s %8.2f ms\n", "density_scale", median_ms(repeats, [&] { scale = density_scale(map); }));
  std::printf("%-34s %8.2f ms\n", "shade", median_ms(repeats, [&] { colours = shade(map, style.colormap, scale); }));
  Figure f;
  std::printf("%-34s %8.2f ms\n", "draw_frame (all of the figure)", median_ms(repeats, [&] { f = draw_frame(map, style, labels); }));
  const TextChunks text = frame_chunks(map, style, labels, f);
  std::printf("figure %d x %d\n", f.image.width, f.image.height);
  std::string bytes;
  for (int level : {6, 1})
    for (PngFilters filters : {PngFilters::adaptive, PngFilters::none, PngFilters::sub, PngFilters::up, PngFilters::paeth}) {
      const double ms = median_ms(repeats, [&] { bytes = encode_png(f.image, text, {level, filters}); });
      std::printf("encode_png level %d %-9s         %8.2f ms %9zu bytes\n", level, filter_name(filters), ms, bytes.size());
    }
  const std::filesystem::path file = out / "frame_timing.png";
  std::printf("%-34s %8.2f ms\n", "write_file_atomic (level 1 bytes)",
              median_ms(repeats, [&] { write_file_atomic(file, bytes); }));
  std::printf("%-34s %8.2f ms\n", "write_frame (the whole job)",
              median_ms(repeats, [&] { write_frame(file, map, style, labels); }));
  std::printf("%s: %ju bytes\n", file.c_str(), std::uintmax_t(std::filesystem::file_size(file)));
  return 0;
}
