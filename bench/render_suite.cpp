// nbody bench --suite render: what a frame of a run costs the stepping thread (docs/pictures.md,
// "Frames of gravity runs"), beside the step it is taken between.
//
// At N = min(10^7, --max-n) (--quick: 10^5): the galaxy collision
// (examples/galaxy_collision_10M.toml's model: two disk galaxies, six components) in float32 with
// the tree (theta 0.6, softening 0.004, leapfrog dt 0.002) on a GPU, or on the CPU at N <= 10^5
// where no GPU is usable, so that the suite runs everywhere. Rungs, each a median over repeats
// after a warm-up (a steady clock around calls that return with the device idle):
//   tree-step      one step of the run (sim->advance(1)): what a frame is measured against;
//   frame-shaded   Simulation::project_shaded at 1920x1080 coloured by component: the splat, the
//                  scale's reduction and the shading on the device, 3 bytes a pixel copied back
//                  (GPU runs; the part of a frame the stepping thread waits for);
//   frame-map      Simulation::project_components: the float map copied back (what a CPU run's
//                  frame costs the stepping thread, and what the GPU path did before shading there);
//   frame-write    the worker's job: render::write_frame of the shaded map (figure through cairo,
//                  PNG through libpng at the fast encoding), one thread.
// The shaded colours are checked against the host's shading of the map first (the bound of
// render/splat_gpu.hpp); the record's verification says how many pixels differ. Each frame
// record's fraction of a step is in its `verification` text.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench.hpp"
#include "measure.hpp"
#include "gravity/names.hpp"
#include "nbody/config.hpp"
#include "nbody/error.hpp"
#include "nbody/simulation.hpp"
#if NBODY_HAVE_RENDER
#include "render/frame.hpp"
#include "render/shade.hpp"
#endif

namespace nbody::bench {
namespace {

#if NBODY_HAVE_RENDER
// Runs `f` once to warm up, then `repeats` times; fills the record's times (one "step" a call).
void time_calls(Record& r, int repeats, const std::function<void()>& f) {
  f();
  std::vector<double> t;
  for (int k = 0; k < repeats; ++k) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
  }
  r.steps = 1;
  r.repeats = repeats;
  r.median_s = median(t);
  r.min_s = *std::min_element(t.begin(), t.end());
  double sum = 0;
  for (double x : t) sum += x;
  r.mean_s = sum / double(t.size());
}

std::string fraction_text(double part, double step) {
  char b[96];
  std::snprintf(b, sizeof b, "; %.2f%% of a tree step (%.3g ms of %.3g ms)", 100 * part / step, 1e3 * part, 1e3 * step);
  return b;
}
#endif

}  // namespace

void render_suite(const Options& o, const std::function<void(Record)>& add) {
#if !NBODY_HAVE_RENDER
  Record r;
  r.suite = "render";
  r.rung = "frame-shaded";
  r.skipped = "skipped: this build has no renderer (NBODY_ENABLE_RENDER)";
  add(r);
  (void)o;
#else
  std::string why;
  const bool gpu = cuda_device_available(&why);
  std::int64_t n = o.quick ? 100000 : 10000000;
  n = std::min(n, o.max_n);
  if (!gpu) n = std::min<std::int64_t>(n, 100000);
  RunConfig cfg;
  cfg.ic = "galaxy-collision";
  cfg.n = n;
  cfg.seed = 1;
  cfg.pericentre = 0.4, cfg.separation = 3.0, cfg.incl1 = 0, cfg.incl2 = 60;
  cfg.device = gpu ? "cuda" : "cpu";
  cfg.gravity = "tree";
  cfg.theta = 0.6;
  cfg.precision = "fp32";
  cfg.integrator = "leapfrog";
  cfg.softening = 0.004;
  cfg.dt = 0.002;
  const int repeats = o.quick ? 3 : 9;
  auto base = [&](const char* rung) {
    Record r;
    r.suite = "render";
    r.rung = rung;
    r.precision = "fp32";
    r.n = n;
    r.shape = "1920x1080, by component";
    return r;
  };
  std::unique_ptr<Simulation> sim;
  try {
    sim = Simulation::create(cfg);
  } catch (const Error& e) {
    Record r = base("tree-step");
    r.error = std::string("the model could not be made: ") + e.what();
    add(r);
    return;
  }
  render::Camera camera;
  camera.width = 6;  // the collision's two galaxies and their tails
  render::FrameStyle style;
  const render::ShadeSpec spec = render::shade_spec(style, true);

  Record step = base("tree-step");
  step.shape = "theta 0.6, leapfrog";
  try {
    time_calls(step, o.quick ? 2 : 5, [&] {
      sim->advance(1);
      sim->synchronize();
    });
    step.verified = true;
    step.verification = "the run's step, as nbody run takes it";
  } catch (const Error& e) {
    step.error = e.what();
  }
  add(step);

  render::ShadedMap kept;
  Record shaded = base("frame-shaded");
  try {
    const std::optional<render::ShadedMap> first = sim->project_shaded(camera, 1920, 1080, spec);
    if (!first) {
      shaded.skipped = "skipped: the bodies are on the host (a CPU run's frame is shaded by the worker)";
    } else {
      // The device's colours against the host's shading of the same map (render/splat_gpu.hpp).
      const render::DensityMap map = sim->project_components(camera, 1920, 1080);
      const std::vector<render::Rgb> host = render::shade(map, style.colormap, render::Scale::log(first->lo, first->hi));
      std::size_t differ = 0, far = 0;
      for (std::size_t k = 0; k < host.size(); ++k) {
        if (host[k] == first->colours[k]) continue;
        ++differ;
        for (int q = 0; q < 3; ++q) far += std::abs(int(host[k][q]) - int(first->colours[k][q])) > 1;
      }
      char b[200];
      std::snprintf(b, sizeof b, "device shading against the host's of the same map: %zu of %zu pixels differ, %zu by more than one level; %zu bodies in view",
                    differ, host.size(), far, first->map.bodies_inside);
      shaded.verification = b;
      if (far > 0 || differ > host.size() / 10000) {
        shaded.error = std::string("render WRONG: ") + b;
      } else {
        shaded.verified = true;
        time_calls(shaded, repeats, [&] { kept = *sim->project_shaded(camera, 1920, 1080, spec); });
        if (step.median_s > 0) shaded.verification += fraction_text(shaded.median_s, step.median_s);
      }
    }
  } catch (const Error& e) {
    shaded.error = e.what();
  }
  add(shaded);

  Record map = base("frame-map");
  try {
    render::DensityMap m;
    time_calls(map, repeats, [&] { m = sim->project_components(camera, 1920, 1080); });
    map.verified = m.bodies_inside > 0;
    map.verification = "the float map copied back (" + std::to_string(m.bodies_inside) + " bodies in view)";
    if (step.median_s > 0) map.verification += fraction_text(map.median_s, step.median_s);
    if (kept.colours.empty()) {  // a CPU run: the worker's frame is shaded from this map
      kept.map = m;
      const render::Scale s = render::density_scale(m, style.decades);
      kept.colours = render::shade(m, style.colormap, s);
      kept.lo = s.lo, kept.hi = s.hi, kept.by_component = true;
    }
  } catch (const Error& e) {
    map.error = e.what();
  }
  add(map);

  Record write = base("frame-write");
  try {
    const std::filesystem::path file = std::filesystem::temp_directory_path() / "nbody_bench_render_frame.png";
    render::FrameLabels labels{"galaxy-collision, " + std::to_string(n) + " bodies", 100, 0.2, "henon", "orthographic",
                               sim->component_names()};
    time_calls(write, o.quick ? 2 : 5, [&] { render::write_frame(file, kept, style, labels); });
    write.verified = std::filesystem::file_size(file) > 0;
    write.verification = "one worker thread: figure (cairo) and PNG (libpng, fast encoding), " +
                         std::to_string(std::filesystem::file_size(file)) + " bytes";
    std::filesystem::remove(file);
  } catch (const std::exception& e) {
    write.error = e.what();
  }
  add(write);
#endif
}

}  // namespace nbody::bench
