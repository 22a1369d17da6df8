#pragma once
// The lines a run says: what runs (before the first step), why it stopped, and the summary of a
// completed run ("done: ...", energy, momenta, and with a directory the radii and the files).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "nbody/run.hpp"

namespace nbody::runloop {

// "nbody run: ..." (after "resumed at step ..." when `resumed_from` is not empty), the backend,
// the units and G (with a note when -G overrides the unit system's).
[[nodiscard]] std::vector<std::string> announcement(const Simulation& sim, const RunConfig& cfg,
                                                    const std::string& resumed_from);

// "stopped at step S of N (t = T) by REASON", and how to continue when a checkpoint was written.
[[nodiscard]] std::string stop_message(const RunResult& result, const RunConfig& cfg,
                                       const std::string& resume_command);

// The Lagrangian radii at the start and at the end (a run with a directory).
struct RadiiSummary {
  std::array<double, 7> initial{}, final{};
};
// The summary of a completed run (result.final set).
[[nodiscard]] std::vector<std::string> summary(const RunResult& result, const RadiiSummary* radii);

}  // namespace nbody::runloop
