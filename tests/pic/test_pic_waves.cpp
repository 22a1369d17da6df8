// Vacuum electromagnetic waves: each solver's measured frequency against its discrete dispersion
// relation; the Cole-Karkkainen solver at c dt = dx; absorbing boundaries; laser injection; an
// overdense plasma slab reflects.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "pic_test_util.hpp"

namespace nbody::pic {
namespace {

// A vacuum standing wave Ez = cos(kx x + ky y) (TM, nodal Ez) on a periodic grid: the frequency of
// its oscillation against omega from the solver's discrete dispersion relation.
double measure_vacuum_omega(SolverKind kind, int mx, int my, double dt_fraction) {
  const int nx = 32, ny = 16;
  const double dx = 0.1, dy = 0.2;
  PicSettings s = test::periodic_settings(nx, ny, dx, dy, dt_fraction * max_stable_dt(kind, dx, dy));
  s.solver = kind;
  PicSimulation sim(s);
  const double kx = 2 * kPi * mx / (nx * dx), ky = 2 * kPi * my / (ny * dy);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) sim.fields().at(kEz, i, j) = std::cos(kx * i * dx + ky * j * dy);
  sim.refresh_guards();
  std::vector<double> t, a;
  const double omega = discrete_omega(kind, dx, dy, s.dt, kx, ky);
  const int steps = int(20.5 * 2 * kPi / omega / s.dt);
  for (int n = 0; n < steps; ++n) {
    sim.step();
    double sum = 0;
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) sum += sim.fields().at(kEz, i, j) * std::cos(kx * i * dx + ky * j * dy);
    t.push_back(sim.time());
    a.push_back(sum);
  }
  return test::frequency_from_recurrence(a, s.dt) / omega;
}

TEST(VacuumWaves, YeeMatchesItsDiscreteDispersion) {
  for (auto [mx, my] : {std::pair{1, 0}, {4, 0}, {8, 0}, {3, 2}, {0, 3}, {6, 5}}) {
    const double r = measure_vacuum_omega(SolverKind::yee, mx, my, 0.95);
    EXPECT_NEAR(r, 1.0, 1e-9) << "mode " << mx << "," << my;
  }
}

TEST(VacuumWaves, ColeKarkkainenMatchesItsDiscreteDispersionAtCdtEqualDx) {
  for (auto [mx, my] : {std::pair{1, 0}, {4, 0}, {8, 0}, {3, 2}, {0, 3}, {6, 5}}) {
    const double r = measure_vacuum_omega(SolverKind::ck, mx, my, 1.0);
    EXPECT_NEAR(r, 1.0, 1e-9) << "mode " << mx << "," << my;
  }
}

// At c dt = dx the CK scheme propagates along x without dispersion: omega = c k exactly.
TEST(VacuumWaves, ColeKarkkainenIsDispersionFreeAlongX) {
  const double dx = 0.1, dy = 0.2;
  for (int m = 1; m <= 15; ++m) {
    const double k = 2 * kPi * m / (32 * dx);
    EXPECT_NEAR(discrete_omega(SolverKind::ck, dx, dy, dx, k, 0.0) / k, 1.0, 1e-12);
  }
  // ... and the Yee scheme cannot run there at all (its limit is dx/sqrt(1 + dx^2/dy^2)).
  EXPECT_LT(max_stable_dt(SolverKind::yee, dx, dy), 0.9 * dx);
  EXPECT_LT(discrete_omega(SolverKind::yee, dx, dy, dx, kPi / dx, kPi / dy), 0.0);
}

// Stability on the document's aspect ratio (dy = 2 dx) with white-noise fields, which excite every
// mode. At c dt = 0.999 dx the energy stays bounded (the scheme is non-dissipative). At exactly
// c dt = dx the Nyquist mode along x (kx dx = pi, ky = 0) has omega dt = pi, a double root of the
// leapfrog: its amplitude grows linearly, so the energy grows as n^2 -- polynomially, never
// exponentially (the ratio of energies at 4000 and 2000 steps is ~4, not the square of the ratio
// at 2000 and 1000 steps). docs/pic.md discusses it.
std::vector<double> noise_energy(double dt_over_dx, int samples) {
  PicSettings s = test::periodic_settings(32, 16, 0.1, 0.2, dt_over_dx * 0.1);
  s.solver = SolverKind::ck;
  PicSimulation sim(s);
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int c = kEx; c <= kBz; ++c)
    for (int j = 0; j < 16; ++j)
      for (int i = 0; i < 32; ++i) sim.fields().at(c, i, j) = u(gen);
  sim.refresh_guards();
  std::vector<double> e{sim.energies().field};
  for (int n = 0; n < samples; ++n) {
    sim.run(1000);
    e.push_back(sim.energies().field);
  }
  return e;
}

TEST(VacuumWaves, ColeKarkkainenStableJustBelowCdtEqualDx) {
  const std::vector<double> e = noise_energy(0.999, 4);
  for (double v : e) EXPECT_LT(v / e[0], 3.0);
}

TEST(VacuumWaves, ColeKarkkainenAtCdtEqualDxGrowsOnlyPolynomially) {
  const std::vector<double> e = noise_energy(1.0, 4);
  const double r21 = e[2] / e[1], r42 = e[4] / e[2];
  EXPECT_NEAR(r42, 4.0, 0.5) << "energy ~ n^2";
  EXPECT_LT(r42, r21 * r21);  // not exponential
}

}  // namespace
}  // namespace nbody::pic
