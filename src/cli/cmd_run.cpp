// nbody run: a simulation from a configuration, with diagnostics, snapshots and a summary.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>

#include "cli/commands.hpp"
#include "cli/param_options.hpp"
#include "cli/progress.hpp"
#include "io/run_directory.hpp"
#include "nbody/simulation.hpp"

namespace nbody::cli {
namespace {

struct RunOptions {
  ParamOptions params;
  bool overwrite = false;
};

// The next step at which something must happen (diagnostics, a snapshot, the end).
std::int64_t next_event(std::int64_t step, std::int64_t every, std::int64_t last) {
  if (every <= 0) return last;
  return std::min(last, (step / every + 1) * every);
}

int execute(const RunOptions& opts) {
  RunConfig cfg = opts.params.resolve(RunConfig{});
  validate(cfg);
  if (!cfg.out.empty()) RunDirectory::check_usable(cfg.out, opts.overwrite);

  // Everything that can reject the input (memory included) happens before any file is written.
  auto sim = Simulation::create(cfg);
  cfg.backend = sim->backend_name();
  const Precision precision = parse_precision(cfg.precision);

  std::optional<RunDirectory> dir;
  if (!cfg.out.empty()) dir.emplace(cfg.out, cfg);

  std::printf("nbody run: %s, N = %zu, %s, %s, dt = %g, %lld steps, softening %g, seed %lld\n", cfg.ic.c_str(),
              sim->size(), cfg.precision.c_str(), cfg.integrator.c_str(), cfg.dt, static_cast<long long>(cfg.steps),
              cfg.softening, static_cast<long long>(cfg.seed));
  std::printf("backend: %s (%s)\n", sim->backend_name().c_str(), sim->device_name().c_str());
  std::fflush(stdout);

  const Diagnostics d0 = sim->diagnostics();
  const double e0 = d0.total;
  if (dir) {
    dir->append_diagnostics(d0, e0);
    dir->write_snapshot(sim->particles(), precision);
  }

  using Clock = std::chrono::steady_clock;
  ProgressLine progress(cfg.steps);
  double step_seconds = 0;
  std::uint64_t step_interactions = 0;
  const auto wall_start = Clock::now();
  // Steps run in chunks between events; a chunk is also cut short so the progress line moves.
  double seconds_per_step = 0;
  Diagnostics last = d0;
  while (sim->step_count() < cfg.steps) {
    const std::int64_t s = sim->step_count();
    const std::int64_t diag_at = next_event(s, cfg.diag_every, cfg.steps);
    const std::int64_t snap_at = dir ? next_event(s, cfg.snapshot_every, cfg.steps) : cfg.steps;
    std::int64_t chunk = std::min(diag_at, snap_at) - s;
    if (progress.enabled()) {
      const auto budget = seconds_per_step > 0 ? std::int64_t(0.25 / seconds_per_step) : 1;
      chunk = std::clamp<std::int64_t>(budget, 1, chunk);
    }
    const auto t0 = Clock::now();
    const std::uint64_t i0 = sim->interactions();
    sim->advance(chunk);
    sim->synchronize();
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    step_seconds += dt;
    step_interactions += sim->interactions() - i0;
    seconds_per_step = dt / double(chunk);
    const std::int64_t now = sim->step_count();
    progress.update(now);

    const bool at_end = now == cfg.steps;
    if (now == diag_at || at_end) {
      last = sim->diagnostics();
      if (dir) dir->append_diagnostics(last, e0);
    }
    if (dir && (now == snap_at || at_end) && (cfg.snapshot_every > 0 || at_end)) {
      dir->write_snapshot(sim->particles(), precision);
    }
  }
  progress.finish();
  const double wall = std::chrono::duration<double>(Clock::now() - wall_start).count();

  const double steps = double(cfg.steps);
  std::printf("done: %lld steps in %s wall", static_cast<long long>(cfg.steps), format_duration(wall).c_str());
  if (step_seconds > 0 && cfg.steps > 0) {
    const double rate = double(step_interactions) / step_seconds / 1e9;
    std::printf(" (stepping %s: %.4g steps/s, %.4g billion interactions/s)", format_duration(step_seconds).c_str(),
                steps / step_seconds, rate);
  }
  std::printf("\n");
  std::printf("energy: E0 = %.10g, E = %.10g, |dE/E0| = %.3e; virial ratio 2K/|W| = %.4f\n", e0, last.total,
              relative_energy_error(last, e0), last.virial_ratio);
  if (dir) {
    std::printf("output: %s (config.toml, diagnostics.csv, %d snapshots)\n", dir->path().c_str(),
                dir->snapshots_written());
  }
  return 0;
}

}  // namespace

Command add_run_command(CLI::App& parent) {
  auto* app = parent.add_subcommand("run", "Run a simulation");
  auto opts = std::make_shared<RunOptions>();
  opts->params.add_to(*app, RunConfig{});
  app->add_flag("--overwrite", opts->overwrite, "reuse a non-empty --out directory");
  return {app, [opts]() { return execute(*opts); }};
}

}  // namespace nbody::cli
