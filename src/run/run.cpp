// The entry points of the run loop: a new run from a configuration, a run continued from the
// newest checkpoint of its directory.
#include "nbody/run.hpp"

#include <optional>
#include <utility>

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

RunResult resume_run(ResumePoint point, const RunConfig& cfg, const RunHooks& hooks) {
  // Everything that can reject the request happens before the directory is touched.
  Checkpoint& ck = point.checkpoint;
  if (cfg.steps < ck.step) {
    throw_input_error("resume: " + std::to_string(cfg.steps) + " steps is before the checkpoint's step " +
                      std::to_string(ck.step));
  }
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
