#pragma once
#include <chrono>
#include <cstdint>
#include <string>

namespace nbody::cli {

// "step 1200/5000 (24%)  843 steps/s  ETA 4.5 s" on one line of a terminal, redrawn at most a
// few times a second; silent when stderr is not a terminal.
class ProgressLine {
 public:
  // first_step: where the run starts (a resumed run does not start at 0).
  explicit ProgressLine(std::int64_t total_steps, std::int64_t first_step = 0);
  void update(std::int64_t step);
  void finish();  // clears the line
  [[nodiscard]] bool enabled() const noexcept { return enabled_; }

 private:
  using Clock = std::chrono::steady_clock;
  std::int64_t total_;
  std::int64_t first_;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_;
  Clock::time_point last_;
};

// "1.23 s", "4 min 05 s", "2 h 03 min"
[[nodiscard]] std::string format_duration(double seconds);

}  // namespace nbody::cli
