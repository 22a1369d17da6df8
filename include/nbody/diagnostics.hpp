#pragma once
// Conserved quantities and global state of a particle system, in float64 whatever the run's
// precision. Computed where the particles live (see Backend::moments / potential_energy).
#include <array>
#include <cstdint>
#include <string>

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
};

// |E - E0| / |E0| (absolute error when E0 = 0).
[[nodiscard]] double relative_energy_error(const Diagnostics& d, double e0) noexcept;

// The CSV header and one row (with the energy error against e0), in the column order of
// diagnostics.csv. Values are written with 17 significant digits.
[[nodiscard]] std::string diagnostics_csv_header();
[[nodiscard]] std::string diagnostics_csv_row(const Diagnostics& d, double e0);

}  // namespace nbody
