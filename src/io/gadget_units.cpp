#include "io/gadget_units.hpp"

namespace nbody {

UnitSystemCgs unit_system_cgs(const RunConfig& /*cfg*/) {
  // Runs are in N-body (Henon) units, G = 1, with no physical scale attached: every unit is
  // written as 1. When the configuration gains a unit system (henon, galactic, solar), this
  // returns its length, mass, velocity and time units in cm, g, cm/s and s.
  return {};
}

}  // namespace nbody
