#include <utility>

#include "run/outputs.hpp"

namespace nbody::runloop {

CheckpointOutput::CheckpointOutput(const OutputSchedule& schedule, RunDirectory& dir,
                                   std::vector<const Output*> recorded, std::int64_t resumed_at)
    : schedule_(schedule),
      dir_(dir),
      recorded_(std::move(recorded)),
      last_step_(resumed_at),
      last_wall_(Clock::now()) {}

bool CheckpointOutput::due(RunState& state) {
  const std::int64_t step = state.step();
  if (step == 0) return false;
  const double every_s = state.config().checkpoint_every_s;
  return schedule_.checkpoint_at(step) ||
         (every_s > 0 && std::chrono::duration<double>(Clock::now() - last_wall_).count() >= every_s);
}

void CheckpointOutput::write(RunState& state) {
  Checkpoint ck = state.simulation().checkpoint();
  ck.config = state.config();
  ck.run_id = dir_.run_id();
  ck.progress.initial = state.initial_diagnostics();
  for (const Output* o : recorded_) o->record_progress(ck.progress);
  const auto file = dir_.write_checkpoint(ck);
  last_step_ = written_at_ = ck.step;
  last_wall_ = Clock::now();
  state.log().detail("checkpoint at step " + std::to_string(ck.step) + ": " + file.filename().string());
}

void CheckpointOutput::finish(RunState& state, RunEnd how) {
  const std::int64_t step = state.step();
  if ((how == RunEnd::stopped && written_at_ != step) || (how == RunEnd::completed && last_step_ != step)) {
    write(state);
  }
}

}  // namespace nbody::runloop
