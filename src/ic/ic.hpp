#pragma once
// Initial conditions, chosen by name, each drawn from an explicit seed. Generated in float64;
// the simulation rounds them to its precision.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "nbody/particles.hpp"

namespace nbody {

struct IcRequest {
  std::string name;
  std::int64_t n = 0;
  std::uint64_t seed = 0;
};

struct IcInfo {
  std::string name;
  std::string description;
  Particles<double> (*make)(const IcRequest&);
};

[[nodiscard]] const std::vector<IcInfo>& initial_conditions();
[[nodiscard]] std::vector<std::string> ic_names();
// Throws an input error for an unknown name.
[[nodiscard]] Particles<double> make_initial_conditions(const IcRequest& request);

// The documents' set-up: positions and velocities uniform in [-1, 1]^3, unit masses (G = 1).
Particles<double> make_cube(const IcRequest& request);
// Plummer sphere (Aarseth, Henon & Wielen 1974) in Henon units: G = M = 1, E = -1/4, centred,
// zero net momentum.
Particles<double> make_plummer(const IcRequest& request);

// Moves the centre of mass to the origin and removes the net momentum.
void centre(Particles<double>& p);

}  // namespace nbody
