#pragma once
#include "nbody/config.hpp"

namespace nbody {

// The code units in cgs, as the /Units group of an HDF5 snapshot records them.
struct UnitSystemCgs {
  double length_cm = 1;
  double mass_g = 1;
  double velocity_cm_per_s = 1;
  double time_s = 1;
};

// The one place snapshot writers learn the physical units of a run.
[[nodiscard]] UnitSystemCgs unit_system_cgs(const RunConfig& cfg);

}  // namespace nbody
