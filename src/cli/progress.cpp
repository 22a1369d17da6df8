#include "cli/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <string>

namespace nbody::cli {

std::string format_duration(double s) {
  char buf[48];
  if (s < 60) {
    std::snprintf(buf, sizeof buf, "%.3g s", s);
  } else if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%d min %02d s", int(s / 60), int(s) % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%d h %02d min", int(s / 3600), (int(s) % 3600) / 60);
  }
  return buf;
}

ProgressLine::ProgressLine(std::int64_t total_steps, std::int64_t first_step)
    : total_(total_steps),
      first_(first_step),
      enabled_(::isatty(STDERR_FILENO) == 1),
      start_(Clock::now()),
      last_(start_) {}

void ProgressLine::update(std::int64_t step) {
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

void ProgressLine::finish() {
  if (enabled_ && drawn_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }
  drawn_ = false;
}

}  // namespace nbody::cli
