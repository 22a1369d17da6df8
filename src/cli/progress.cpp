#include "cli/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <string>

namespace nbody::cli {

ProgressLine::ProgressLine() : enabled_(::isatty(STDERR_FILENO) == 1), start_(Clock::now()), last_(start_) {}

void ProgressLine::started(std::int64_t first_step, std::int64_t last_step) {
  first_ = first_step;
  total_ = last_step;
  start_ = last_ = Clock::now();
}

void ProgressLine::advanced(std::int64_t step, std::int64_t /*steps*/, double /*seconds*/) {
  if (!enabled_) return;
  const auto now = Clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(200) && step < total_) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? double(step - first_) / elapsed : 0.0;
  const double eta = rate > 0 ? double(total_ - step) / rate : 0.0;
  const double pct = total_ > 0 ? 100.0 * double(step) / double(total_) : 100.0;
  std::fprintf(stderr, "\r\033[K  step %lld/%lld (%.0f%%)  %.4g steps/s  ETA %s", static_cast<long long>(step),
               static_cast<long long>(total_), pct, rate, format_duration(eta).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressLine::ended() {
  if (enabled_ && drawn_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }
  drawn_ = false;
}

}  // namespace nbody::cli
