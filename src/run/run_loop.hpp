#pragma once
// The step loop behind run_simulation and resume_run: chunks of steps between output events,
// each advanced in one call (so batched steps are used), stop conditions asked between chunks,
// the outputs of the run directory and the caller's, and what the run says.
#include <string>
#include <vector>

#include "io/run_directory.hpp"
#include "nbody/run.hpp"

namespace nbody::runloop {

// `cfg` is the resolved configuration; `dir` the run directory, or null; `resumed` the progress
// of the checkpoint a resumed run starts from (null for a new run); `notes` lines said first.
RunResult run_loop(Simulation& sim, const RunConfig& cfg, RunDirectory* dir, const RunProgress* resumed,
                   const RunHooks& hooks, const std::vector<std::string>& notes = {});

}  // namespace nbody::runloop
