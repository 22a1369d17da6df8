// The host logic of Hermite block steps that the GPU shares: the level rules (hermite_levels.hpp)
// and the order and launch shape of the acceleration-and-jerk pass (acc_jerk_shape.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "gravity/direct/cuda/acc_jerk_shape.hpp"
#include "particles/hermite_functors.hpp"
#include "particles/hermite_levels.hpp"

namespace nbody::test {
namespace {

using direct::AccJerkMode;
using direct::AccJerkPolicy;

TEST(HermiteLevels, LevelForIsTheCoarsestStepNotAboveTheCriterion) {
  const double dt = 0.0625;
  EXPECT_EQ(hermite::level_for(1.0, dt), 0);
  EXPECT_EQ(hermite::level_for(dt, dt), 0);
  EXPECT_EQ(hermite::level_for(std::nextafter(dt, 0.0), dt), 1);
  EXPECT_EQ(hermite::level_for(dt / 3, dt), 2);  // dt/4 <= dt/3 < dt/2
  EXPECT_EQ(hermite::level_for(0.0, dt), hermite::kMaxLevel);
  EXPECT_EQ(hermite::level_for(std::numeric_limits<double>::quiet_NaN(), dt), 0);
  EXPECT_EQ(hermite::level_for(std::numeric_limits<double>::infinity(), dt), 0);
}

TEST(HermiteLevels, NextLevelDeepensAtOnceAndCoarsensOneLevelWhenAligned) {
  const double dt = 1.0;
  const std::int64_t half = hermite::ticks_of(1), quarter = hermite::ticks_of(2);
  // Deepened as far as the criterion needs, at once.
  EXPECT_EQ(hermite::next_level(1, 0.1, half, dt), 4);  // 1/16 <= 0.1 < 1/8
  // A criterion between the step and twice it: kept.
  EXPECT_EQ(hermite::next_level(2, 0.3, quarter, dt), 2);
  // Twice the step allowed: coarser only where the time is a multiple of the doubled step.
  EXPECT_EQ(hermite::next_level(2, 0.6, half, dt), 1);
  EXPECT_EQ(hermite::next_level(2, 0.6, quarter, dt), 2);
  EXPECT_EQ(hermite::next_level(2, 0.6, 3 * quarter, dt), 2);
  // Never coarser than one level at a time, never above level 0.
  EXPECT_EQ(hermite::next_level(3, 100.0, half, dt), 2);
  EXPECT_EQ(hermite::next_level(0, 100.0, hermite::kTicks, dt), 0);
  // No force (NaN): no constraint.
  EXPECT_EQ(hermite::next_level(2, std::numeric_limits<double>::quiet_NaN(), half, dt), 1);
}

// The order of the sums depends on the number of sources alone, covers every source once, and
// its chunks are whole tiles.
TEST(AccJerkShape, SummationOrderDependsOnTheSourcesAlone) {
  for (std::int64_t n : {1, 63, 64, 65, 1000, 4096, 65536, 70001, 1 << 20}) {
    const auto order = direct::acc_jerk_order(n);
    EXPECT_EQ(order.chunk % AccJerkPolicy::kBlock, 0) << n;
    EXPECT_GE(std::int64_t(order.chunk) * order.chunks, n) << n;
    EXPECT_LT(std::int64_t(order.chunk) * (order.chunks - 1), std::max<std::int64_t>(n, 1)) << n;
    EXPECT_LE(order.chunks, AccJerkPolicy::kMaxChunks) << n;
    EXPECT_EQ(order.groups, (order.chunks + AccJerkPolicy::kChunksPerGroup - 1) / AccJerkPolicy::kChunksPerGroup);
    for (std::int64_t targets : {std::int64_t(1), std::int64_t(500), n}) {
      for (int sms : {1, 132}) {
        const auto s = direct::acc_jerk_shape(n, targets, sms, sizeof(double));
        EXPECT_EQ(s.chunk, order.chunk) << n << " " << targets;
        EXPECT_EQ(s.chunks, order.chunks);
        EXPECT_EQ(s.groups, order.groups);
      }
    }
  }
}

// The launch follows the active count: a few hundred targets among 65536 sources spread over
// the chunks (every SM busy), thousands over the groups, a set that fills the SMs in one pass; the
// partials never exceed the policy's scratch.
TEST(AccJerkShape, LaunchModeFollowsTheActiveCount) {
  const int sms = 132;
  const std::int64_t n = 65536;
  const auto small = direct::acc_jerk_shape(n, 500, sms, sizeof(double));
  EXPECT_EQ(small.mode, AccJerkMode::chunks);
  EXPECT_GE(std::int64_t(small.target_blocks) * small.chunks, std::int64_t(AccJerkPolicy::kBlocksPerSm) * sms);
  EXPECT_EQ(direct::acc_jerk_shape(n, 20000, sms, sizeof(double)).mode, AccJerkMode::groups);
  EXPECT_EQ(direct::acc_jerk_shape(n, n, sms, sizeof(double)).mode, AccJerkMode::groups);  // 1024 blocks
  EXPECT_EQ(direct::acc_jerk_shape(70001, 70001, sms, sizeof(double)).mode, AccJerkMode::whole);
  EXPECT_EQ(direct::acc_jerk_shape(100, 1, sms, sizeof(double)).mode, AccJerkMode::chunks);
  EXPECT_EQ(direct::acc_jerk_shape(64, 1, sms, sizeof(double)).mode, AccJerkMode::whole);  // one chunk
  for (std::int64_t sources : {4096, 65536, 1 << 20, 1 << 22}) {
    for (std::int64_t targets = 1; targets <= sources; targets = targets * 3 + 1) {
      const auto s = direct::acc_jerk_shape(sources, targets, sms, sizeof(double));
      EXPECT_LE(std::size_t(targets) * std::size_t(s.parts()) * 6 * sizeof(double), AccJerkPolicy::kPartialBytes);
      EXPECT_EQ(s.target_blocks, (targets + AccJerkPolicy::kBlock - 1) / AccJerkPolicy::kBlock);
      // The scratch allocated before the first split holds every split's partials.
      EXPECT_LE(std::size_t(targets) * std::size_t(s.parts()) * 6, direct::acc_jerk_partials(sources, sms, sizeof(double)))
          << sources << " " << targets;
    }
  }
}

// The first levels: the starting step's level, but never coarser than kStartLevel (a body with
// a vanishing jerk does not start with the whole interval; Nitadori's codes start at dt / 4).
TEST(HermiteSchedule, TheFirstStepIsAtMostAQuarterOfTheInterval) {
  const double dt = 1.0 / 16;
  std::vector<std::int32_t> level(4, -1), index{0, 1, 2, 3};
  std::vector<std::int64_t> last(4, 0);
  const std::vector<double> steps{std::numeric_limits<double>::infinity(), dt, dt / 4, dt / 100};
  const particles::StartLevel start{{level.data(), last.data(), 4}, {index.data(), 4}, steps.data(), dt};
  for (int k = 0; k < 4; ++k) start(k);
  EXPECT_EQ(hermite::kStartLevel, 2);
  EXPECT_EQ(level[0], 2) << "no constraint: a quarter of the interval";
  EXPECT_EQ(level[1], 2);
  EXPECT_EQ(level[2], 2);
  EXPECT_EQ(level[3], hermite::level_for(dt / 100, dt));
  EXPECT_EQ(level[3], 7);
}

}  // namespace
}  // namespace nbody::test
