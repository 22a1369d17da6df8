// nbody run: a simulation from a configuration (or continued from a checkpoint), with
// diagnostics, snapshots, checkpoints and a summary.
#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <optional>
#include <string_view>

#include "cli/commands.hpp"
#include "cli/param_options.hpp"
#include "cli/progress.hpp"
#include "cli/stop_signals.hpp"
#include "core/strings.hpp"
#include "nbody/error.hpp"
#include "nbody/run.hpp"

namespace nbody::cli {
namespace {

struct RunOptions {
  ParamOptions params;
  bool overwrite = false;
  std::string resume;
};

// The stored configuration with the flags (and --config file) given alongside --resume. A resumed
// run may change only the parameters marked may_change_on_resume (how long it runs and how often
// it writes). That leaves out the parameters of the initial conditions (units, mass_scale, ...):
// they cannot act on a resumed run, whose state comes from the checkpoint, but config.toml,
// model.toml and the snapshots' /Parameters and /Units must go on describing the run the state
// was drawn for, and units also gives the meaning of every number in the state (and G).
RunConfig resume_config(const RunOptions& opts, const RunConfig& stored, std::int64_t step) {
  RunConfig requested = opts.params.resolve(stored);
  if (!requested.out.empty() && requested.out != stored.out && requested.out != opts.resume) {
    throw_input_error("--out: a resumed run writes into its own directory (" + opts.resume + "); leave --out out");
  }
  requested.out = stored.out;
  std::vector<std::string> may;
  for (const auto& spec : run_params()) {
    if (spec.may_change_on_resume) may.push_back(spec.flag());
  }
  for (const auto& spec : run_params()) {
    const std::string was = param_value_text(stored, spec), now = param_value_text(requested, spec);
    if (was == now || spec.may_change_on_resume) continue;
    throw_input_error(spec.flag() + ": differs from the run being resumed (" + was + " there, " + now +
                      " here); a resumed run may only change " + join(may));
  }
  if (requested.steps < step) {
    throw_input_error("--steps: " + std::to_string(requested.steps) + " is before the checkpoint's step " +
                      std::to_string(step));
  }
  return requested;
}

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
  const RunConfig cfg = resume_config(opts, point.checkpoint.config, point.checkpoint.step);
  return run_with_the_program_hooks(true,
                                    [&](const RunHooks& hooks) { return resume_run(std::move(point), cfg, hooks); });
}

int execute(const RunOptions& opts) {
  if (!opts.resume.empty()) return execute_resume(opts);
  const RunConfig cfg = opts.params.resolve(RunConfig{});
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
