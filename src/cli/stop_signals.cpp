#include "cli/stop_signals.hpp"

#include <csignal>

namespace nbody::cli {
namespace {

volatile std::sig_atomic_t g_received = 0;
struct sigaction g_old_int {};
struct sigaction g_old_term {};

extern "C" void on_stop_signal(int sig) {
  g_received = sig;
  // The next one is not caught: a user who insists gets the default action.
  std::signal(sig, SIG_DFL);
}

}  // namespace

StopSignals::StopSignals() {
  g_received = 0;
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

int StopSignals::received() noexcept { return g_received; }

std::optional<std::string> StopSignals::requested() {
  const int sig = received();
  if (sig == 0) return std::nullopt;
  return signal_name(sig);
}

const char* signal_name(int sig) noexcept {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "a signal";
  }
}

}  // namespace nbody::cli
