#pragma once
// The step loop of `nbody run`: steps in chunks between output events, diagnostics and
// snapshots on their schedule, checkpoints (on a step or wall-clock schedule, on SIGINT or
// SIGTERM, when a `stop` file appears, and at the end), the progress line and the summary.
#include <optional>

#include "io/run_directory.hpp"
#include "nbody/checkpoint.hpp"
#include "nbody/simulation.hpp"

namespace nbody::cli {

// `cfg` is the resolved configuration; `dir` the run directory, or null without --out;
// `resumed` the progress of the checkpoint a resumed run starts from (null for a new run).
// Returns the exit status.
int run_loop(Simulation& sim, const RunConfig& cfg, RunDirectory* dir, const RunProgress* resumed);

}  // namespace nbody::cli
