#pragma once
// The systems of an ensemble: from a generator, each system k drawn from its own counter-based
// stream (BodyRng(seed, component, k)), so that system k is the same whatever the number of
// systems or the order they are made in; or from a table file of bodies.
#include <cstdint>
#include <string>
#include <vector>

#include "ensemble/config.hpp"
#include "ensemble/store.hpp"

namespace nbody::ensemble {

// One system's bodies (masses; positions and velocities as x, y, z triples), in its centre of
// mass frame.
struct SystemBodies {
  std::vector<double> m, pos, vel;
};

SystemBodies scattering_system(const ScatteringSpec& s, std::uint64_t seed, std::int64_t k);
SystemBodies planetary_system(const PlanetarySpec& s, std::uint64_t seed, std::int64_t k);
SystemBodies plummer_system(const PlummerSpec& s, std::uint64_t seed, std::int64_t k);

// The CSV table: a header "system,m,x,y,z,vx,vy,vz", then one row per body, the bodies of a
// system together and the systems numbered 0, 1, 2, ... in order. An input error names the file,
// the line and the column of anything else.
EnsembleStore read_system_table(const std::string& path);

// The store the configuration describes.
EnsembleStore make_systems(const EnsembleConfig& c);

}  // namespace nbody::ensemble
