#pragma once
// Unit systems (--units). Every quantity in a run (positions, velocities, masses, dt, softening,
// times in the diagnostics) is expressed in the run's unit system; G follows from it.
//
//   henon     G = M = 1, E = -1/4 (Heggie & Mathieu 1986 "standard N-body units"); no physical
//             scale, so the cgs conversion factors are 1 and `physical` is false.
//   galactic  kpc, Msun, km/s; time unit kpc/(km/s) = 0.9778 Gyr; G = 4.30092e-6 kpc (km/s)^2/Msun.
//   solar     au, Msun, yr; the year is the Gaussian year 2 pi / k days (k = 0.01720209895, the
//             Gaussian gravitational constant), 365.2568983 d, so that G = 4 pi^2 exactly.
//
// G is derived in units.cpp from the defining constants (the IAU 2015 nominal solar mass parameter
// GMsun, the IAU 2012 astronomical unit, the IAU 2015 parsec, the Gaussian constant); it is never
// a pasted number.
//
// Precedence with --gravitational-constant: an explicit G (> 0) wins and is used as given, for the
// forces and for scaling the initial conditions (a note is printed by `nbody run` when it differs
// from the unit system's G); G = 0, the default, means "the unit system's G".
#include <string>
#include <string_view>
#include <vector>

#include "nbody/config.hpp"

namespace nbody {

// The conversion factors of a unit system to cgs, in the names GADGET-4 and its readers (yt,
// pynbody) use for the snapshot header.
struct UnitSystemCgs {
  double UnitLength_in_cm = 1;
  double UnitMass_in_g = 1;
  double UnitVelocity_in_cm_per_s = 1;
  double UnitTime_in_s = 1;  // = UnitLength_in_cm / UnitVelocity_in_cm_per_s
  bool physical = false;     // false for henon: the factors are 1 and mean "dimensionless"
  bool operator==(const UnitSystemCgs&) const = default;
};

struct UnitSystem {
  std::string_view name;
  std::string_view length, mass, velocity, time;  // unit names for messages and metadata
  UnitSystemCgs cgs;
  double G = 1;  // in this system's units
};

// The names accepted by --units ("henon", "galactic", "solar").
[[nodiscard]] std::vector<std::string> unit_system_names();
// Throws an input error for an unknown name.
[[nodiscard]] const UnitSystem& unit_system(std::string_view name);
// The cgs factors of a run's unit system (for snapshot writers).
[[nodiscard]] UnitSystemCgs unit_system_cgs(std::string_view name);
[[nodiscard]] UnitSystemCgs unit_system_cgs(const RunConfig& cfg);

// G used by a run: cfg.gravitational_constant when it is > 0, else the unit system's G.
[[nodiscard]] double effective_gravitational_constant(const RunConfig& cfg);

// Physical constants (cgs) behind the unit systems, exposed for tests and metadata.
namespace constants {
inline constexpr double au_cm = 1.495978707e13;                 // IAU 2012 Resolution B2 (exact)
inline constexpr double gm_sun_cgs = 1.3271244e26;              // IAU 2015 Resolution B3, cm^3 s^-2
inline constexpr double G_cgs = 6.67430e-8;                     // CODATA 2018, cm^3 g^-1 s^-2
inline constexpr double gaussian_k = 0.01720209895;             // au^{3/2} Msun^{-1/2} day^{-1}
inline constexpr double day_s = 86400.0;
inline constexpr double km_cm = 1e5;
[[nodiscard]] double parsec_cm();  // 648000 / pi au (IAU 2015 Resolution B2)
[[nodiscard]] double msun_g();     // GMsun / G
[[nodiscard]] double gaussian_year_s();  // 2 pi / k days
}  // namespace constants

}  // namespace nbody
