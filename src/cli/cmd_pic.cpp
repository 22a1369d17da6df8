// nbody pic run --config FILE: a 2D3V electromagnetic particle-in-cell run (docs/pic.md);
// nbody pic check: the PIC validation suite with its measured numbers.
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "cli/run_hooks.hpp"
#include "comm/communicator.hpp"
#include "core/strings.hpp"
#include "nbody/error.hpp"
#include "io/run_files.hpp"
#include "pic/driver/config.hpp"
#include "pic/driver/memory_plan.hpp"
#include "pic/driver/run.hpp"
#include "pic/physics/units.hpp"
#include "pic/driver/validation.hpp"

namespace nbody::cli {
namespace {

struct PicRunOptions {
  std::string config, out, restart, resume;
  long long steps = 0;
  bool overwrite = false;
  std::vector<std::string> set;
  CLI::Option* steps_option = nullptr;
  CLI::Option* resume_option = nullptr;
  CLI::Option* restart_option = nullptr;
};

// The configuration, read by every rank. Under mpirun every rank finds the same problem in a bad
// file: rank 0 alone reports it (one line; the program then ends every rank), the others wait
// to be ended; a problem only another rank has (a file it cannot read) is reported by that rank.
template <class Read>
auto once_on_every_rank(Read&& read) -> decltype(read()) {
  comm::Communicator& world = comm::world();
  if (world.size() == 1) return read();
  decltype(read()) cfg{};
  std::exception_ptr failure;
  try {
    cfg = read();
  } catch (const Error&) {
    failure = std::current_exception();
  }
  if (world.allreduce_max(failure ? 1.0 : 0.0) == 0) return cfg;
  const bool root_failed = world.broadcast_value<std::int32_t>(failure ? 1 : 0, 0) != 0;
  if (failure && (world.rank() == 0 || !root_failed)) std::rethrow_exception(failure);
  world.barrier();  // rank 0 (or the failing rank) ends this one; it never gets here
  throw_runtime_error("pic: another rank failed to read the configuration");
}


pic::PicFlags flags_of(const PicRunOptions& o) {
  pic::PicFlags f;
  if (o.steps_option->count() > 0) {
    if (o.steps < 1) throw_input_error("--steps: " + std::to_string(o.steps) + " must be >= 1");
    f.steps = o.steps;
  }
  if (!o.out.empty()) f.out = o.out;
  return f;
}

// What the run will be, said first (and kept in run.log).
std::vector<std::string> announcement(const pic::PicConfig& cfg, const pic::PicSimulation& sim, int asked_rows) {
  std::vector<std::string> notes;
  const int ranks = comm::world().size();
  const bool auto_rows = asked_rows == 0;
  if (pic::use_slab_decomposition(cfg)) {
    const int rows = cfg.ranks_y;
    if (ranks > 1 && rows > 1)
      notes.push_back(format_line("pic: the grid in %d x %d blocks over %d processes%s (deterministic deposition)", ranks / rows,
                              rows, ranks, auto_rows ? " (parallel.ranks_y = \"auto\")" : ""));
    else if (ranks > 1)
      notes.push_back(format_line("pic: the grid in %d slabs along x over %d processes%s (deterministic deposition)", ranks,
                              ranks, auto_rows ? " (parallel.ranks_y = \"auto\")" : ""));
    else
      notes.emplace_back("pic: deterministic deposition (the slab code on one process: the bits of any number of processes)");
  }
  if (asked_rows > 1 && ranks < 2)
    notes.push_back(format_line("pic: parallel.ranks_y = %d has no blocks to make on one process (it cuts the grid along y "
                            "under mpirun)", asked_rows));
  if (cfg.balance.every > 0 && ranks < 2)
    notes.push_back(format_line("pic: [balance] every = %d has nothing to balance on one process (it moves slab boundaries "
                            "under mpirun)", cfg.balance.every));
  // The guard messages' way as the run will settle it (collective: every rank asks together).
  const pic::GuardExchange way =
      pic::use_gpu_slabs(cfg) && ranks > 1 ? pic::resolve_guard_exchange(cfg.exchange, comm::world()) : cfg.exchange;
  if (pic::use_gpu_slabs(cfg)) {
    if (ranks > 1 && cfg.ranks_y > 1)
      notes.push_back(format_line("pic: the grid in %d x %d blocks on GPUs (rank r on GPU r %% devices), %s deposition%s",
                              ranks / cfg.ranks_y, cfg.ranks_y, cfg.deposit.c_str(),
                              cfg.deterministic ? " (the bits of any number and shape of blocks)" : ""));
    else
      notes.push_back(format_line("pic: the grid in %d slab%s along x on GPUs (rank r on GPU r %% devices), %s deposition%s",
                              ranks, ranks > 1 ? "s" : "", cfg.deposit.c_str(),
                              cfg.deterministic ? " (the bits of any number of ranks)" : ""));
    if (ranks > 1) {
      const char* how = way == pic::GuardExchange::ipc   ? "GPU to GPU (CUDA IPC)"
                        : way == pic::GuardExchange::mpi ? "GPU buffers to CUDA-aware MPI"
                                                         : "staged through the host";
      if (cfg.exchange == pic::GuardExchange::automatic)
        notes.push_back(format_line("pic: guard messages %s (parallel.exchange = \"auto\": %s)", how,
                                comm::world().device_buffer_support().how.c_str()));
      else
        notes.push_back(format_line("pic: guard messages %s (parallel.exchange = \"%s\")", how, pic::guard_exchange_name(way)));
      if (way != pic::GuardExchange::host) notes.emplace_back("pic: particle migration is staged through the host");
    }
  }
  if ((cfg.exchange == pic::GuardExchange::ipc || cfg.exchange == pic::GuardExchange::mpi) && ranks < 2)
    notes.push_back(format_line("pic: parallel.exchange = \"%s\" has no neighbours to reach on one process (it moves guard "
                            "messages between GPUs under mpirun)", pic::guard_exchange_name(cfg.exchange)));
  std::size_t particles = 0;
  for (const auto& s : sim.species()) particles += s.size();
  const auto& g = sim.settings().geom;
  char laser[64] = "";
  if (cfg.laser.enabled) std::snprintf(laser, sizeof laser, ", laser a0 = %.6g", sim.settings().laser.a0);
  notes.push_back(format_line("pic: %d x %d cells (dx = %.4g, dy = %.4g lambda), %s solver, %s, %zu particles in %zu species, "
                          "dt = %.4g lambda/c, %lld steps%s",
                          g.nx, g.ny, cfg.dx, cfg.dy, pic::solver_name(cfg.solver),
                          cfg.shape == pic::ShapeOrder::tsc ? "TSC" : "CIC", particles, sim.species().size(),
                          sim.settings().dt / (2 * pic::kPi), static_cast<long long>(pic::pic_steps(cfg)), laser));
  return notes;
}

int run_pic_command(const PicRunOptions& o) {
  if (o.restart_option->count() > 0)
    throw_input_error("--restart: a run continues from its run directory with --resume DIR (checkpoints are written on "
                      "a schedule, on SIGINT/SIGTERM, on a stop file and at the end)");
  const pic::PicFlags flags = flags_of(o);
  const bool printer = comm::world().rank() == 0;
  if (o.resume_option->count() > 0) {
    if (o.resume.empty()) throw_input_error("--resume: the directory is empty");
    if (!o.config.empty()) throw_input_error("--config: a resumed run reads its own deck.toml; leave --config out");
    return run_with_the_program_hooks(true, [&](const RunHooks& hooks) {
      RunHooks h = hooks;
      if (!printer) h = RunHooks{};
      h.resume_command = "nbody pic run --resume";
      return pic::resume_pic(o.resume, o.set, flags, h);
    });
  }
  if (o.config.empty()) throw_input_error("--config: a deck is needed (or --resume DIR)");
  pic::PicConfig cfg = once_on_every_rank([&] { return pic::read_pic_config(o.config, o.set, flags); });
  // Everything that can reject the input happens before anything is written.
  if (!cfg.out_dir.empty() && printer) {
    RunDirectoryLock::check_free(cfg.out_dir, "out");
    RunFiles::check_usable(cfg.out_dir, o.overwrite);
  }
  // parallel.ranks_y = "auto" scored once here (a pass over the cells), the shape kept for the run.
  const int asked_rows = cfg.ranks_y;  // (0: "auto")
  cfg.ranks_y = pic::block_rows(cfg, comm::world().size());
  // Under mpirun rank 0 builds the whole plasma (the first diagnostics and outputs), every other
  // rank only its block's cells (pic::rank_load_window). Each keeps its block; rank 0 prints.
  const std::optional<pic::CellWindow> window = pic::rank_load_window(cfg);
  // The memory the run will need, checked before anything is allocated.
  (void)once_on_every_rank([&] {
    pic::require_pic_memory(cfg);
    return 0;
  });
  pic::PicSimulation sim = pic::build_pic_simulation(cfg, true, window ? &*window : nullptr);
  const std::vector<std::string> notes = announcement(cfg, sim, asked_rows);
  return run_with_the_program_hooks(!cfg.out_dir.empty(), [&](const RunHooks& hooks) {
    RunHooks h = printer ? hooks : RunHooks{};
    if (!printer) h.stop_conditions = hooks.stop_conditions;
    return pic::run_pic(cfg, sim, h, o.overwrite ? ExistingRunFiles::replace : ExistingRunFiles::refuse, notes);
  });
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
  CLI::App* run = pic->add_subcommand(
      "run",
      "run a PIC simulation from a TOML deck into a run directory (deck.toml, run.log, diagnostics.csv, dumps, "
      "images, checkpoints); SIGINT, SIGTERM or a file DIR/stop makes it checkpoint and exit, and --resume DIR "
      "continues it with the same bits");
  run->add_option("--config", opts->config, "the deck (TOML)");
  run->add_option("--out", opts->out, "run directory (overrides output.dir); must be new or empty");
  opts->steps_option = run->add_option("--steps", opts->steps, "number of steps (replaces time.steps / time.t_end)");
  run->add_option("--set", opts->set, "override a key: table.key=value or species.N.key=value (repeatable)");
  auto* overwrite = run->add_flag("--overwrite", opts->overwrite, "reuse a non-empty --out directory");
  opts->resume_option = run->add_option("--resume", opts->resume,
                                        "continue the run in DIR from its newest checkpoint (--steps extends it)")
                            ->excludes(overwrite);
  opts->restart_option = run->add_option("--restart", opts->restart, "(replaced by --resume DIR)");
  CLI::App* check = pic->add_subcommand("check", "run the PIC validation suite and print the measured numbers");
  return {pic, [opts, run, check]() -> int {
            if (run->parsed()) return run_pic_command(*opts);
            if (check->parsed()) return check_pic_command();
            return 2;
          }};
}

}  // namespace nbody::cli
