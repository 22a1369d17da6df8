#pragma once
// When a run writes diagnostics, snapshots and checkpoints: a function of the step and the
// configuration only, so a resumed run keeps the schedule of the run it continues.
#include <cstdint>

#include "nbody/config.hpp"

namespace nbody::runloop {

class OutputSchedule {
 public:
  explicit OutputSchedule(const RunConfig& cfg) : cfg_(cfg) {}

  // Step 0 and every diag_every steps (first and last only when 0; the last is not scheduled
  // but added at the end of the run).
  [[nodiscard]] bool diagnostics_at(std::int64_t step) const { return every(step, cfg_.diag_every); }
  // Step 0, every snapshot_every steps, and the first step at or after each multiple of
  // snapshot_every_t in simulation time.
  [[nodiscard]] bool snapshot_at(std::int64_t step) const {
    return every(step, cfg_.snapshot_every) ||
           (step > 0 && cfg_.snapshot_every_t > 0 && next_time_output(step - 1) == step);
  }
  // Every checkpoint_every steps (not step 0).
  [[nodiscard]] bool checkpoint_at(std::int64_t step) const {
    return step > 0 && cfg_.checkpoint_every > 0 && step % cfg_.checkpoint_every == 0;
  }

  // The first step after `step` at which each is due, at most cfg.steps (cfg.steps: none before).
  [[nodiscard]] std::int64_t next_diagnostics(std::int64_t step) const;
  [[nodiscard]] std::int64_t next_snapshot(std::int64_t step) const;
  [[nodiscard]] std::int64_t next_checkpoint(std::int64_t step) const;
  // The first step after `step` at which anything above is due, at most cfg.steps.
  [[nodiscard]] std::int64_t next_event(std::int64_t step) const;

 private:
  static bool every(std::int64_t step, std::int64_t k) { return step == 0 || (k > 0 && step % k == 0); }
  // The step of the k-th time output: the first whose time step*dt reaches k*snapshot_every_t
  // (a relative 1e-12 absorbs the rounding of the division, so 0.1 / 0.01 gives 10, not 11).
  [[nodiscard]] std::int64_t time_output_step(std::int64_t k) const;
  // The first time-output step after `step`.
  [[nodiscard]] std::int64_t next_time_output(std::int64_t step) const;

  const RunConfig& cfg_;
};

}  // namespace nbody::runloop
