// The measuring pieces of `nbody bench --suite tree` (bench/tree_measure.hpp): the sampled
// targets, the float64 reference sum against the direct-sum oracle, percentiles, the crossover
// with the direct sum, the body-count syntax.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "gravity/direct/cpu_solvers.hpp"
#include "ic/ic.hpp"
#include "tree_measure.hpp"

namespace nbody::bench::treebench {
namespace {

TEST(TreeBench, SampledTargetsAreDistinctSortedAndFixedBySeed) {
  const auto a = sample_targets(100000, 4096, 7);
  ASSERT_EQ(a.size(), 4096u);
  EXPECT_EQ(std::set<std::int32_t>(a.begin(), a.end()).size(), a.size());
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  EXPECT_GE(a.front(), 0);
  EXPECT_LT(a.back(), 100000);
  EXPECT_EQ(sample_targets(100000, 4096, 7), a);
  EXPECT_NE(sample_targets(100000, 4096, 8), a);
  // Spread over the whole range: about a quarter below n / 4.
  const auto quarter = std::count_if(a.begin(), a.end(), [](std::int32_t i) { return i < 25000; });
  EXPECT_NEAR(double(quarter) / 4096, 0.25, 0.03);
  const auto all = sample_targets(10, 50, 7);
  ASSERT_EQ(all.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(all[std::size_t(i)], i);
}

// The suite's reference is the oracle's sum (reference solver) at the sampled targets.
TEST(TreeBench, ReferenceSumIsTheOraclesAtTheSampledTargets) {
  IcRequest req;
  req.name = "plummer";
  req.n = 1500;
  req.seed = 3;
  const Particles<double> p = make_initial_conditions(req);
  const int n = int(p.size());
  for (const double eps : {0.01, 0.0}) {
    GravityParams g;
    g.G = 1.7;
    g.softening = eps;
    auto oracle = make_reference_solver<double>(g);
    std::vector<double> ox(p.size()), oy(p.size()), oz(p.size());
    oracle->accelerations({p.x.data(), p.y.data(), p.z.data(), n, 0}, {p.x.data(), p.y.data(), p.z.data(), p.m.data(), n},
                          {ox.data(), oy.data(), oz.data()});
    const auto targets = sample_targets(n, 37, 11);  // not a multiple of the block of targets
    std::vector<double> ax, ay, az;
    reference_accelerations(p.x.data(), p.y.data(), p.z.data(), p.m.data(), n, targets, g.G, eps * eps, ax, ay, az);
    ASSERT_EQ(ax.size(), targets.size());
    for (std::size_t k = 0; k < targets.size(); ++k) {
      const std::int32_t i = targets[k];
      const double scale = std::sqrt(ox[i] * ox[i] + oy[i] * oy[i] + oz[i] * oz[i]);
      EXPECT_NEAR(ax[k], ox[i], 1e-13 * scale) << "eps " << eps << " target " << i;
      EXPECT_NEAR(ay[k], oy[i], 1e-13 * scale);
      EXPECT_NEAR(az[k], oz[i], 1e-13 * scale);
    }
  }
}

TEST(TreeBench, CoincidentBodiesWithoutSofteningAddNothing) {
  const std::vector<double> x = {0, 0, 1}, y = {0, 0, 0}, z = {0, 0, 0}, m = {1, 1, 2};
  std::vector<double> ax, ay, az;
  reference_accelerations(x.data(), y.data(), z.data(), m.data(), 3, {0, 2}, 1.0, 0.0, ax, ay, az);
  EXPECT_DOUBLE_EQ(ax[0], 2.0);  // the body at 1 pulls with m / r^2; its twin at 0 adds nothing
  EXPECT_DOUBLE_EQ(ax[1], -2.0);
  EXPECT_EQ(ay[0], 0.0);
}

TEST(TreeBench, NearestRankPercentiles) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const Percentiles p = percentiles(v);
  EXPECT_EQ(p.p50, 50);
  EXPECT_EQ(p.p90, 90);
  EXPECT_EQ(p.p99, 99);
  EXPECT_EQ(p.max, 100);
  v.push_back(std::numeric_limits<double>::quiet_NaN());
  EXPECT_TRUE(std::isinf(percentiles(v).max));
  const Percentiles one = percentiles({0.25});
  EXPECT_EQ(one.p50, 0.25);
  EXPECT_EQ(one.max, 0.25);
  const auto e = relative_errors({1.0, 0.0}, {0.0, 0.0}, {0.0, 0.5}, {2.0, 0.0}, {0.0, 0.0}, {0.0, 0.0});
  EXPECT_DOUBLE_EQ(e[0], 0.5);
  EXPECT_DOUBLE_EQ(e[1], 0.5);  // a zero reference: the absolute difference
}

TEST(TreeBench, CrossoverOfALinearAndAQuadraticCost) {
  // Tree: 1e-6 N s; direct: 1e-10 N^2 s measured up to 2^14 -> equal at N = 1e4.
  std::vector<TimedPoint> tree, direct;
  for (double n = 1024; n <= 1 << 20; n *= 4) tree.push_back({n, 1e-6 * n});
  for (double n = 1024; n <= 1 << 14; n *= 4) direct.push_back({n, 1e-10 * n * n});
  Crossover c = find_crossover(tree, direct);
  EXPECT_EQ(c.kind, "interpolated");
  EXPECT_NEAR(c.n, 1e4, 1.0);  // exact in log-log for power laws
  EXPECT_FALSE(c.extrapolated);
  EXPECT_EQ(tree[c.below].n, 4096);
  EXPECT_EQ(tree[c.above].n, 16384);
  // Measured only to 4096: the point at 16384 is extrapolated as N^2 (the same line here).
  direct.resize(2);
  c = find_crossover(tree, direct);
  EXPECT_NEAR(c.n, 1e4, 1.0);
  EXPECT_TRUE(c.extrapolated);
  const TimedPoint d = direct_time(direct, 65536);
  EXPECT_TRUE(d.extrapolated);
  EXPECT_NEAR(d.seconds, 1e-10 * 65536.0 * 65536.0, 1e-12);
  // Faster everywhere, slower everywhere, nothing to compare with.
  for (auto& t : tree) t.seconds *= 1e-3;
  EXPECT_EQ(find_crossover(tree, direct).kind, "at or below");
  EXPECT_EQ(find_crossover(tree, direct).n, 1024);
  for (auto& t : tree) t.seconds *= 1e9;
  EXPECT_EQ(find_crossover(tree, direct).kind, "not reached");
  EXPECT_EQ(find_crossover(tree, {}).kind, "no data");
  EXPECT_EQ(find_crossover({}, direct).kind, "no data");
}

TEST(TreeBench, BodyCounts) {
  std::int64_t v = 0;
  EXPECT_TRUE(parse_body_count("1e6", v));
  EXPECT_EQ(v, 1000000);
  EXPECT_TRUE(parse_body_count("2^24", v));
  EXPECT_EQ(v, 16777216);
  EXPECT_TRUE(parse_body_count("30000", v));
  EXPECT_EQ(v, 30000);
  for (const char* bad : {"", "1.5", "12x", "abc", "0", "-5", "3e9", "2^", "^3", "2^31"})
    EXPECT_FALSE(parse_body_count(bad, v)) << bad;
}

}  // namespace
}  // namespace nbody::bench::treebench
