// The entry points of the run loop: a new run from a configuration, a run continued from the
// newest checkpoint of its directory.
#include "nbody/run.hpp"

#include <optional>
#include <utility>

#include "core/strings.hpp"
#include "core/units.hpp"
#include "io/run_directory.hpp"
#include "nbody/error.hpp"
#include "run/run_loop.hpp"

namespace nbody {

RunResult run_simulation(RunConfig cfg, const RunHooks& hooks, ExistingRunFiles existing) {
  validate(cfg);
  if (!cfg.out.empty()) RunDirectory::check_usable(cfg.out, existing == ExistingRunFiles::replace);
  // An explicit G wins over the unit system's; the resolved value is what config.toml, model.toml
  // and checkpoints record, so a resumed run keeps it whatever the unit system's G.
  cfg.gravitational_constant = effective_gravitational_constant(cfg);

  // Everything that can reject the input (memory included) happens before any file is written.
  auto sim = Simulation::create(cfg);
  cfg.device = sim->config().device;  // resolved: never "auto"
  cfg.gravity = sim->config().gravity;
  cfg.n = static_cast<std::int64_t>(sim->size());

  std::optional<RunDirectory> dir;
  if (!cfg.out.empty()) dir.emplace(cfg.out, cfg);
  return runloop::run_loop(*sim, cfg, dir ? &*dir : nullptr, nullptr, hooks);
}

ResumePoint find_resume_point(const std::filesystem::path& dir) {
  auto found = RunDirectory::latest_checkpoint(dir);
  return {dir, std::move(found.file), std::move(found.checkpoint), std::move(found.skipped)};
}

namespace {

// The configuration a resumed run goes on with: `requested` may differ from the stored one only
// in the parameters marked may_change_on_resume (how long it runs and how often it writes). That
// leaves out the parameters of the initial conditions (units, mass_scale, ...): they cannot act
// on a resumed run, whose state comes from the checkpoint, but config.toml, model.toml and the
// snapshots' /Parameters and /Units must go on describing the run the state was drawn for, and
// units also gives the meaning of every number in the state (and G).
RunConfig resumed_config(const ResumePoint& point, RunConfig requested) {
  const RunConfig& stored = point.checkpoint.config;
  if (!requested.out.empty() && requested.out != stored.out && requested.out != point.directory) {
    throw_input_error("--out: a resumed run writes into its own directory (" + point.directory.string() +
                      "); leave --out out");
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
  if (requested.steps < point.checkpoint.step) {
    throw_input_error("--steps: " + std::to_string(requested.steps) + " is before the checkpoint's step " +
                      std::to_string(point.checkpoint.step));
  }
  return requested;
}

}  // namespace

RunResult resume_run(ResumePoint point, const RunConfig& requested, const RunHooks& hooks) {
  // Everything that can reject the request happens before the directory is touched.
  const RunConfig cfg = resumed_config(point, requested);
  Checkpoint& ck = point.checkpoint;
  ck.config = cfg;
  auto sim = Simulation::create_from_checkpoint(ck);
  RunDirectory dir(point.directory, cfg, ck.progress);
  for (const auto& why : point.skipped) {
    const std::string line = "skipped a checkpoint that did not read back: " + why;
    if (hooks.logger != nullptr) hooks.logger->detail(line);
    dir.log(line);
  }
  return runloop::run_loop(*sim, cfg, &dir, &ck.progress, hooks);
}

}  // namespace nbody
