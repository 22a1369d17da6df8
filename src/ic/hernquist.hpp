#pragma once
// The Hernquist (1990, ApJ 356, 359) sphere, rho = M a / (2 pi r (r + a)^3), M(r) = M r^2 / (r + a)^2,
// Psi(r) = G M / (r + a): pieces shared by the `hernquist` generator, the galaxy models and tests.
#include "ic/model_tools.hpp"

namespace nbody::ic {

// Bodies are drawn from the inner kHernquistMassCut of the model's mass, r < 199 a.
inline constexpr double kHernquistMassCut = 0.99;

// Radius (in units of a) enclosing the mass fraction u of the untruncated model: the inverse of
// u = r^2 / (r + a)^2.
[[nodiscard]] double hernquist_radius(double u);
// The isotropic distribution function (Hernquist 1990 eq. 17) at relative energy e = -E in
// units G = M = a = 1, 0 < e < 1, up to its constant factor.
[[nodiscard]] double hernquist_df(double e);

// The `hernquist` model as sampled: the inner kHernquistMassCut of a model with G = a = 1 and
// mass 1 / kHernquistMassCut, so that the bodies' total mass is 1 and the forces inside the cut
// are the untruncated model's. Energies are those of the sampled (truncated) distribution.
struct HernquistModel {
  double cut_radius = 0;  // in units of a
  double kinetic = 0;     // G = a = 1, sampled mass 1
  double potential = 0;
  HenonScale henon;  // the scale length a in Henon units is henon.length
  [[nodiscard]] double virial_ratio() const { return 2.0 * kinetic / -potential; }
};
[[nodiscard]] HernquistModel hernquist_model();

}  // namespace nbody::ic
