// nbody run: a simulation from a configuration (or continued from a checkpoint), with
// diagnostics, snapshots, checkpoints and a summary.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string_view>

#include "cli/commands.hpp"
#include "cli/param_options.hpp"
#include "cli/progress.hpp"
#include "cli/stop_signals.hpp"
#include "nbody/error.hpp"
#include "nbody/run.hpp"

namespace nbody::cli {
namespace {

struct RunOptions {
  ParamOptions params;
  bool overwrite = false;
  std::string resume;
  CLI::Option* resume_option = nullptr;
};

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

// Lines for the user on stdout (run.log, written by the library, has them too).
class StdoutLogger final : public Logger {
 public:
  void info(std::string_view line) override {
    std::printf("%.*s\n", static_cast<int>(line.size()), line.data());
    std::fflush(stdout);
  }
  // On a terminal the progress line shows the same; a log file gets the heartbeat.
  void heartbeat(std::string_view line) override {
    if (!to_terminal_) info(line);
  }

 private:
  bool to_terminal_ = ::isatty(::fileno(stdout)) != 0;
};

// The program's side of a run: messages on stdout, the progress line on a terminal and, for a
// run with a directory to checkpoint in, SIGINT and SIGTERM as a stop (without one they end the
// process as usual).
template <class Run>
int run_with_the_program_hooks(bool has_directory, Run&& run) {
  StdoutLogger logger;
  ProgressLine progress;
  std::optional<StopSignals> signals;
  RunHooks hooks;
  hooks.logger = &logger;
  hooks.progress = &progress;
  if (has_directory) hooks.stop_conditions.push_back(&signals.emplace());
  (void)run(hooks);
  return 0;
}

int execute_resume(const RunOptions& opts) {
  // Everything that can reject the request happens before the directory is touched.
  ResumePoint point = find_resume_point(opts.resume);
  // The stored configuration with the flags (and --config file) given alongside --resume; the
  // library refuses a change a resumed run may not make.
  const RunConfig cfg = resolve_length(opts.params, opts.params.resolve(point.checkpoint.config));
  return run_with_the_program_hooks(true,
                                    [&](const RunHooks& hooks) { return resume_run(std::move(point), cfg, hooks); });
}

int execute(const RunOptions& opts) {
  if (opts.resume_option->count() > 0 && opts.resume.empty()) throw_input_error("--resume: the directory is empty");
  if (!opts.resume.empty()) return execute_resume(opts);
  if (opts.params.given("from") && opts.params.given_text("from").empty()) {
    throw_input_error("--from: the path is empty");
  }
  // --from: the checkpoint's configuration is the base the flags change.
  const bool from = opts.params.given("from");
  RunConfig cfg = opts.params.resolve(from ? continuation_config(opts.params.given_text("from")) : program_defaults());
  // dt and softening the model's own where not given (a continued or resumed run keeps the
  // values it stored); before --t-end is turned into steps, which needs dt.
  if (!from) {
    for (const std::string& note : apply_model_defaults(cfg, opts.params.given_keys())) std::printf("%s\n", note.c_str());
  }
  cfg = resolve_length(opts.params, cfg);
  const auto existing = opts.overwrite ? ExistingRunFiles::replace : ExistingRunFiles::refuse;
  return run_with_the_program_hooks(!cfg.out.empty(),
                                    [&](const RunHooks& hooks) { return run_simulation(cfg, hooks, existing); });
}

}  // namespace

Command add_run_command(CLI::App& parent) {
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
  opts->params.add_to(*app, program_defaults());
  auto* overwrite = app->add_flag("--overwrite", opts->overwrite, "reuse a non-empty --out directory");
  opts->resume_option =
      app->add_option("--resume", opts->resume,
                      "continue the run in DIR from its latest checkpoint (flags may change only --steps, --t-end "
                      "and the output and checkpoint cadence; to change the physics use --from DIR --out NEW)")
          ->type_name("DIR")
          ->excludes(overwrite);
  return {app, [opts]() { return execute(*opts); }};
}

}  // namespace nbody::cli
