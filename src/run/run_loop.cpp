#include "run/run_loop.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "nbody/error.hpp"
#include "run/collective_snapshot.hpp"
#include "run/drive.hpp"
#include "run/run_log.hpp"
#include "run/output_schedule.hpp"
#include "run/outputs.hpp"
#include "run/summary.hpp"

namespace nbody {

const Particles<double>& RunState::particles() {
  if (particles_step_ != step()) {
    particles_ = sim_.particles();
    particles_step_ = step();
  }
  return particles_;
}

const Diagnostics& RunState::diagnostics() {
  if (!diagnostics_ || diagnostics_->step != step()) diagnostics_ = sim_.diagnostics();
  return *diagnostics_;
}

namespace runloop {
namespace {

using Clock = std::chrono::steady_clock;

// Gravity's Simulation as the loop steps it, counting the pairs it evaluates.
class SimulationStepper final : public Stepper {
 public:
  explicit SimulationStepper(Simulation& sim) : sim_(sim) {}
  [[nodiscard]] std::int64_t step_count() const override { return sim_.step_count(); }
  [[nodiscard]] double time() const override { return sim_.time(); }
  void advance(std::int64_t steps) override {
    const std::uint64_t i0 = sim_.interactions();
    sim_.advance(steps);
    sim_.synchronize();
    interactions += sim_.interactions() - i0;
  }
  std::uint64_t interactions = 0;

 private:
  Simulation& sim_;
};

}  // namespace

namespace {

// Over several ranks every rank steps its copy of the state, and only rank 0 has the directory,
// the caller's hooks and outputs. Rank 0 decides each chunk (its outputs, stop conditions and
// clock) and broadcasts its length, 0 for the end, so every rank makes the same force passes
// (each one a collective) and stops at the same step.
RunResult follow_rank0(Simulation& sim, comm::Communicator& world) {
  RunResult result;
  result.first_step = sim.step_count();
  const auto wall_start = Clock::now();
  // Rank 0's outputs come after its broadcast, and a final snapshot after the last chunk: the
  // signals of collective snapshots (run/collective_snapshot.hpp) come until kSignalOutputsDone.
  bool stepping = true;
  for (;;) {
    const auto chunk = world.broadcast_value<std::int64_t>(0, 0);
    if (chunk == kSignalSnapshot) {
      follow_collective_snapshot(world, sim.particles());
      continue;
    }
    if (chunk == kSignalOutputsDone) break;
    if (chunk <= 0) {
      stepping = false;
      continue;
    }
    if (!stepping) throw_runtime_error("run loop: rank 0 asked for steps after the end of the run");
    const std::uint64_t i0 = sim.interactions();
    const auto t0 = Clock::now();
    sim.advance(chunk);
    sim.synchronize();
    result.stepping_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    result.interactions += sim.interactions() - i0;
    ++result.chunks;
  }
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - wall_start).count();
  result.last_step = sim.step_count();
  result.time = sim.time();
  return result;
}

}  // namespace

RunResult run_loop(Simulation& sim, const RunConfig& cfg, RunDirectory* dir, const RunProgress* resumed,
                   const RunHooks& hooks, const std::vector<std::string>& notes) {
  comm::Communicator& world = comm::world();
  if (world.rank() != 0) return follow_rank0(sim, world);
  RunLog log(hooks.logger, dir != nullptr ? [dir](std::string_view line) { dir->log(line); } : RunLog::Record());
  const OutputSchedule schedule(cfg);
  std::optional<DiagnosticsOutput> diagnostics;
  std::optional<SnapshotOutput> snapshots;
  std::optional<CheckpointOutput> checkpoints;
  std::optional<StopFile> stop_file;
  std::vector<Output*> outputs;
  if (dir != nullptr) outputs = {&diagnostics.emplace(schedule, *dir, resumed), &snapshots.emplace(schedule, *dir)};
  outputs.insert(outputs.end(), hooks.outputs.begin(), hooks.outputs.end());
  if (dir != nullptr) {
    const std::vector<const Output*> recorded(outputs.begin(), outputs.end());
    outputs.push_back(&checkpoints.emplace(schedule, *dir, recorded, resumed != nullptr ? sim.step_count() : -1));
  }
  std::vector<StopCondition*> stop_conditions = hooks.stop_conditions;
  if (dir != nullptr) stop_conditions.push_back(&stop_file.emplace(*dir));

  for (const auto& line : notes) log.info(line);
  if (hooks.announce) {
    const std::string resumed_from = resumed != nullptr && dir != nullptr ? dir->path().string() : std::string();
    for (const auto& line : announcement(sim, cfg, resumed_from)) log.info(line);
  }
  RunState state(sim, cfg, log);
  RunResult result;
  result.first_step = sim.step_count();
  if (dir != nullptr) result.directory = dir->path();
  DriveSettings settings;
  settings.last_step = cfg.steps;
  settings.chunk_seconds = hooks.chunk_seconds;
  settings.heartbeat_seconds = hooks.heartbeat_seconds;
  settings.progress = hooks.progress;
  if (world.size() > 1) settings.agree = [&world](std::int64_t v) { return world.broadcast_value(v, 0); };
  if (resumed != nullptr) {
    state.set_initial_diagnostics(resumed->initial);
  } else {
    state.set_initial_diagnostics(state.diagnostics());
    write_due(outputs, state, settings);
  }
  result.initial = state.initial_diagnostics();

  if (hooks.progress != nullptr) hooks.progress->started(result.first_step, cfg.steps);
  const Simulation::BlockStepCounts blocks_before = sim.block_step_counts();
  SimulationStepper stepper(sim);
  const Driven driven = drive(stepper, state, outputs, stop_conditions, log, settings);
  StopCondition* stopped_by = driven.stopped_by;
  result.stopped_by = driven.reason;
  result.wall_seconds = driven.wall_seconds;
  result.stepping_seconds = driven.stepping_seconds;
  result.chunks = driven.chunks;
  result.interactions = stepper.interactions;
  const Simulation::BlockStepCounts blocks_after = sim.block_step_counts();
  result.block_steps = {blocks_after.block_steps - blocks_before.block_steps, blocks_after.active - blocks_before.active,
                        blocks_after.device_loops - blocks_before.device_loops};
  result.bodies = static_cast<std::int64_t>(sim.size());
  if (hooks.progress != nullptr) hooks.progress->ended();

  const RunEnd how = stopped_by != nullptr ? RunEnd::stopped : RunEnd::completed;
  for (auto o = outputs.rbegin(); o != outputs.rend(); ++o) (*o)->finish(state, how);
  if (world.size() > 1) (void)world.broadcast_value(kSignalOutputsDone, 0);
  result.last_step = sim.step_count();
  result.time = sim.time();
  if (dir != nullptr) result.snapshots = dir->snapshots_written();
  if (stopped_by != nullptr) {
    stopped_by->acknowledge();
    log.info(stop_message(result, cfg, hooks.resume_command));
  } else if (hooks.announce) {
    result.final = state.diagnostics();
    std::optional<RadiiSummary> radii;
    if (diagnostics) radii = RadiiSummary{diagnostics->initial_radii(), diagnostics->radii()};
    for (const auto& line : summary(result, radii ? &*radii : nullptr)) log.info(line);
  }
  state.end_of_event();
  return result;
}

}  // namespace runloop
}  // namespace nbody
