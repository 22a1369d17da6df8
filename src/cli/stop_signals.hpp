#pragma once
// SIGINT and SIGTERM ask a run to stop at the end of the current chunk of steps (it then
// checkpoints and exits cleanly). A second signal while stopping ends the process at once (the
// default action is restored after the first).
#include <optional>
#include <string>

#include "nbody/run.hpp"

namespace nbody::cli {

class StopSignals final : public StopCondition {
 public:
  StopSignals();            // installs the handlers
  ~StopSignals() override;  // restores what was there
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The signal's name ("SIGINT", "SIGTERM") once one has come.
  [[nodiscard]] std::optional<std::string> requested() override;

  // The signal that asked to stop, or 0.
  [[nodiscard]] static int received() noexcept;
};

// "SIGINT", "SIGTERM"
[[nodiscard]] const char* signal_name(int sig) noexcept;

}  // namespace nbody::cli
