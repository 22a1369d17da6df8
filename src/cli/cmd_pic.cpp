// nbody pic run --config FILE: a 2D3V electromagnetic particle-in-cell run (docs/pic.md);
// nbody pic check: the PIC validation suite with its measured numbers.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "nbody/error.hpp"
#include "pic/checkpoint.hpp"
#include "pic/config.hpp"
#include "pic/run.hpp"
#include "pic/units.hpp"
#include "pic/validation.hpp"

namespace nbody::cli {
namespace {

struct PicRunOptions {
  std::string config, out, restart;
  long long steps = 0;
  std::vector<std::string> set;
};

int run_pic_command(const PicRunOptions& o) {
  std::vector<std::string> overrides = o.set;
  if (o.steps > 0) overrides.push_back("time.steps=" + std::to_string(o.steps));
  if (!o.out.empty()) overrides.push_back("output.dir=\"" + o.out + "\"");
  const pic::PicConfig cfg = pic::read_pic_config(o.config, overrides);
  pic::PicSimulation sim = pic::build_pic_simulation(cfg, o.restart.empty());
  if (!o.restart.empty()) {
    pic::load_pic_checkpoint(o.restart, sim);
    std::printf("pic: restarted from %s at step %lld\n", o.restart.c_str(), static_cast<long long>(sim.step_count()));
  }
  std::size_t particles = 0;
  for (const auto& s : sim.species()) particles += s.size();
  const auto& g = sim.settings().geom;
  std::printf("pic: %d x %d cells (dx = %.4g, dy = %.4g lambda), %s solver, %s, %zu particles in %zu species, "
              "dt = %.4g lambda/c, %lld steps%s\n",
              g.nx, g.ny, cfg.dx, cfg.dy, pic::solver_name(cfg.solver), cfg.shape == pic::ShapeOrder::tsc ? "TSC" : "CIC",
              particles, sim.species().size(), sim.settings().dt / (2 * pic::kPi), static_cast<long long>(pic::pic_steps(cfg)),
              cfg.laser.enabled ? (", laser a0 = " + std::to_string(sim.settings().laser.a0)).c_str() : "");
  std::fflush(stdout);
  ProgressLine progress;
  progress.started(sim.step_count(), pic::pic_steps(cfg));
  const pic::PicRunResult r = pic::run_pic(cfg, sim, [&](std::int64_t n, std::int64_t total, double secs) {
    progress.advanced(n, total, secs);
  });
  progress.ended();
  const double ns = r.particle_steps > 0 ? r.wall_seconds * 1e9 / r.particle_steps : 0.0;
  std::printf("pic: done on the %s, %lld steps in %.3g s (%.4g ns per particle per step, whole step)\n",
              r.gpu ? "GPU" : "CPU", static_cast<long long>(r.steps), r.wall_seconds, ns);
  if (r.gpu && r.particle_steps > 0)
    std::printf("pic: particle kernels (gather + push + deposit): %.4g ns per particle per step\n",
                r.particle_kernel_seconds * 1e9 / r.particle_steps);
  std::printf("pic: energy %.6g -> %.6g (laser in %.6g, out right %.6g), Gauss residual %.3g\n", r.energy_start,
              r.energy_end, r.laser_energy_in, r.energy_out, r.gauss_residual);
  if (!cfg.out_dir.empty()) std::printf("pic: wrote %s/diagnostics.csv and units.json\n", cfg.out_dir.c_str());
  return 0;
}

int check_pic_command() {
  int failed = 0;
  for (const auto& r : pic::run_validation_suite()) {
    std::printf("%-4s %-68s %-12.6g %s\n", r.passed ? "pass" : "FAIL", r.name.c_str(), r.measured, r.target.c_str());
    failed += r.passed ? 0 : 1;
  }
  std::printf("pic check: %s\n", failed ? (std::to_string(failed) + " failed").c_str() : "all passed");
  return failed ? 1 : 0;
}

}  // namespace

Command add_pic_command(CLI::App& parent) {
  CLI::App* pic = parent.add_subcommand("pic", "2D3V electromagnetic particle-in-cell: pic run, pic check (docs/pic.md)");
  pic->require_subcommand(1);
  auto opts = std::make_shared<PicRunOptions>();
  CLI::App* run = pic->add_subcommand("run", "run a PIC simulation from a TOML configuration");
  run->add_option("--config", opts->config, "the configuration file (TOML)")->required();
  run->add_option("--out", opts->out, "output directory (overrides output.dir)");
  run->add_option("--steps", opts->steps, "number of steps (overrides time.steps / time.t_end)");
  run->add_option("--restart", opts->restart, "continue from a checkpoint.bin written by this configuration");
  run->add_option("--set", opts->set, "override a key: table.key=value or species.N.key=value (repeatable)");
  CLI::App* check = pic->add_subcommand("check", "run the PIC validation suite and print the measured numbers");
  return {pic, [opts, run, check]() -> int {
            if (run->parsed()) return run_pic_command(*opts);
            if (check->parsed()) return check_pic_command();
            return 2;
          }};
}

}  // namespace nbody::cli
