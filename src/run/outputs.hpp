#pragma once
// The outputs of a run directory, on the schedule of the run's configuration:
//   DiagnosticsOutput  a row of diagnostics.csv and of lagrangian_radii.csv per diagnostics step
//   SnapshotOutput     snapshot_NNN.<ext>
//   CheckpointOutput   checkpoint_<step>.ckpt on its step or wall-clock schedule, on a stop and at
//                      the end; it must come after every output whose progress it records
// and StopFile, the `stop` file of a run directory as a stop condition.
#include <array>
#include <chrono>
#include <cstdint>
#include <vector>

#include "io/run_directory.hpp"
#include "nbody/run.hpp"
#include "run/output_schedule.hpp"
#include "run/stop_file.hpp"

namespace nbody::runloop {

class DiagnosticsOutput final : public Output {
 public:
  // `resumed`: the progress of the checkpoint a resumed run starts from (null for a new run).
  DiagnosticsOutput(const OutputSchedule& schedule, RunDirectory& dir, const RunProgress* resumed);

  [[nodiscard]] std::int64_t next_step_due(std::int64_t step) const override;
  [[nodiscard]] bool due(RunState& state) override;
  void write(RunState& state) override;
  // Completed: the end-of-run row (when the last step is not on the schedule) and the radii of
  // the last step for the summary.
  void finish(RunState& state, RunEnd how) override;
  void record_progress(RunProgress& progress) const override;

  [[nodiscard]] const std::array<double, 7>& initial_radii() const noexcept { return initial_radii_; }
  // The Lagrangian radii of the last row written (of the last step after finish).
  [[nodiscard]] const std::array<double, 7>& radii() const noexcept { return radii_; }

 private:
  const OutputSchedule& schedule_;
  RunDirectory& dir_;
  bool have_initial_radii_ = false;
  std::array<double, 7> initial_radii_{}, radii_{};
  std::int64_t radii_step_ = -1;
};

class SnapshotOutput final : public Output {
 public:
  SnapshotOutput(const OutputSchedule& schedule, RunDirectory& dir) : schedule_(schedule), dir_(dir) {}

  [[nodiscard]] std::int64_t next_step_due(std::int64_t step) const override { return schedule_.next_snapshot(step); }
  [[nodiscard]] bool due(RunState& state) override { return schedule_.snapshot_at(state.step()); }
  void write(RunState& state) override;
  // Completed: a snapshot of the last step when it is not on the schedule.
  void finish(RunState& state, RunEnd how) override;
  void record_progress(RunProgress& progress) const override;

 private:
  const OutputSchedule& schedule_;
  RunDirectory& dir_;
};

class CheckpointOutput final : public Output {
 public:
  // `recorded`: the outputs whose progress a checkpoint records (those before it);
  // `resumed_at`: the step of the checkpoint a resumed run starts from (-1 for a new run).
  CheckpointOutput(const OutputSchedule& schedule, RunDirectory& dir, std::vector<const Output*> recorded,
                   std::int64_t resumed_at);

  [[nodiscard]] std::int64_t next_step_due(std::int64_t step) const override { return schedule_.next_checkpoint(step); }
  // On the step schedule, or when checkpoint_every_s has passed since the last one (never at step 0).
  [[nodiscard]] bool due(RunState& state) override;
  void write(RunState& state) override;
  // Stopped: a checkpoint unless this run wrote one at this step. Completed: a checkpoint unless
  // there is one at this step, so the run can be extended with a resume and more steps.
  void finish(RunState& state, RunEnd how) override;

 private:
  using Clock = std::chrono::steady_clock;
  const OutputSchedule& schedule_;
  RunDirectory& dir_;
  std::vector<const Output*> recorded_;
  std::int64_t last_step_;        // of the newest checkpoint in the directory
  std::int64_t written_at_ = -1;  // of the newest one this run wrote
  Clock::time_point last_wall_;
};

// "the stop file" (run/stop_file.hpp) of a gravity run directory.
using StopFile = StopFileOf<RunDirectory>;

}  // namespace nbody::runloop
