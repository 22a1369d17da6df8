#pragma once
// Conserved quantities and global state of a particle system, in float64 whatever the run's
// precision. Computed where the particles live (see Backend::moments / potential_energy).
#include <array>
#include <cstdint>
#include <string>

#include "nbody/particles.hpp"

namespace nbody {

// Sums over particles that need no force evaluation.
struct Moments {
  double mass = 0;                      // M = sum m
  double kinetic = 0;                   // K = 1/2 sum m v^2
  std::array<double, 3> momentum{};     // P = sum m v
  std::array<double, 3> angular{};      // L = sum m x cross v
  std::array<double, 3> mass_moment{};  // sum m x  (centre of mass = mass_moment / M)
};

struct Diagnostics {
  std::int64_t step = 0;
  double time = 0;
  double kinetic = 0;
  double potential = 0;
  double total = 0;
  std::array<double, 3> momentum{};
  std::array<double, 3> angular{};
  std::array<double, 3> com{};
  double virial_ratio = 0;  // 2K / |W|

  static Diagnostics from(std::int64_t step, double time, const Moments& m, double potential);
  bool operator==(const Diagnostics&) const = default;
};

// |E - E0| / |E0| (absolute error when E0 = 0).
// No body is ever removed from a run (no escaper removal, merging or accretion), so E0 stays the
// reference and no energy needs to be accounted for; code that removes bodies must add the
// energy they carried (their kinetic energy and their share of W) back to E before comparing.
[[nodiscard]] double relative_energy_error(const Diagnostics& d, double e0) noexcept;
// |P - P0| (absolute: P0 is 0 for a centred model).
[[nodiscard]] double momentum_drift(const Diagnostics& d, const Diagnostics& d0) noexcept;
// |L - L0| / |L0| (absolute when L0 = 0).
[[nodiscard]] double angular_momentum_drift(const Diagnostics& d, const Diagnostics& d0) noexcept;

// The CSV header and one row (drifts measured from the initial state d0), in the column order of
// diagnostics.csv. Values are written with 17 significant digits.
[[nodiscard]] std::string diagnostics_csv_header();
[[nodiscard]] std::string diagnostics_csv_row(const Diagnostics& d, const Diagnostics& d0);

// Lagrangian radii: the radii about the centre of mass enclosing the mass fractions
// kLagrangianFractions (0.5 is the half-mass radius). Computed on the host from the particles:
// bodies sorted by distance from the centre of mass; r(f) is the distance of the first body at
// which the cumulative mass reaches f M.
inline constexpr std::array<double, 7> kLagrangianFractions = {0.01, 0.05, 0.1, 0.2, 0.5, 0.75, 0.9};
[[nodiscard]] std::array<double, 7> lagrangian_radii(const Particles<double>& p);
// "step,time,r_0.01,...,r_0.9" and one row, the columns of lagrangian_radii.csv.
[[nodiscard]] std::string lagrangian_csv_header();
[[nodiscard]] std::string lagrangian_csv_row(std::int64_t step, double time, const std::array<double, 7>& radii);

}  // namespace nbody
