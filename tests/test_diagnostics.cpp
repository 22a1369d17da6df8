// Diagnostics: Lagrangian radii of a known distribution, drifts of the conserved quantities,
// the CSV columns.
#include <cmath>
#include <sstream>

#include "core/rng.hpp"
#include "model_stats.hpp"
#include "nbody/diagnostics.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

// N bodies uniform in the unit ball: F(r) = r^3, so r(f) = f^{1/3}. The f-quantile of N radii
// has standard error sqrt(f (1 - f) / N) / F'(r_f) = sqrt(f (1 - f) / N) / (3 f^{2/3}); the test
// allows 4 of them (the centre of mass, about which the radii are taken, moves by
// sqrt(3 / 5N) = 0.002, a second-order change of the radii).
TEST(Diagnostics, LagrangianRadiiOfAUniformSphereAreTheCubeRootsOfTheFractions) {
  const std::size_t n = 100000;
  Particles<double> p;
  p.resize(n);
  Rng rng(42);
  for (std::size_t i = 0; i < n; ++i) {
    const double r = std::cbrt(rng.uniform());
    double ux, uy, uz;
    rng.unit_vector(ux, uy, uz);
    p.x[i] = 3.0 + r * ux;  // away from the origin: the radii are about the centre of mass
    p.y[i] = r * uy;
    p.z[i] = -1.0 + r * uz;
    p.m[i] = 2.0 / double(n);  // total mass 2: fractions, not masses
    p.id[i] = i;
  }
  const auto radii = lagrangian_radii(p);
  for (std::size_t k = 0; k < radii.size(); ++k) {
    const double f = kLagrangianFractions[k];
    const double se = std::sqrt(f * (1 - f) / double(n)) / (3.0 * std::pow(f, 2.0 / 3.0));
    NBODY_MEASURED("uniform sphere r(%.2f) = %.5f (f^1/3 = %.5f, se %.5f)", f, radii[k], std::cbrt(f), se);
    EXPECT_NEAR(radii[k], std::cbrt(f), 4.0 * se) << f;
  }
}

TEST(Diagnostics, LagrangianRadiiWeighByMass) {
  // Four bodies on the x axis about their centre of mass at the origin: masses 1, 1, 2, 4 at
  // distances 1, 2, 3, 4 (signs chosen so the centre of mass is at 0).
  Particles<double> p;
  p.resize(4);
  p.x = {1.0, -2.0, -3.0, 2.0};  // sum m x = 1 - 2 - 6 + 8 = 1 -> shift below
  p.y = {0, 0, 0, 0};
  p.z = {0, 0, 0, 0};
  p.m = {1.0, 1.0, 2.0, 4.0};
  p.id = {0, 1, 2, 3};
  for (auto& x : p.x) x -= 1.0 / 8.0;
  const auto r = lagrangian_radii(p);
  // Sorted by distance from the centre (1/8): 0.875 (m 1), 1.875 (m 4), 2.125 (m 1), 3.125 (m 2);
  // cumulative fractions 1/8, 5/8, 6/8, 1.
  EXPECT_DOUBLE_EQ(r[0], 0.875);  // 0.01
  EXPECT_DOUBLE_EQ(r[3], 1.875);  // 0.2
  EXPECT_DOUBLE_EQ(r[4], 1.875);  // 0.5
  EXPECT_DOUBLE_EQ(r[5], 2.125);  // 0.75 (reached exactly at the third body)
  EXPECT_DOUBLE_EQ(r[6], 3.125);  // 0.9
}

TEST(Diagnostics, DriftsAreMeasuredFromTheInitialState) {
  Diagnostics d0, d;
  d0.total = -0.25;
  d0.momentum = {0.0, 0.0, 0.0};
  d0.angular = {0.0, 0.0, 2.0};
  d.total = -0.2505;
  d.momentum = {3e-8, 4e-8, 0.0};
  d.angular = {0.0, 2e-6, 2.0};
  EXPECT_NEAR(relative_energy_error(d, d0.total), 2e-3, 1e-15);
  EXPECT_NEAR(momentum_drift(d, d0), 5e-8, 1e-20);
  EXPECT_NEAR(angular_momentum_drift(d, d0), 1e-6, 1e-18);
  d0.angular = {0.0, 0.0, 0.0};  // no initial angular momentum: absolute drift
  EXPECT_NEAR(angular_momentum_drift(d, d0), std::hypot(2e-6, 2.0), 1e-15);
}

TEST(Diagnostics, CsvRowsHaveOneValuePerColumn) {
  auto count = [](const std::string& s) { return std::count(s.begin(), s.end(), ',') + 1; };
  Diagnostics d;
  EXPECT_EQ(count(diagnostics_csv_header()), count(diagnostics_csv_row(d, d)));
  EXPECT_NE(diagnostics_csv_header().find("momentum_drift,angular_momentum_drift"), std::string::npos);
  EXPECT_EQ(lagrangian_csv_header(), "step,time,r_0.01,r_0.05,r_0.1,r_0.2,r_0.5,r_0.75,r_0.9");
  EXPECT_EQ(count(lagrangian_csv_header()), count(lagrangian_csv_row(3, 0.5, {})));
}

}  // namespace
}  // namespace nbody::test
