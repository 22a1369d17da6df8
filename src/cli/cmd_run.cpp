// nbody run: a simulation from a configuration (or continued from a checkpoint), with
// diagnostics, snapshots, checkpoints and a summary.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>
#include <memory>
#include <optional>
#include <string_view>

#include "cli/child_process.hpp"
#include "cli/commands.hpp"
#include "cli/param_options.hpp"
#include "cli/progress.hpp"
#include "cli/run_frames.hpp"
#include "cli/run_hooks.hpp"
#include "cli/stop_signals.hpp"
#include "comm/communicator.hpp"
#include "comm/mpi_communicator.hpp"
#include "gravity/names.hpp"
#include "io/run_directory.hpp"
#include "nbody/error.hpp"
#include "nbody/run.hpp"

namespace nbody::cli {
namespace {

struct RunOptions {
  ParamOptions params;
  bool overwrite = false;
  std::string resume;
  CLI::Option* resume_option = nullptr;
  int gpus = 0;  // 0: not given
  std::vector<std::string> argv;
  FrameOptions frames;
};

// --gpus K: one rank per GPU of this node, started by mpirun (the program replaces itself with
// `mpirun -np K nbody run <the same arguments without --gpus>`). Returns only when there is
// nothing to start (K = 1, or already a rank of K); otherwise an error says what to do instead.
void start_ranks_for_gpus(const RunOptions& opts) {
  int launched = 0;
  if (comm::launched_by_mpi(&launched)) {
    const int size = comm::world().size();
    if (opts.gpus != size) {
      throw_input_error("--gpus: " + std::to_string(opts.gpus) + " asked, but mpirun started " +
                        std::to_string(size) + " ranks; under mpirun leave --gpus out (one GPU per rank)");
    }
    return;
  }
  if (opts.gpus == 1) return;
  if (!comm::mpi_available()) {
    throw_input_error("--gpus: this build of nbody has no MPI support (configure with -DNBODY_ENABLE_MPI=ON) to run "
                      "one rank per GPU");
  }
  const std::string mpirun = find_on_path("mpirun");
  if (mpirun.empty()) {
    throw_input_error("--gpus: mpirun is not on PATH; start the ranks yourself: mpirun -np " +
                      std::to_string(opts.gpus) + " nbody run ...");
  }
  std::vector<std::string> args = {mpirun, "-np", std::to_string(opts.gpus), "/proc/self/exe"};
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) args[3] = self.string();
  for (std::size_t i = 1; i < opts.argv.size(); ++i) {
    const std::string& a = opts.argv[i];
    if (a == "--gpus") {
      ++i;  // and its value
      continue;
    }
    if (a.rfind("--gpus=", 0) == 0) continue;
    args.push_back(a);
  }
  std::vector<char*> c_args;
  for (auto& a : args) c_args.push_back(a.data());
  c_args.push_back(nullptr);
  std::fflush(stdout);
  ::execv(mpirun.c_str(), c_args.data());
  throw_runtime_error("--gpus: could not start " + mpirun + ": " + std::strerror(errno));
}

// The program's defaults: the library's, with a checkpoint every 30 minutes of wall time.
RunConfig program_defaults() {
  RunConfig cfg;
  cfg.checkpoint_every_s = kDefaultCheckpointEverySeconds;
  return cfg;
}

// --steps and --t-end: both given is refused; --steps alone replaces a t_end of the base (a
// stored configuration, a --config file).
RunConfig resolve_length(const ParamOptions& params, RunConfig cfg) {
  if (params.given("steps") && params.given("t_end")) {
    throw_input_error("--t-end: give --steps or --t-end, not both (--t-end sets the steps)");
  }
  if (params.given("steps")) cfg.t_end = 0;
  return cfg;
}

// Flags that a run continued --from a checkpoint cannot apply: its bodies and its time are the
// checkpoint's. `base` is the checkpoint's configuration, `cfg` it with the flags and --config.
void refuse_what_from_cannot_apply(const ParamOptions& params, const RunConfig& base, const RunConfig& cfg) {
  const std::string from = "--from " + params.given_text("from");
  if (cfg.n != base.n) {
    const std::string what = params.given("n") ? "-n " + params.given_text("n") : "--config: n = " + std::to_string(cfg.n);
    throw_input_error(what + " and " + from + " conflict: a run continued from a checkpoint has the checkpoint's " +
                      std::to_string(base.n) + " bodies; leave -n out (to change N start a new run)");
  }
  if (params.given("start_time")) {
    throw_input_error("--start-time " + params.given_text("start_time") + " and " + from +
                      " conflict: a run continued from a checkpoint starts at the checkpoint's time; leave "
                      "--start-time out");
  }
}

// A new run's configuration (or a --from run's), and the lines to say first.
struct NewRun {
  RunConfig cfg;
  std::vector<std::string> notes;
};

NewRun prepare_new_run(const RunOptions& opts) {
  if (opts.params.given("from") && opts.params.given_text("from").empty()) {
    throw_input_error("--from: the path is empty");
  }
  // --from: the checkpoint's configuration is the base the flags change.
  const bool from = opts.params.given("from");
  const RunConfig base = from ? continuation_config(opts.params.given_text("from")) : program_defaults();
  NewRun run{opts.params.resolve(base), {}};
  if (from) refuse_what_from_cannot_apply(opts.params, base, run.cfg);
  // dt and softening the model's own where not given (a continued or resumed run keeps the
  // values it stored); before --t-end is turned into steps, which needs dt.
  if (!from) run.notes = apply_model_defaults(run.cfg, opts.params.given_keys());
  run.cfg = resolve_length(opts.params, run.cfg);
  return run;
}

// --gpus K: everything about the run that this process can check, checked before it starts K
// ranks under mpirun (whose failure would be K ranks' output and mpirun's): the values, the
// device, and a new run's --out directory.
void check_before_starting_ranks(const RunOptions& opts, const RunConfig& cfg, bool new_run) {
  validate(cfg);
  int launched = 0;
  if (new_run && !cfg.out.empty() && !comm::launched_by_mpi(&launched)) {  // (under mpirun rank 0 checks it)
    RunDirectoryLock::check_free(cfg.out, "out");
    RunDirectory::check_usable(cfg.out, opts.overwrite);
  }
  const std::string gpus = "--gpus " + std::to_string(opts.gpus);
  if (cfg.device == "cpu") {
    throw_input_error(gpus + " and --device cpu conflict: --gpus runs one rank per GPU (for CPU ranks: mpirun -np " +
                      std::to_string(opts.gpus) + " nbody run --device cpu ...)");
  }
  if (cfg.gravity == "reference") {
    throw_input_error(gpus + " and --gravity reference conflict: the float64 reference runs on the CPU only");
  }
  std::string why;
  if (!cuda_device_available(&why)) throw_input_error(gpus + ": no GPU to run on: " + why);
  if (opts.gpus > 1 && cfg.gravity == "tree") {
    throw_input_error(gpus + " and --gravity tree conflict: the GPU tree runs on one GPU in this version");
  }
}

int execute_resume(const RunOptions& opts) {
  // Everything that can reject the request happens before the directory is touched.
  ResumePoint point = find_resume_point(opts.resume);
  // The stored configuration with the flags (and --config file) given alongside --resume; the
  // library refuses a change a resumed run may not make.
  const RunConfig cfg = resolve_length(opts.params, opts.params.resolve(point.checkpoint.config));
  if (opts.gpus > 0) {
    check_before_starting_ranks(opts, cfg, false);
    start_ranks_for_gpus(opts);
  }
  const std::optional<FrameRequest> frames = frame_request(opts.frames, load_frame_request(point.directory));
  const std::filesystem::path dir = point.directory;
  return run_with_frames(true, frames, dir,
                         [&](const RunHooks& hooks) { return resume_run(std::move(point), cfg, hooks); });
}

int execute(const RunOptions& opts) {
  if (opts.resume_option->count() > 0 && opts.resume.empty()) throw_input_error("--resume: the directory is empty");
  if (!opts.resume.empty()) return execute_resume(opts);
  const NewRun run = prepare_new_run(opts);
  const std::optional<FrameRequest> frames = frame_request(opts.frames, std::nullopt);
  if (frames && run.cfg.out.empty())
    throw_input_error("--render-every: the frames go into the run directory; give --out DIR");
  if (opts.gpus > 0) {
    check_before_starting_ranks(opts, run.cfg, true);
    start_ranks_for_gpus(opts);  // the ranks say the notes
  }
  if (comm::world().rank() == 0) {  // under mpirun every rank resolves the defaults; one says so
    for (const std::string& note : run.notes) std::printf("%s\n", note.c_str());
  }
  const auto existing = opts.overwrite ? ExistingRunFiles::replace : ExistingRunFiles::refuse;
  return run_with_frames(!run.cfg.out.empty(), frames, run.cfg.out,
                         [&](const RunHooks& hooks) { return run_simulation(run.cfg, hooks, existing); });
}

}  // namespace

Command add_run_command(CLI::App& parent, const std::vector<std::string>& argv) {
  auto* app = parent.add_subcommand(
      "run",
      "Run a simulation. With --ic file:PATH the initial conditions (and n) come from a .hdf5/.h5, "
      ".tipsy/.std/.bin or .csv file (in the run's --units). With --out DIR the run writes config.toml, "
      "model.toml, run.log, diagnostics.csv, lagrangian_radii.csv, snapshots and restart checkpoints there; "
      "SIGINT, SIGTERM or a file DIR/stop makes it checkpoint and exit, and --resume DIR continues it with the "
      "same bits (a checkpoint is written every --checkpoint-every-s seconds, 30 minutes by default, so a killed run "
      "loses at most that; a run killed before its first checkpoint starts again from step 0). --from DIR|FILE.ckpt "
      "starts a new run from a checkpoint with changed physics (integrator, dt, softening, ...).");
  auto opts = std::make_shared<RunOptions>();
  opts->argv = argv;
  opts->params.add_to(*app, program_defaults());
  auto* overwrite = app->add_flag("--overwrite", opts->overwrite, "reuse a non-empty --out directory");
  opts->resume_option =
      app->add_option("--resume", opts->resume,
                      "continue the run in DIR from its latest checkpoint (flags may change only --steps, --t-end "
                      "and the output and checkpoint cadence; to change the physics use --from DIR --out NEW)")
          ->type_name("DIR")
          ->excludes(overwrite);
  app->add_option("--gpus", opts->gpus,
                  "run on K GPUs of this node, one rank each: nbody starts itself under mpirun -np K (which must "
                  "be on PATH); same bits as one GPU. Under mpirun (or srun) leave it out: every rank takes the GPU "
                  "of its local rank")
      ->type_name("K")
      ->check(CLI::Range(1, 1024));
  opts->frames.add_to(*app);
  return {app, [opts]() { return execute(*opts); }};
}

}  // namespace nbody::cli
