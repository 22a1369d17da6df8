// nbody pic run --config FILE: a 2D3V electromagnetic particle-in-cell run (docs/pic.md);
// nbody pic check: the PIC validation suite with its measured numbers.
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "comm/communicator.hpp"
#include "nbody/error.hpp"
#include "pic/output/checkpoint.hpp"
#include "pic/driver/config.hpp"
#include "pic/driver/run.hpp"
#include "pic/physics/units.hpp"
#include "pic/driver/validation.hpp"

namespace nbody::cli {
namespace {

struct PicRunOptions {
  std::string config, out, restart;
  long long steps = 0;
  std::vector<std::string> set;
};

// The configuration, read by every rank. Under mpirun every rank finds the same problem in a bad
// file: rank 0 alone reports it (one line; the program then ends every rank), the others wait
// to be ended; a problem only another rank has (a file it cannot read) is reported by that rank.
pic::PicConfig read_config_once(const std::string& path, const std::vector<std::string>& overrides) {
  comm::Communicator& world = comm::world();
  if (world.size() == 1) return pic::read_pic_config(path, overrides);
  pic::PicConfig cfg;
  std::exception_ptr failure;
  try {
    cfg = pic::read_pic_config(path, overrides);
  } catch (const Error&) {
    failure = std::current_exception();
  }
  if (world.allreduce_max(failure ? 1.0 : 0.0) == 0) return cfg;
  const bool root_failed = world.broadcast_value<std::int32_t>(failure ? 1 : 0, 0) != 0;
  if (failure && (world.rank() == 0 || !root_failed)) std::rethrow_exception(failure);
  world.barrier();  // rank 0 (or the failing rank) ends this one; it never gets here
  throw_runtime_error("pic: another rank failed to read the configuration");
}

int run_pic_command(const PicRunOptions& o) {
  std::vector<std::string> overrides = o.set;
  if (o.steps > 0) overrides.push_back("time.steps=" + std::to_string(o.steps));
  if (!o.out.empty()) overrides.push_back("output.dir=\"" + o.out + "\"");
  pic::PicConfig cfg = read_config_once(o.config, overrides);
  // parallel.ranks_y = "auto" scored once here (a pass over the cells), the shape kept for the run.
  const int asked_rows = cfg.ranks_y;  // (0: "auto")
  const bool auto_rows = asked_rows == 0;
  cfg.ranks_y = pic::block_rows(cfg, comm::world().size());
  // Under mpirun rank 0 builds the whole plasma (the first diagnostics and outputs), every other
  // rank only its block's cells (pic::rank_load_window); a restart reads the whole state on every
  // rank. Each keeps its block; rank 0 prints.
  const std::optional<pic::CellWindow> window = o.restart.empty() ? pic::rank_load_window(cfg) : std::nullopt;
  pic::PicSimulation sim = pic::build_pic_simulation(cfg, o.restart.empty(), window ? &*window : nullptr);
  const int ranks = comm::world().size();
  const bool printer = comm::world().rank() == 0;
  if (!o.restart.empty()) {
    pic::load_pic_checkpoint(o.restart, sim);
    if (printer)
      std::printf("pic: restarted from %s at step %lld\n", o.restart.c_str(), static_cast<long long>(sim.step_count()));
  }
  std::size_t particles = 0;
  for (const auto& s : sim.species()) particles += s.size();
  const auto& g = sim.settings().geom;
  if (printer && pic::use_slab_decomposition(cfg)) {
    const int rows = cfg.ranks_y;
    if (ranks > 1 && rows > 1)
      std::printf("pic: the grid in %d x %d blocks over %d processes%s (deterministic deposition)\n", ranks / rows, rows,
                  ranks, auto_rows ? " (parallel.ranks_y = \"auto\")" : "");
    else if (ranks > 1)
      std::printf("pic: the grid in %d slabs along x over %d processes%s (deterministic deposition)\n", ranks, ranks,
                  auto_rows ? " (parallel.ranks_y = \"auto\")" : "");
    else std::printf("pic: deterministic deposition (the slab code on one process: the bits of any number of processes)\n");
  }
  if (printer && asked_rows > 1 && ranks < 2)
    std::printf("pic: parallel.ranks_y = %d has no blocks to make on one process (it cuts the grid along y under mpirun)\n",
                asked_rows);
  if (printer && cfg.balance.every > 0 && ranks < 2)
    std::printf("pic: [balance] every = %d has nothing to balance on one process (it moves slab boundaries under mpirun)\n",
                cfg.balance.every);
  // The guard messages' way as the run will settle it (collective: every rank asks together).
  const pic::GuardExchange way =
      pic::use_gpu_slabs(cfg) && ranks > 1 ? pic::resolve_guard_exchange(cfg.exchange, comm::world()) : cfg.exchange;
  if (printer && pic::use_gpu_slabs(cfg)) {
    if (ranks > 1 && cfg.ranks_y > 1)
      std::printf("pic: the grid in %d x %d blocks on GPUs (rank r on GPU r %% devices), %s deposition%s\n",
                  ranks / cfg.ranks_y, cfg.ranks_y, cfg.deposit.c_str(),
                  cfg.deterministic ? " (the bits of any number and shape of blocks)" : "");
    else
      std::printf("pic: the grid in %d slab%s along x on GPUs (rank r on GPU r %% devices), %s deposition%s\n", ranks,
                  ranks > 1 ? "s" : "", cfg.deposit.c_str(),
                  cfg.deterministic ? " (the bits of any number of ranks)" : "");
    if (ranks > 1) {
      const char* how = way == pic::GuardExchange::ipc   ? "GPU to GPU (CUDA IPC)"
                        : way == pic::GuardExchange::mpi ? "GPU buffers to CUDA-aware MPI"
                                                         : "staged through the host";
      if (cfg.exchange == pic::GuardExchange::automatic)
        std::printf("pic: guard messages %s (parallel.exchange = \"auto\": %s)\n", how,
                    comm::world().device_buffer_support().how.c_str());
      else
        std::printf("pic: guard messages %s (parallel.exchange = \"%s\")\n", how, pic::guard_exchange_name(way));
      if (way != pic::GuardExchange::host)
        std::printf("pic: particle migration is staged through the host\n");
    }
  }
  if (printer && (cfg.exchange == pic::GuardExchange::ipc || cfg.exchange == pic::GuardExchange::mpi) && ranks < 2)
    std::printf("pic: parallel.exchange = \"%s\" has no neighbours to reach on one process (it moves guard messages "
                "between GPUs under mpirun)\n", pic::guard_exchange_name(cfg.exchange));
  if (printer)
  std::printf("pic: %d x %d cells (dx = %.4g, dy = %.4g lambda), %s solver, %s, %zu particles in %zu species, "
              "dt = %.4g lambda/c, %lld steps%s\n",
              g.nx, g.ny, cfg.dx, cfg.dy, pic::solver_name(cfg.solver), cfg.shape == pic::ShapeOrder::tsc ? "TSC" : "CIC",
              particles, sim.species().size(), sim.settings().dt / (2 * pic::kPi), static_cast<long long>(pic::pic_steps(cfg)),
              cfg.laser.enabled ? (", laser a0 = " + std::to_string(sim.settings().laser.a0)).c_str() : "");
  std::fflush(stdout);
  ProgressLine progress;
  if (printer) progress.started(sim.step_count(), pic::pic_steps(cfg));
  const pic::PicRunResult r = pic::run_pic(cfg, sim, [&](std::int64_t n, std::int64_t total, double secs) {
    progress.advanced(n, total, secs);
  });
  if (!printer) return 0;
  progress.ended();
  const double ns = r.particle_steps > 0 ? r.wall_seconds * 1e9 / r.particle_steps : 0.0;
  std::printf("pic: done on the %s, %lld steps in %.3g s (%.4g ns per particle per step, whole step)\n",
              r.gpu ? "GPU" : "CPU", static_cast<long long>(r.steps), r.wall_seconds, ns);
  if (r.gpu && r.particle_steps > 0)
    std::printf("pic: particle kernels (gather + push + deposit): %.4g ns per particle per step\n",
                r.particle_kernel_seconds * 1e9 / r.particle_steps);
  if (r.slabs_gpu && r.steps > 0) {
    const double ms = 1e3 / double(r.steps);
    std::printf("pic: time per step (largest over %d rank%s): particles %.4g ms, fields %.4g ms, communication %.4g ms, "
                "migration and sort %.4g ms\n",
                r.ranks, r.ranks > 1 ? "s" : "", r.time_particles * ms, r.time_fields * ms, r.time_comm * ms, r.time_sort * ms);
  }
  if (r.rebalances > 0 && r.slab_starts.size() > 1) {
    std::string widths;
    for (std::size_t k = 0; k + 1 < r.slab_starts.size(); ++k)
      widths += (k ? ", " : "") + std::to_string(r.slab_starts[k + 1] - r.slab_starts[k]);
    std::printf("pic: load balance moved the slab boundaries %d time%s; columns per slab at the end: %s\n", r.rebalances,
                r.rebalances > 1 ? "s" : "", widths.c_str());
  }
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
