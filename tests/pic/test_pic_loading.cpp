// Density profiles, particle loading (weights integrate to the density, counter-based RNG
// reproducibility, the thermal spread) and the predefined species.
#include <gtest/gtest.h>

#include <cmath>

#include "pic_test_util.hpp"
#include "pic/physics/random.hpp"

namespace nbody::pic {
namespace {

TEST(Profiles, EachKindAgainstItsFormula) {
  DensityProfile p;
  p.n0 = 2.0;
  p.x_start = 1.0;
  p.x_end = 5.0;
  p.kind = ProfileKind::step;
  EXPECT_EQ(p(0.99, 0), 0.0);
  EXPECT_EQ(p(1.0, 0), 2.0);
  EXPECT_EQ(p(5.0, 0), 0.0);
  p.kind = ProfileKind::linear;
  p.ramp = 2.0;
  EXPECT_DOUBLE_EQ(p(2.0, 0), 1.0);
  EXPECT_DOUBLE_EQ(p(4.0, 0), 2.0);
  p.kind = ProfileKind::exponential;
  p.scale = 0.5;
  EXPECT_DOUBLE_EQ(p(2.0, 0), 2.0 * std::exp(-2.0));
  EXPECT_DOUBLE_EQ(p(3.5, 0), 2.0);
  p.kind = ProfileKind::table;
  p.xs = {0.0, 1.0, 3.0};
  p.ns = {0.0, 4.0, 2.0};
  EXPECT_DOUBLE_EQ(p(0.5, 0), 2.0);
  EXPECT_DOUBLE_EQ(p(2.0, 0), 3.0);
  EXPECT_EQ(p(3.5, 0), 0.0);
  p.kind = ProfileKind::uniform;
  p.y_min = 0.0;
  p.y_max = 1.0;
  EXPECT_EQ(p(2.0, -0.1), 0.0);
  EXPECT_EQ(p(2.0, 0.5), 2.0);
}

TEST(Loading, WeightsIntegrateTheDensityAndSeedsReproduce) {
  PicSettings s = test::periodic_settings(40, 8, 0.1, 0.2, 0.05);
  PicSimulation sim(s);
  LoadSpec l;
  l.profile.kind = ProfileKind::linear;
  l.profile.n0 = 3.0;
  l.profile.x_start = 1.0;
  l.profile.ramp = 2.0;
  l.ppc_x = l.ppc_y = 4;
  l.u_thermal[0] = l.u_thermal[1] = l.u_thermal[2] = 0.05;
  l.seed = 11;
  const int a = sim.add_species(test::electrons());
  const int b = sim.add_species(test::electrons());
  const int c = sim.add_species(test::electrons());
  sim.load(a, l);
  sim.load(b, l);
  l.seed = 12;
  sim.load(c, l);
  // The area integral of n over the box: a ramp from x = 1 to 3 (mean 1.5), then 3 up to x = 4.
  double total = 0;
  for (double w : sim.species()[0].w) total += w;
  const double exact = (2.0 * 1.5 + 1.0 * 3.0) * 1.6;
  EXPECT_NEAR(total / exact, 1.0, 0.01);
  // Only cells whose centre has n > 0, 16 particles each: x in (1, 4) -> 29 or 30 columns.
  EXPECT_EQ(sim.species()[0].size() % 16, 0u);
  // The draws are keyed by (seed, species index, cell): another species or another seed gets
  // other positions, the same species and seed in another simulation the same ones.
  EXPECT_NE(sim.species()[0].x, sim.species()[1].x);
  EXPECT_NE(sim.species()[0].x, sim.species()[2].x);
  PicSimulation again(s);
  l.seed = 11;
  again.load(again.add_species(test::electrons()), l);
  EXPECT_EQ(again.species()[0].x, sim.species()[0].x);
  EXPECT_EQ(again.species()[0].uz, sim.species()[0].uz);
  // The thermal spread: <u^2> = u_th^2 per component.
  double s2 = 0;
  for (double u : sim.species()[0].uy) s2 += u * u;
  EXPECT_NEAR(std::sqrt(s2 / double(sim.species()[0].size())) / 0.05, 1.0, 0.05);
}

TEST(CounterRng, PureFunctionOfSeedStreamCounter) {
  const CounterRng a(5, 7), b(5, 7), c(5, 8);
  double mean = 0, var = 0;
  for (std::uint64_t k = 0; k < 20000; ++k) {
    EXPECT_EQ(a.bits(k), b.bits(k));
    EXPECT_NE(a.bits(k), c.bits(k));
    const double u = a.uniform(k);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    mean += u;
    const double n = a.normal(k);
    var += n * n;
  }
  EXPECT_NEAR(mean / 20000, 0.5, 0.01);
  EXPECT_NEAR(var / 20000, 1.0, 0.03);
}

TEST(Species, Predefined) {
  double q = 0, m = 0;
  ASSERT_TRUE(predefined_species("deuteron", q, m));
  EXPECT_EQ(q, 1.0);
  EXPECT_EQ(m, 3670.48);
  ASSERT_TRUE(predefined_species("triton", q, m));
  EXPECT_EQ(m, 5496.92);
  ASSERT_TRUE(predefined_species("electron", q, m));
  EXPECT_EQ(q, -1.0);
  EXPECT_FALSE(predefined_species("muon", q, m));
}

}  // namespace
}  // namespace nbody::pic
