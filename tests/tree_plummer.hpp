#pragma once
// A Plummer sphere run with the Barnes-Hut tree (--gravity tree), written once for the default
// suite (test_tree.cpp, 10 crossing times, small N) and the slow one (test_slow.cpp, 100).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "model_stats.hpp"
#include "nbody/diagnostics.hpp"
#include "nbody/simulation.hpp"
#include "support.hpp"

namespace nbody::test {

// A Plummer sphere with the tree at the default theta (leapfrog; fp64 on the CPU unless asked): over `crossings`
// crossing times the energy is kept to `energy_bound` and the Lagrangian radii at 10, 50 and 90 %
// of the mass stay within the sampling bounds of plummer_equilibrium.hpp (4 sqrt 2 standard
// errors of the quantile; two-body relaxation is slower: t_rh ~ 0.138 N r_h^1.5 / ln(0.4 N)), or
// within `flat` (a relative change) where that is larger: at large N the sampling bound falls
// below the few per cent by which the softened potential, weaker than the model's in the core,
// moves the inner radii of a model drawn for the unsoftened one.
inline void check_tree_plummer(std::int64_t n, double softening, double dt, double crossings, double energy_bound,
                               const char* device = "cpu", const char* precision = "fp64", double flat = 0.0) {
  RunConfig cfg;
  cfg.ic = "plummer";
  cfg.n = n;
  cfg.seed = 7;
  cfg.device = device;
  cfg.gravity = "tree";
  cfg.precision = precision;
  cfg.softening = softening;
  cfg.dt = dt;
  const double crossing = 2.0 * std::numbers::sqrt2;
  const auto steps = static_cast<std::int64_t>(std::lround(crossings * crossing / cfg.dt));
  auto sim = Simulation::create(cfg);
  const auto r0 = lagrangian_radii(sim->particles());
  const double e0 = sim->diagnostics().total;
  const double b = 3.0 * std::numbers::pi / 16.0;
  const int index[3] = {2, 4, 6};
  double bound[3], worst[3] = {0, 0, 0}, e_worst = 0;
  for (int k = 0; k < 3; ++k) {
    const double f = kLagrangianFractions[index[k]], r = r0[index[k]];
    const double density = 3.0 * b * b * r * r / std::pow(r * r + b * b, 2.5);
    bound[k] = std::max(flat, 4.0 * std::numbers::sqrt2 * std::sqrt(f * (1.0 - f) / double(cfg.n)) / density / r);
  }
  const int samples = 10;
  for (int s = 1; s <= samples; ++s) {
    sim->advance(steps * s / samples - sim->step_count());
    const auto r = lagrangian_radii(sim->particles());
    for (int k = 0; k < 3; ++k) worst[k] = std::max(worst[k], std::fabs(r[index[k]] / r0[index[k]] - 1.0));
    e_worst = std::max(e_worst, relative_energy_error(sim->diagnostics(), e0));
  }
  NBODY_MEASURED("Plummer with the tree (%s, %s), N=%lld, eps %g, dt %g, %lld steps (%.0f crossing times): max |dE/E0| = "
                 "%.2e; max |r/r0 - 1| = %.4f %.4f %.4f (bounds %.4f %.4f %.4f)",
                 device, precision, static_cast<long long>(cfg.n), softening, dt, static_cast<long long>(steps), crossings, e_worst,
                 worst[0], worst[1], worst[2], bound[0], bound[1], bound[2]);
  EXPECT_LT(e_worst, energy_bound);
  for (int k = 0; k < 3; ++k) EXPECT_LT(worst[k], bound[k]) << "mass fraction " << kLagrangianFractions[index[k]];
}


}  // namespace nbody::test
