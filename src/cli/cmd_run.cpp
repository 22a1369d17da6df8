// nbody run: a simulation from a configuration (or continued from a checkpoint), with
// diagnostics, snapshots, checkpoints and a summary.
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
};

// Lines for the user on stdout (run.log, written by the library, has them too).
class StdoutLogger final : public Logger {
 public:
  void info(std::string_view line) override {
    std::printf("%.*s\n", static_cast<int>(line.size()), line.data());
    std::fflush(stdout);
  }
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
  const RunConfig cfg = opts.params.resolve(point.checkpoint.config);
  return run_with_the_program_hooks(true,
                                    [&](const RunHooks& hooks) { return resume_run(std::move(point), cfg, hooks); });
}

int execute(const RunOptions& opts) {
  if (!opts.resume.empty()) return execute_resume(opts);
  RunConfig cfg = opts.params.resolve(RunConfig{});
  // dt and softening the model's own where not given (a resumed run keeps its stored values).
  apply_model_defaults(cfg, opts.params.given_keys());
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
      "same bits.");
  auto opts = std::make_shared<RunOptions>();
  opts->params.add_to(*app, RunConfig{});
  auto* overwrite = app->add_flag("--overwrite", opts->overwrite, "reuse a non-empty --out directory");
  app->add_option("--resume", opts->resume,
                  "continue the run in DIR from its latest checkpoint (flags may change only --steps and the "
                  "output and checkpoint cadence)")
      ->type_name("DIR")
      ->excludes(overwrite);
  return {app, [opts]() { return execute(*opts); }};
}

}  // namespace nbody::cli
