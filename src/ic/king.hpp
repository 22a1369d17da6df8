#pragma once
// The King (1966) model as a table: the solution of its Poisson equation, exposed for the
// generator (king.cpp) and for tests of the sampled profile.
#include <vector>

#include "ic/model_tools.hpp"

namespace nbody::ic {

// In model units: G = 1, the DF's velocity parameter sigma = 1, the King radius
// r0 = sqrt(9 sigma^2 / (4 pi G rho0)) = 1 (rho0 the central density, so 4 pi G rho0 = 9).
struct KingModel {
  double w0 = 0;
  std::vector<double> ln_r;  // grid in ln r, from a small radius out to the tidal radius
  std::vector<double> w;     // dimensionless potential W(r) = Psi(r) / sigma^2 (0 at the tidal radius)
  std::vector<double> mass;  // M(< r)
  double tidal_radius = 0;
  double total_mass = 0;
  double potential_energy = 0;  // -int G M(r) / r dM
  double kinetic_energy = 0;    // 3/2 int p dV, p = rho sigma_1d^2 from the DF
  HenonScale henon;             // model units -> Henon units

  // Radius enclosing mass m (0 <= m <= total_mass).
  [[nodiscard]] double radius_of_mass(double m) const;
  // M(< r), and W(r) (0 beyond the tidal radius).
  [[nodiscard]] double mass_within(double r) const;
  [[nodiscard]] double potential_at(double r) const;
};

// Solves the model for central potential w0 > 0 (throws an input error otherwise).
[[nodiscard]] KingModel solve_king(double w0);

// Density and "pressure" rho sigma_1d^2 of the lowered isothermal DF f ~ exp(W - v^2/2) - 1 as
// functions of W (sigma = 1), up to a common constant: rho(W) = e^W erf(sqrt W) -
// sqrt(4W/pi) (1 + 2W/3), p(W) = int_0^W rho = e^W erf(sqrt W) - sqrt(4W/pi) (1 + 2W/3 + 4W^2/15).
[[nodiscard]] double king_density(double w);
[[nodiscard]] double king_pressure(double w);

}  // namespace nbody::ic
