// Integrators on every backend: order of convergence of the energy error and a closed orbit.
#include <cmath>
#include <numbers>

#include "nbody/simulation.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

class Integrators : public testing::TestWithParam<BackendCase> {};
class IntegratorOrder : public testing::TestWithParam<BackendCase> {};

// Two bodies of mass 1/2 on a Kepler orbit of semi-major axis 1 and eccentricity e, G = 1
// (period 2 pi), starting at apocentre, centre of mass at rest at the origin.
Particles<double> kepler_pair(double e) {
  const double ra = 1.0 + e;
  const double va = std::sqrt((1.0 - e) / (1.0 + e));  // relative speed at apocentre, G M / a = 1
  Particles<double> p;
  p.resize(2);
  p.x = {-0.5 * ra, 0.5 * ra};
  p.y = {0.0, 0.0};
  p.z = {0.0, 0.0};
  p.vx = {0.0, 0.0};
  p.vy = {-0.5 * va, 0.5 * va};
  p.vz = {0.0, 0.0};
  p.m = {0.5, 0.5};
  p.id = {0, 1};
  return p;
}

RunConfig two_body_config(const BackendCase& c, const std::string& integrator, std::int64_t steps_per_orbit) {
  RunConfig cfg;
  cfg.backend = c.backend;
  cfg.precision = std::string(to_string(c.precision));
  cfg.integrator = integrator;
  cfg.softening = 0.0;
  cfg.dt = 2.0 * std::numbers::pi / double(steps_per_orbit);
  cfg.steps = steps_per_orbit;
  return cfg;
}

// The largest |dE/E0| over one orbit.
double max_energy_error(const BackendCase& c, const std::string& integrator, std::int64_t steps_per_orbit) {
  auto sim = Simulation::create(two_body_config(c, integrator, steps_per_orbit), kepler_pair(0.5));
  const double e0 = sim->diagnostics().total;
  double worst = 0;
  for (std::int64_t s = 0; s < steps_per_orbit; ++s) {
    sim->advance(1);
    worst = std::max(worst, relative_energy_error(sim->diagnostics(), e0));
  }
  return worst;
}

TEST_P(IntegratorOrder, LeapfrogEnergyErrorFallsFourfoldWhenDtHalves) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const double coarse = max_energy_error(GetParam(), "leapfrog", 400);
  const double fine = max_energy_error(GetParam(), "leapfrog", 800);
  EXPECT_NEAR(coarse / fine, 4.0, 0.3) << coarse << " -> " << fine;
}

TEST_P(IntegratorOrder, EulerEnergyErrorFallsTwofoldWhenDtHalves) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const double coarse = max_energy_error(GetParam(), "euler", 2000);
  const double fine = max_energy_error(GetParam(), "euler", 4000);
  EXPECT_NEAR(coarse / fine, 2.0, 0.15) << coarse << " -> " << fine;
}

TEST_P(Integrators, CircularOrbitClosesAfterOnePeriod) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  // Circular: e = 0, separation a = 1, period 2 pi sqrt(a^3 / (G M)) = 2 pi.
  const auto start = kepler_pair(0.0);
  auto sim = Simulation::create(two_body_config(GetParam(), "leapfrog", 2000), start);
  sim->advance(2000);
  const auto end = sim->particles();
  // Leapfrog's phase error after one orbit is about 2 pi (omega dt)^2 / 24 = 1e-5 at 2000 steps
  // per orbit; float32 positions add about sqrt(2000) * 6e-8. 1e-4 holds both with margin.
  for (std::size_t i = 0; i < 2; ++i) {
    const double d = std::hypot(end.x[i] - start.x[i], end.y[i] - start.y[i], end.z[i] - start.z[i]);
    EXPECT_LT(d, 1e-4) << "body " << i;
  }
  EXPECT_NEAR(sim->time(), 2.0 * std::numbers::pi, 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Backends, Integrators, testing::ValuesIn(backend_cases()), case_name);
// The order of convergence is measured in float64, where rounding stays far below the error.
INSTANTIATE_TEST_SUITE_P(Backends, IntegratorOrder, testing::ValuesIn(backend_cases(Precision::fp64)), case_name);

}  // namespace
}  // namespace nbody::test
