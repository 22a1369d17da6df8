// Integrators on every backend: order of convergence of the energy error, closed and eccentric
// orbits, adaptive and block time steps.
#include <cmath>
#include <numbers>

#include "ic/ic.hpp"
#include "nbody/simulation.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

class Integrators : public testing::TestWithParam<BackendCase> {};
class IntegratorOrder : public testing::TestWithParam<BackendCase> {};
class AdaptiveSteps : public testing::TestWithParam<BackendCase> {};

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

RunConfig two_body_config(const BackendCase& c, const std::string& integrator, std::int64_t steps_per_orbit,
                          const std::string& dt_mode = "fixed") {
  RunConfig cfg;
  cfg.dt_mode = dt_mode;
  set_backend(cfg, c.backend);
  cfg.precision = std::string(to_string(c.precision));
  cfg.integrator = integrator;
  cfg.softening = 0.0;
  cfg.dt = 2.0 * std::numbers::pi / double(steps_per_orbit);
  cfg.steps = steps_per_orbit;
  return cfg;
}

// The largest |dE/E0| over `steps` steps of cfg.dt, measured after each; *cost: interactions.
double max_energy_error(const RunConfig& cfg, const Particles<double>& start, std::int64_t steps,
                        std::uint64_t* cost = nullptr) {
  auto sim = Simulation::create(cfg, start);
  const double e0 = sim->diagnostics().total;
  double worst = 0;
  for (std::int64_t s = 0; s < steps; ++s) {
    sim->advance(1);
    worst = std::max(worst, relative_energy_error(sim->diagnostics(), e0));
  }
  if (cost != nullptr) *cost = sim->interactions();
  return worst;
}

// The largest |dE/E0| over one orbit.
double max_energy_error(const BackendCase& c, const std::string& integrator, std::int64_t steps_per_orbit) {
  return max_energy_error(two_body_config(c, integrator, steps_per_orbit), kepler_pair(0.5), steps_per_orbit);
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

// Fourth order: 16x when dt halves. Measured (cpu, fp64): yoshida4 2.02e-5 -> 1.27e-6 (15.9) at
// 200 -> 400 steps an orbit; hermite4 8.79e-7 -> 5.27e-8 (16.7) at 400 -> 800, approaching 16
// from above (16.4 at 800 -> 1600).
TEST_P(IntegratorOrder, Yoshida4EnergyErrorFallsSixteenfoldWhenDtHalves) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const double coarse = max_energy_error(GetParam(), "yoshida4", 200);
  const double fine = max_energy_error(GetParam(), "yoshida4", 400);
  EXPECT_NEAR(coarse / fine, 16.0, 1.2) << coarse << " -> " << fine;
  testing::Test::RecordProperty("ratio", sci(coarse / fine));
}

TEST_P(IntegratorOrder, Hermite4EnergyErrorFallsSixteenfoldWhenDtHalves) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const double coarse = max_energy_error(GetParam(), "hermite4", 400);
  const double fine = max_energy_error(GetParam(), "hermite4", 800);
  EXPECT_NEAR(coarse / fine, 16.0, 1.2) << coarse << " -> " << fine;
  testing::Test::RecordProperty("ratio", sci(coarse / fine));
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

// Angle of the separation x_1 - x_0 in the orbital plane, unwrapped across +-pi from `previous`.
double unwrapped_phase(const Particles<double>& p, double previous) {
  const double angle = std::atan2(p.y[1] - p.y[0], p.x[1] - p.x[0]);
  double d = angle - std::remainder(previous, 2 * std::numbers::pi);
  d = std::remainder(d, 2 * std::numbers::pi);
  return previous + d;
}

// hermite4 with shared adaptive steps on a Kepler orbit of eccentricity 0.9 (pericentre 0.1,
// apocentre 1.9: the step must shrink ~80x at pericentre) for 100 periods, eta = 0.001 (about
// 1,100 steps an orbit). Measured (cpu, fp64): max |dE/E0| 4.1e-7, max |dL/L0| 4.4e-8, period
// 2 pi (1 - 2.8e-7). Bounds: 1e-6, 1e-7, 1e-6. (At eta = 0.02, 243 steps an orbit, |dE/E0| is
// 5.5e-4: Aarseth's criterion gives sqrt(eta)/omega, ~44 steps a circular orbit.)
TEST_P(AdaptiveSteps, Hermite4KeplerOrbitOfEccentricity09Over100Periods) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  constexpr int kOrbits = 100;
  constexpr int kOutputsPerOrbit = 16;  // dt: the longest step and the output interval
  RunConfig cfg = two_body_config(GetParam(), "hermite4", kOutputsPerOrbit, "auto");
  cfg.eta = 0.001;
  auto sim = Simulation::create(cfg, kepler_pair(0.9));
  const Diagnostics d0 = sim->diagnostics();
  const double target = 2 * std::numbers::pi * kOrbits;
  double worst_e = 0, worst_l = 0, phase = 0, crossing = -1;
  for (int s = 1; s <= kOrbits * kOutputsPerOrbit + kOutputsPerOrbit / 2; ++s) {
    sim->advance(1);
    const Diagnostics d = sim->diagnostics();
    worst_e = std::max(worst_e, relative_energy_error(d, d0.total));
    worst_l = std::max(worst_l, std::fabs(d.angular[2] - d0.angular[2]) / std::fabs(d0.angular[2]));
    const double before = phase;
    phase = unwrapped_phase(sim->particles(), phase);
    if (crossing < 0 && phase >= target) {  // linear interpolation between outputs
      crossing = sim->time() - cfg.dt * (phase - target) / (phase - before);
    }
  }
  const double period = crossing / kOrbits;
  const double expected = 2 * std::numbers::pi;  // 2 pi sqrt(a^3 / (G M)), a = 1, G M = 1
  EXPECT_LT(worst_e, 1e-6);
  EXPECT_LT(worst_l, 1e-7);
  EXPECT_NEAR(period, expected, 1e-6 * expected);
  testing::Test::RecordProperty("max_rel_energy_error", sci(worst_e));
  testing::Test::RecordProperty("max_rel_angular_momentum_error", sci(worst_l));
  testing::Test::RecordProperty("period_rel_error", sci(period / expected - 1));
}

// The trajectory of a Plummer sphere of 16 bodies with block steps against the same run with
// shared steps (both from Aarseth's criterion), at t = 1 (8 outputs of dt = 1/8). Both are
// fourth order, so they converge to one solution: their difference is that of two truncation
// errors, and falls ~16x when eta falls 4x (dt ~ sqrt(eta) halves). Measured (cpu, fp64):
// max |x_block - x_shared| 2.1e-7 at eta = 0.01, 1.4e-8 at 0.0025 (15x).
TEST_P(AdaptiveSteps, BlockStepsFollowTheSharedStepTrajectory) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  auto difference = [&](double eta) {
    RunConfig cfg;
    set_backend(cfg, GetParam().backend);
    cfg.precision = std::string(to_string(GetParam().precision));
    cfg.integrator = "hermite4";
    cfg.ic = "plummer";
    cfg.n = 16;
    cfg.seed = 3;
    cfg.softening = 0.01;
    cfg.dt = 0.125;
    cfg.eta = eta;
    cfg.dt_mode = "auto";
    auto shared = Simulation::create(cfg);
    cfg.dt_mode = "block";
    auto block = Simulation::create(cfg);
    shared->advance(8);
    block->advance(8);
    EXPECT_LT(block->interactions(), shared->interactions());
    const auto a = shared->particles(), b = block->particles();
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      worst = std::max(worst, std::hypot(a.x[i] - b.x[i], a.y[i] - b.y[i], a.z[i] - b.z[i]));
    }
    return worst;
  };
  const double coarse = difference(0.01);
  const double fine = difference(0.0025);
  EXPECT_LT(coarse, 1e-6);
  EXPECT_LT(fine, 1e-7);
  EXPECT_GT(coarse / fine, 8.0) << coarse << " -> " << fine;
  testing::Test::RecordProperty("difference_eta_0.01", sci(coarse));
  testing::Test::RecordProperty("difference_eta_0.0025", sci(fine));
}

// A concentrated system (Plummer sphere, 256 bodies, eps = 0.01): most bodies need long steps
// and a few (the core, close pairs) short ones. Block steps evaluate forces only on the bodies
// whose step ends; shared steps on all, at the shortest step. Measured (cpu, fp64) over
// t = 1/8: 1.27e6 against 1.19e7 target-source pairs (0.106); both keep |dE/E0| below 1e-7.
TEST_P(AdaptiveSteps, BlockStepsCostFewerInteractionsOnAConcentratedSystem) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  RunConfig cfg;
  set_backend(cfg, GetParam().backend);
  cfg.precision = std::string(to_string(GetParam().precision));
  cfg.integrator = "hermite4";
  cfg.ic = "plummer";
  cfg.n = 256;
  cfg.seed = 3;
  cfg.softening = 0.01;
  cfg.dt = 0.125;
  cfg.eta = 0.02;
  auto run = [&](const std::string& mode, double* energy_error) {
    cfg.dt_mode = mode;
    auto sim = Simulation::create(cfg);
    const double e0 = sim->diagnostics().total;
    sim->advance(1);
    *energy_error = relative_energy_error(sim->diagnostics(), e0);
    return sim->interactions();
  };
  double e_shared = 0, e_block = 0;
  const auto shared = run("auto", &e_shared);
  const auto block = run("block", &e_block);
  EXPECT_LT(double(block), 0.25 * double(shared)) << block << " against " << shared;
  EXPECT_LT(e_shared, 1e-6);
  EXPECT_LT(e_block, 1e-6);
  testing::Test::RecordProperty("block_over_shared_interactions", sci(double(block) / double(shared)));
}

// Leapfrog with --dt-mode auto on the e = 0.9 orbit (eps = 1e-3, far below the pericentre 0.1).
// The error of a second-order method falls 4x when its step (eta) halves; and at the cost of
// a fixed-step run (the same number of force evaluations) the adaptive step, short only at
// pericentre, is far more accurate. Measured (cpu, fp64): eta 0.1 -> 0.05: 3.49e-4 -> 8.87e-5
// (3.93); 1,431 force evaluations at eta = 0.1 against a fixed run of 1,400: max |dE/E0| 3.5e-4
// against 4.7e-2.
TEST_P(AdaptiveSteps, AdaptiveLeapfrogIsSecondOrderInEtaAndBeatsFixedStepsAtEqualCost) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  auto config = [&](const std::string& mode, double eta, std::int64_t steps) {
    RunConfig cfg = two_body_config(GetParam(), "leapfrog", steps, mode);
    cfg.softening = 1e-3;
    cfg.eta = eta;
    return cfg;
  };
  std::uint64_t cost_auto = 0, cost_fixed = 0;
  const auto orbit = kepler_pair(0.9);
  const double coarse = max_energy_error(config("auto", 0.1, 16), orbit, 16, &cost_auto);
  const double fine = max_energy_error(config("auto", 0.05, 16), orbit, 16);
  EXPECT_NEAR(coarse / fine, 4.0, 0.4) << coarse << " -> " << fine;
  const std::int64_t fixed_steps = std::int64_t(cost_auto / 4);  // 4 pairs per evaluation of 2 bodies
  const double fixed = max_energy_error(config("fixed", 0.1, fixed_steps), orbit, fixed_steps, &cost_fixed);
  EXPECT_NEAR(double(cost_fixed), double(cost_auto), 0.01 * double(cost_auto));
  EXPECT_LT(coarse, fixed / 20) << "adaptive " << coarse << ", fixed " << fixed;
  testing::Test::RecordProperty("eta_ratio", sci(coarse / fine));
  testing::Test::RecordProperty("fixed_over_adaptive", sci(fixed / coarse));
}

INSTANTIATE_TEST_SUITE_P(Backends, Integrators, testing::ValuesIn(backend_cases()), case_name);
// The order of convergence is measured in float64, where rounding stays far below the error.
INSTANTIATE_TEST_SUITE_P(Backends, IntegratorOrder, testing::ValuesIn(backend_cases(Precision::fp64)), case_name);
// The bounds of the adaptive-step tests are float64 bounds.
INSTANTIATE_TEST_SUITE_P(Backends, AdaptiveSteps, testing::ValuesIn(backend_cases(Precision::fp64)), case_name);

}  // namespace
}  // namespace nbody::test
