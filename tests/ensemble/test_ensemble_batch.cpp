// Ensembles on the CPU: each system of a batch has the bits of the same system integrated alone,
// a system's initial conditions do not depend on the batch, scatterings keep what they must,
// and every stop condition fires for the system it concerns without holding the others back.
#include <gtest/gtest.h>

#include "ensemble/config.hpp"
#include "ensemble/results.hpp"
#include "ensemble_support.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

using namespace nbody::ensemble;

class EnsembleSameBits : public testing::TestWithParam<Integrator> {};

TEST_P(EnsembleSameBits, EachSystemAsAlone) {
  const EnsembleStore initial = mixed_batch(3);
  Params p;
  p.integrator = GetParam();
  p.dt = 0.01, p.eta = 0.02, p.t_end = 1.0, p.eps2 = 1e-6;
  p.collision_radius = 1e-3, p.energy_limit = 1e-2;
  EnsembleStore batch = initial;
  auto threads = make_cpu_backend(2);
  integrate(*threads, batch, p, 3);
  for (std::int64_t k = 0; k < initial.systems(); ++k) {
    EnsembleStore one = initial.single(k);
    auto alone = make_cpu_backend(1);
    integrate(*alone, one, p, 3);
    EXPECT_TRUE(same_system(batch, k, one));
  }
  EXPECT_GT(batch.state[0].steps, 0);
}

INSTANTIATE_TEST_SUITE_P(Integrators, EnsembleSameBits,
                         testing::Values(Integrator::leapfrog, Integrator::yoshida4, Integrator::hermite4,
                                         Integrator::hermite4_adaptive, Integrator::hermite4_symmetric,
                                         Integrator::ias15),
                         [](const auto& info) { return std::string(integrator_name(info.param)); });

TEST(EnsembleGenerators, ASystemDoesNotDependOnTheBatch) {
  EnsembleConfig c;
  c.generator = Generator::plummer;
  c.plummer.n = 8;
  c.systems = 10;
  const EnsembleStore ten = make_systems(c);
  c.systems = 4;
  const EnsembleStore four = make_systems(c);
  EXPECT_TRUE(same_system(ten, 3, four.single(3)));
  // (and the systems differ from one another)
  EXPECT_NE(ten.x[0], ten.x[8]);
}

TEST(EnsembleScattering, ADistantFlybyLeavesTheBinaryAsItWas) {
  ScatteringSpec sc;
  sc.v_inf = 1.0, sc.b_min = 30, sc.b_max = 30, sc.r0 = 60;
  EnsembleStore s;
  for (int k = 0; k < 4; ++k) {
    const SystemBodies b = scattering_system(sc, 11, k);
    s.add_system(b.m, b.pos, b.vel);
  }
  const std::vector<SystemResult> before = system_results(s, 0);
  Params p;
  p.integrator = Integrator::hermite4_adaptive;
  p.dt = 0.1, p.eta = 0.005, p.t_end = 120;
  auto cpu = make_cpu_backend(2);
  integrate(*cpu, s, p, 4);
  const std::vector<SystemResult> after = system_results(s, 0);
  for (std::size_t k = 0; k < after.size(); ++k) {
    EXPECT_EQ(after[k].outcome, int(Outcome::end_time));
    EXPECT_EQ(after[k].pair_i, 0);
    EXPECT_EQ(after[k].pair_j, 1);
    EXPECT_NEAR(after[k].a / before[k].a, 1.0, 1e-3) << "system " << k;
    EXPECT_NEAR(after[k].e, before[k].e, 1e-3) << "system " << k;
    EXPECT_LT(after[k].de, 3e-5);  // (eta = 0.005 over 19 binary periods)
  }
}

TEST(EnsembleScattering, CloseEncountersKeepEnergyAndAngularMomentum) {
  ScatteringSpec sc;
  sc.v_inf = 0.5, sc.b_max = 1.0, sc.r0 = 10;
  EnsembleStore s;
  for (int k = 0; k < 6; ++k) {
    const SystemBodies b = scattering_system(sc, 5, k);
    s.add_system(b.m, b.pos, b.vel);
  }
  Params p;
  p.integrator = Integrator::hermite4_adaptive;
  p.dt = 0.05, p.eta = 1e-4, p.t_end = 40;
  auto cpu = make_cpu_backend(2);
  integrate(*cpu, s, p, 2);
  double worst_e = 0, worst_l = 0;
  for (const SystemResult& r : system_results(s, 0)) worst_e = std::max(worst_e, r.de), worst_l = std::max(worst_l, r.dl);
  RecordProperty("worst_dE", sci(worst_e));
  RecordProperty("worst_dL", sci(worst_l));
  EXPECT_LT(worst_e, 1e-8);
  EXPECT_LT(worst_l, 1e-8);
}

// One system of each kind that stops, and one that runs to the end beside them.
TEST(EnsembleStops, EachConditionFiresForItsSystemAlone) {
  EnsembleStore s;
  auto add = [&](const SystemBodies& b) { s.add_system(b.m, b.pos, b.vel); };
  Elements circ;
  circ.a = 1;
  add(two_body(circ, 0.5, 0.5));  // 0: runs to the end
  SystemBodies fall;               // 1: radial infall into a collision
  fall.m = {0.5, 0.5}, fall.pos = {-0.5, 0, 0, 0.5, 0, 0}, fall.vel = {0, 0, 0, 0, 0, 0};
  add(fall);
  Elements hyper;  // 2: a hyperbola leaving
  hyper.a = -1, hyper.e = 1.5, hyper.mean = 0.5;
  add(two_body(hyper, 0.5, 0.5));
  SystemBodies bad = fall;  // 3: not finite
  bad.vel[0] = std::nan("");
  add(bad);
  Params p;
  p.integrator = Integrator::hermite4_adaptive;
  p.dt = 0.05, p.eta = 0.01, p.t_end = 20;
  p.collision_radius = 0.05, p.escape_radius = 5;
  auto cpu = make_cpu_backend(2);
  integrate(*cpu, s, p, 10);
  EXPECT_EQ(s.state[0].status, int(Outcome::end_time));
  EXPECT_EQ(s.state[1].status, int(Outcome::collision));
  EXPECT_LT(s.state[1].stop_time, 1.2);  // (free fall from 1 onto the centre: pi/2^1.5 = 1.11)
  EXPECT_EQ(s.state[2].status, int(Outcome::escape));
  EXPECT_LT(s.state[2].stop_time, p.t_end);
  EXPECT_EQ(s.state[3].status, int(Outcome::diverged));
  EXPECT_EQ(s.state[3].steps, 0);
  // A stopped system takes no more steps: the collision's count is the steps to its stop.
  EXPECT_LT(s.state[1].steps, s.state[0].steps);
}

TEST(EnsembleStops, EnergyLimitAndStepLimit) {
  Elements ecc;
  ecc.a = 1, ecc.e = 0.95;
  EnsembleStore s;
  const SystemBodies b = two_body(ecc, 0.5, 0.5);
  s.add_system(b.m, b.pos, b.vel);
  Params p;
  p.integrator = Integrator::leapfrog;
  p.dt = 0.05, p.t_end = 10, p.energy_limit = 1e-6;
  EnsembleStore lf = s;
  auto cpu = make_cpu_backend(1);
  integrate(*cpu, lf, p, 10);
  EXPECT_EQ(lf.state[0].status, int(Outcome::energy_limit));
  p.integrator = Integrator::hermite4_adaptive;
  p.energy_limit = 0, p.dt = 0.5, p.min_dt = 0.2;
  EnsembleStore he = s;
  integrate(*cpu, he, p, 10);
  EXPECT_EQ(he.state[0].status, int(Outcome::step_limit));
}

}  // namespace
}  // namespace nbody::test
