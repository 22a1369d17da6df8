#pragma once
#include "nbody/config.hpp"

namespace nbody {

// [output]: the run directory and the cadence of diagnostics, snapshots and checkpoints.
[[nodiscard]] ParamSection output_parameters();

}  // namespace nbody
