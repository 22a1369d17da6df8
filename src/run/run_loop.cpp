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

// The caller's logger, and run.log when the run has a directory.
class RunLog final : public Logger {
 public:
  RunLog(Logger* caller, RunDirectory* dir) : caller_(caller), dir_(dir) {}
  void info(std::string_view line) override {
    if (caller_ != nullptr) caller_->info(line);
    if (dir_ != nullptr) dir_->log(line);
  }
  void detail(std::string_view line) override {
    if (caller_ != nullptr) caller_->detail(line);
    if (dir_ != nullptr) dir_->log(line);
  }
  void heartbeat(std::string_view line) override {
    if (caller_ != nullptr) caller_->heartbeat(line);
    if (dir_ != nullptr) dir_->log(line);
  }

 private:
  Logger* caller_;
  RunDirectory* dir_;
};

// The outputs due at the current step, in order, sharing one host copy of the particles.
void write_due(const std::vector<Output*>& outputs, RunState& state) {
  for (Output* o : outputs) {
    if (o->due(state)) o->write(state);
  }
  state.end_of_event();
}

// The first condition that asks to stop, with its reason.
StopCondition* stop_requested(const std::vector<StopCondition*>& conditions, std::optional<std::string>& reason) {
  for (StopCondition* c : conditions) {
    if ((reason = c->requested())) return c;
  }
  return nullptr;
}

// The next chunk's length: to the next output event, cut to about `seconds` of steps at the
// measured rate (one step while nothing has been measured), at least one step.
std::int64_t chunk_length(std::int64_t to_next_event, double seconds, double seconds_per_step) {
  if (seconds_per_step <= 0) return 1;
  const double budget = std::min(double(to_next_event), seconds / seconds_per_step);
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(budget), 1, to_next_event);
}

// "step S of N (t = T): R steps/s, ETA D"
std::string heartbeat_line(std::int64_t step, std::int64_t last, double time, double steps_per_s) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "step %lld of %lld (t = %.6g): %.4g steps/s, ETA %s", static_cast<long long>(step),
                static_cast<long long>(last), time, steps_per_s,
                steps_per_s > 0 ? format_duration(double(last - step) / steps_per_s).c_str() : "unknown");
  return buf;
}

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
  RunLog log(hooks.logger, dir);
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
  if (resumed != nullptr) {
    state.set_initial_diagnostics(resumed->initial);
  } else {
    state.set_initial_diagnostics(state.diagnostics());
    write_due(outputs, state);
  }
  result.initial = state.initial_diagnostics();

  if (hooks.progress != nullptr) hooks.progress->started(result.first_step, cfg.steps);
  double seconds_per_step = 0;
  StopCondition* stopped_by = nullptr;
  const auto wall_start = Clock::now();
  auto last_heartbeat = wall_start;
  const std::int64_t heartbeat_from = sim.step_count();
  for (;;) {
    std::int64_t chunk = 0;  // 0: the end (told to the other ranks)
    if (sim.step_count() < cfg.steps && !(stopped_by = stop_requested(stop_conditions, result.stopped_by))) {
      const std::int64_t s = sim.step_count();
      std::int64_t next = cfg.steps;
      for (const Output* o : outputs) next = std::min(next, o->next_step_due(s));
      chunk = chunk_length(std::max(next, s + 1) - s, hooks.chunk_seconds, seconds_per_step);
    }
    if (world.size() > 1) (void)world.broadcast_value(chunk, 0);
    if (chunk == 0) break;

    const auto t0 = Clock::now();
    const std::uint64_t i0 = sim.interactions();
    sim.advance(chunk);
    sim.synchronize();
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    result.stepping_seconds += seconds;
    result.interactions += sim.interactions() - i0;
    ++result.chunks;
    seconds_per_step = seconds / double(chunk);
    if (hooks.progress != nullptr) hooks.progress->advanced(sim.step_count(), chunk, seconds);
    if (hooks.heartbeat_seconds > 0 &&
        std::chrono::duration<double>(Clock::now() - last_heartbeat).count() >= hooks.heartbeat_seconds) {
      last_heartbeat = Clock::now();
      const double wall = std::chrono::duration<double>(last_heartbeat - wall_start).count();
      const double rate = wall > 0 ? double(sim.step_count() - heartbeat_from) / wall : 0;
      log.heartbeat(heartbeat_line(sim.step_count(), cfg.steps, sim.time(), rate));
    }
    write_due(outputs, state);
  }
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - wall_start).count();
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
