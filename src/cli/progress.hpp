#pragma once
#include <chrono>
#include <cstdint>

#include "nbody/run.hpp"

namespace nbody::cli {

// "step 1200/5000 (24%)  843 steps/s  ETA 4.5 s" on one line of a terminal, redrawn at most a
// few times a second; silent when stderr is not a terminal.
class ProgressLine final : public ProgressObserver {
 public:
  ProgressLine();
  // first_step: where the run starts (a resumed run does not start at 0).
  void started(std::int64_t first_step, std::int64_t last_step) override;
  void advanced(std::int64_t step, std::int64_t steps, double seconds) override;
  void ended() override;  // clears the line
  [[nodiscard]] bool enabled() const noexcept { return enabled_; }

 private:
  using Clock = std::chrono::steady_clock;
  std::int64_t total_ = 0;
  std::int64_t first_ = 0;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_;
  Clock::time_point last_;
};

}  // namespace nbody::cli
