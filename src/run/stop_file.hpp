#pragma once
// "the stop file": a file named `stop` in a run directory (gravity's RunDirectory, PIC's
// RunFiles) asks the run to checkpoint and exit between chunks of steps; it is removed once the
// run has stopped.
#include <optional>
#include <string>

#include "nbody/run.hpp"

namespace nbody::runloop {

template <class Dir>
class StopFileOf final : public StopCondition {
 public:
  explicit StopFileOf(Dir& dir) : dir_(dir) {}
  [[nodiscard]] std::optional<std::string> requested() override {
    if (dir_.stop_requested()) return "the stop file";
    return std::nullopt;
  }
  void acknowledge() override { dir_.clear_stop(); }

 private:
  Dir& dir_;
};

}  // namespace nbody::runloop
