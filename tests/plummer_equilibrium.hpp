#pragma once
// A Plummer sphere in equilibrium stays in equilibrium: over 10 crossing times (2 sqrt 2 each in
// Henon units) with leapfrog, its Lagrangian radii at 10, 50 and 90 % of the mass stay near their
// start and its virial ratio near 1. Written once, run at N = 4096 on the CPU (the default
// suite), N = 16384 on the CPU (label `slow`) and N = 16384 on the GPU (label `gpu`).
//
// Bounds. The f-quantile of N radii has standard error sqrt(f (1 - f) / N) / F'(r_f), with the
// Plummer cumulative mass F(r) = r^3 / (r^2 + b^2)^{3/2}, b = 3 pi / 16 in Henon units. A radius
// at time t minus the one at t = 0 has at most sqrt 2 times that error (as if independent; the
// bodies are the same, so it is less), and 21 samples are compared: 4 sqrt 2 standard errors.
// Two-body relaxation (t_rh ~ 0.138 N r_h^1.5 / ln(0.4 N) = 52 time units at N = 4096, 175 at
// 16384) moves the radii by well under that in 28 time units. The virial ratio: 4 sqrt 2 times its
// standard error at t = 0 (model_stats.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>

#include "model_stats.hpp"
#include "support.hpp"
#include "nbody/diagnostics.hpp"
#include "nbody/simulation.hpp"

namespace nbody::test {

inline void check_plummer_equilibrium(const std::string& backend, const std::string& precision, std::int64_t n) {
  RunConfig cfg;
  cfg.ic = "plummer";
  cfg.n = n;
  cfg.seed = 7;
  set_backend(cfg, backend);
  cfg.precision = precision;
  cfg.integrator = "leapfrog";
  cfg.softening = 0.01;
  cfg.dt = 0.01;
  const double crossing = 2.0 * std::numbers::sqrt2;
  const auto steps = static_cast<std::int64_t>(std::lround(10.0 * crossing / cfg.dt));
  const std::int64_t samples = 20;
  auto sim = Simulation::create(cfg);
  const Particles<double> start = sim->particles();
  const SampleEnergies e0 = sample_energies(start);
  const auto r0 = lagrangian_radii(start);
  const double e_start = sim->diagnostics().total;

  const double b = 3.0 * std::numbers::pi / 16.0;
  const int index[3] = {2, 4, 6};  // 0.1, 0.5, 0.9 in kLagrangianFractions
  double bound[3], worst[3] = {0, 0, 0};
  for (int k = 0; k < 3; ++k) {
    const double f = kLagrangianFractions[index[k]], r = r0[index[k]];
    const double density = 3.0 * b * b * r * r / std::pow(r * r + b * b, 2.5);
    bound[k] = 4.0 * std::numbers::sqrt2 * std::sqrt(f * (1.0 - f) / double(n)) / density / r;
  }
  const double q_bound = 4.0 * std::numbers::sqrt2 * e0.sigma_virial;
  double q_worst = 0, e_worst = 0;
  for (std::int64_t s = 1; s <= samples; ++s) {
    sim->advance(steps * s / samples - sim->step_count());
    const auto r = lagrangian_radii(sim->particles());
    for (int k = 0; k < 3; ++k) worst[k] = std::max(worst[k], std::fabs(r[index[k]] / r0[index[k]] - 1.0));
    const Diagnostics d = sim->diagnostics();
    q_worst = std::max(q_worst, std::fabs(d.virial_ratio - 1.0));
    e_worst = std::max(e_worst, relative_energy_error(d, e_start));
  }
  NBODY_MEASURED("Plummer %s %s N=%lld, %lld steps: max |r/r0 - 1| = %.4f, %.4f, %.4f (bounds %.4f, %.4f, %.4f) "
                 "for r_0.1=%.4f r_0.5=%.4f r_0.9=%.4f; max |Q - 1| = %.4f (bound %.4f); max |dE/E0| = %.2e",
                 backend.c_str(), precision.c_str(), static_cast<long long>(n), static_cast<long long>(steps),
                 worst[0], worst[1], worst[2], bound[0], bound[1], bound[2], r0[2], r0[4], r0[6], q_worst, q_bound,
                 e_worst);
  for (int k = 0; k < 3; ++k) EXPECT_LT(worst[k], bound[k]) << "mass fraction " << kLagrangianFractions[index[k]];
  EXPECT_LT(q_worst, q_bound);
  // Leapfrog at dt = 0.01 with softening 0.01 conserves energy to a few 1e-3 through the close
  // encounters of a few thousand bodies (measured 1e-3 at N = 4096).
  EXPECT_LT(e_worst, 5e-3);
}

}  // namespace nbody::test
