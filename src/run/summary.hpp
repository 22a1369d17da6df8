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
// Above this final |dE/E0| the summary (and run.log) warns that the step is too long.
inline constexpr double kEnergyErrorWarning = 1e-2;

// The summary of a completed run (result.final set): "done: ... (stepping X ...; outputs Y)"
// with Y the time spent between the chunks of steps (the outputs), the energy (a warning above
// kEnergyErrorWarning), the momenta, the half-mass radius and the files.
[[nodiscard]] std::vector<std::string> summary(const RunResult& result, const RadiiSummary* radii);

}  // namespace nbody::runloop
