#include "ic/setup_log.hpp"

#include <cstdio>
#include <exception>
#include <utility>

#include "nbody/run.hpp"

namespace nbody::ic {

SetupPhase::SetupPhase(Logger* log, std::size_t bodies, std::string what)
    : log_(bodies >= kSetupReportBodies ? log : nullptr), what_(std::move(what)), start_(std::chrono::steady_clock::now()) {
  if (log_ != nullptr) log_->info("set-up: " + what_ + " ...");
}

SetupPhase::~SetupPhase() {
  if (log_ == nullptr || std::uncaught_exceptions() > 0) return;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", seconds);
  try {
    log_->info("set-up: " + what_ + ": " + text);
  } catch (...) {  // a destructor must not throw; the line is only a report
  }
}

}  // namespace nbody::ic
