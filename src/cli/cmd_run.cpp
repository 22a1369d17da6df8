// nbody run: a simulation from a configuration (or continued from a checkpoint), with
// diagnostics, snapshots, checkpoints and a summary.
#include <memory>
#include <optional>
#include <string_view>

#include "cli/commands.hpp"
#include "cli/param_options.hpp"
#include "cli/run_loop.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "io/run_directory.hpp"
#include "nbody/error.hpp"
#include "nbody/simulation.hpp"

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

int execute_resume(const RunOptions& opts) {
  // Everything that can reject the request happens before the directory is touched.
  auto found = RunDirectory::latest_checkpoint(opts.resume);
  Checkpoint& ck = found.checkpoint;
  const RunConfig cfg = resume_config(opts, ck.config, ck.step);
  ck.config = cfg;
  auto sim = Simulation::create_from_checkpoint(ck);
  RunDirectory dir(opts.resume, cfg, ck.progress);
  for (const auto& why : found.skipped) dir.log("skipped a checkpoint that did not read back: " + why);
  return run_loop(*sim, cfg, &dir, &ck.progress);
}

int execute(const RunOptions& opts) {
  if (!opts.resume.empty()) return execute_resume(opts);
  RunConfig cfg = opts.params.resolve(RunConfig{});
  validate(cfg);
  if (!cfg.out.empty()) RunDirectory::check_usable(cfg.out, opts.overwrite);
  // An explicit G wins over the unit system's; the resolved value is what config.toml, model.toml
  // and checkpoints record, so a resumed run keeps it whatever the unit system's G.
  cfg.gravitational_constant = effective_gravitational_constant(cfg);

  // Everything that can reject the input (memory included) happens before any file is written.
  auto sim = Simulation::create(cfg);
  set_param_from_text(cfg, *find_run_param("backend"), sim->backend_name(), "backend");
  cfg.n = static_cast<std::int64_t>(sim->size());

  std::optional<RunDirectory> dir;
  if (!cfg.out.empty()) dir.emplace(cfg.out, cfg);
  return run_loop(*sim, cfg, dir ? &*dir : nullptr, nullptr);
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
