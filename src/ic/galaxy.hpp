#pragma once
// A disk galaxy (exponential disk + Hernquist bulge + Hernquist halo) in approximate
// equilibrium, shared by `disk-galaxy` and `galaxy-collision`. The recipe is in disk_galaxy.cpp.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/rng.hpp"
#include "nbody/config.hpp"
#include "nbody/particles.hpp"

namespace nbody {
class Logger;
}

namespace nbody::ic {

struct GalaxyParams {
  double disk_fraction = 0.15;
  double bulge_fraction = 0.05;
  double toomre_q = 1.5;
};
// From the run's parameters; an input error when the fractions leave no halo.
[[nodiscard]] GalaxyParams galaxy_params(const RunConfig& cfg);

// Shape of the model in units of the disk scale length R_d (before the Henon scaling).
inline constexpr double kDiskScaleHeight = 0.2;   // z0 of the sech^2(z / z0) layer
inline constexpr double kDiskCut = 10.0;          // disk truncated at R = 10 R_d
inline constexpr double kBulgeScale = 0.2;        // Hernquist a of the bulge
inline constexpr double kBulgeMassCut = 0.99;     // bulge truncated at 99 % of its mass (r = 39.8 R_d)
inline constexpr double kHaloScale = 3.0;         // Hernquist a of the halo
inline constexpr double kHaloMassCut = 0.9;       // halo truncated at 90 % of its mass (r = 55.5 R_d)
inline constexpr double kToomreRadius = 2.43;     // where Q is set (Hernquist 1993: the solar radius)
inline constexpr std::size_t kEnergySubset = 16384;  // bodies in the pair sum for the energy

// A galaxy's components (Particles::component of its bodies): disk 0, bulge 1, halo 2.
inline constexpr std::uint8_t kComponentDisk = 0;
inline constexpr std::uint8_t kComponentBulge = 1;
inline constexpr std::uint8_t kComponentHalo = 2;
inline constexpr std::uint8_t kGalaxyComponents = 3;

struct Galaxy {
  // Henon units: G = M = 1, E = -1/4; disk, then bulge, then halo (components 0, 1, 2)
  Particles<double> particles;
  std::size_t n_disk = 0, n_bulge = 0, n_halo = 0;
  double length_unit = 1;  // R_d in Henon units (lengths of the model were multiplied by this)
};

// n bodies of equal mass, centred, scaled to Henon units, disk in the x-y plane rotating
// counter-clockwise about +z. Body j (disk, then bulge, then halo) is drawn from the stream
// (seed, its component, first_index + j). Throws an input error when a component with a
// positive mass fraction would get no body. A large galaxy says what it is doing to log (if set),
// calling itself `label` ("galaxy 1 of 2").
[[nodiscard]] Galaxy make_galaxy(std::size_t n, std::uint64_t seed, std::size_t first_index, const GalaxyParams& params,
                                 std::string_view ic_name, Logger* log = nullptr, std::string_view label = "the galaxy");
// The galaxy's bodies j in [begin, end) as drawn, before centring and scaling (make_galaxy's first
// stage), into out at out_offset + j - begin; masses 1/n, ids first_index + j, components
// component_base + kComponentDisk / Bulge / Halo.
void draw_galaxy(std::size_t n, std::uint64_t seed, std::size_t first_index, const GalaxyParams& params,
                 std::string_view ic_name, Particles<double>& out, std::size_t begin, std::size_t end,
                 std::size_t out_offset, std::uint8_t component_base = 0);

}  // namespace nbody::ic
