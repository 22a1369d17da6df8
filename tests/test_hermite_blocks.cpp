// Hermite block steps where the store lives: the schedule's operations (the next block time,
// the active block in index order) against a plain host computation; the force pass's bits for
// a body whatever else is active (every launch mode of the GPU pass makes the same additions, and
// so does the pass that reads its count on the device); the device's block-step loop against the
// host's;
// block steps against the float64 CPU reference (the same levels and block counts, positions
// within a stated bound); shared adaptive steps the same bits twice; the energy error of a
// Plummer sphere at eps = 4/N; a hard binary inside a small cluster keeping its orbit.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "core/rng.hpp"
#include "ic/ic.hpp"
#include "integrate/integrator.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

class HermiteBlocks : public testing::TestWithParam<BackendCase> {};
class HermiteBlocksFp64 : public testing::TestWithParam<BackendCase> {};

// Levels 0..6 and times that are multiples of the step (as the scheduler keeps them); the
// earliest step end and the bodies there, from the ops of the backend against a host loop.
TEST_P(HermiteBlocks, NextBlockAndActiveSetMatchAHostLoopInIndexOrder) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const std::size_t n = 5003;  // not a multiple of any block
  auto s = make_system<double>(GetParam().backend, n, {1.0, 0.01}, Precision::fp64);
  const Location at = s->store().location();
  std::vector<std::int32_t> level(n);
  std::vector<std::int64_t> last(n);
  Rng rng(7);
  for (int round = 0; round < 3; ++round) {
    for (std::size_t i = 0; i < n; ++i) {
      level[i] = 3 + static_cast<std::int32_t>(rng.uniform() * 4);  // 3..6
      const std::int64_t step = hermite::ticks_of(level[i]);
      last[i] = step * static_cast<std::int64_t>(rng.uniform() * (round + 1));
    }
    Array<std::int32_t> dlevel(at, n), index(at, n);
    Array<std::int64_t> dlast(at, n);
    copy_bytes(dlevel.data(), at, level.data(), Location::host(), n * sizeof(std::int32_t), s->store().stream());
    copy_bytes(dlast.data(), at, last.data(), Location::host(), n * sizeof(std::int64_t), s->store().stream());
    const particles::HermiteSchedule sched{dlevel.data(), dlast.data(), static_cast<int>(n)};
    const particles::BlockTime got = s->ops().hermite_next_block(sched);
    std::int64_t next = hermite::kTicks;
    for (std::size_t i = 0; i < n; ++i) next = std::min(next, last[i] + hermite::ticks_of(level[i]));
    std::vector<std::int32_t> want;
    for (std::size_t i = 0; i < n; ++i) {
      if (last[i] + hermite::ticks_of(level[i]) == next) want.push_back(static_cast<std::int32_t>(i));
    }
    ASSERT_EQ(got.next, next);
    ASSERT_EQ(got.count, static_cast<int>(want.size()));
    ASSERT_GT(want.size(), 1u);
    ASSERT_LT(want.size(), n);
    s->ops().hermite_select(sched, got.next, index.data(), got.count);
    std::vector<std::int32_t> picked(want.size());
    copy_bytes(picked.data(), Location::host(), index.data(), at, picked.size() * sizeof(std::int32_t),
               s->store().stream());
    EXPECT_EQ(picked, want) << "round " << round;
  }
}

// The acceleration and jerk of a body are the same bits whatever the other active bodies: all
// of them (the GPU's one-pass launch for a large set), a mid-sized set and a small one (the
// sources split over blocks and the partials folded). N is large enough on the GPU for all
// three launch modes of an SM count up to 136 (acc_jerk_shape.hpp).
TEST_P(HermiteBlocks, AccelerationAndJerkBitsDoNotDependOnTheActiveSet) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const bool gpu = GetParam().backend == "cuda";
  const std::size_t n = gpu ? 70001 : 1501;
  with_state_type(GetParam().precision, [&]<class T>() {
    auto s = make_system<T>(GetParam(), n, {1.0, 0.01});
    s->upload(make_plummer({"plummer", static_cast<std::int64_t>(n), 11}).as<T>());
    const Location at = s->store().location();
    // counted: the count read where the solver computes (the device loop's pass), the arrays
    // sized for every body.
    auto pass = [&](const std::vector<std::int32_t>& targets, bool counted = false) {
      const std::size_t c = targets.size();
      Array<std::int32_t> index(at, counted ? n : c), count(at, 1);
      copy_bytes(index.data(), at, targets.data(), Location::host(), c * sizeof(std::int32_t), s->store().stream());
      const auto ci = static_cast<std::int32_t>(c);
      copy_bytes(count.data(), at, &ci, Location::host(), sizeof ci, s->store().stream());
      std::vector<Array<T>> out;
      for (int k = 0; k < 6; ++k) out.emplace_back(at, counted ? n : c);
      const Vec3Span<T> acc{out[0].data(), out[1].data(), out[2].data()};
      const Vec3Span<T> jerk{out[3].data(), out[4].data(), out[5].data()};
      if (counted) {
        s->solver().acc_jerk_counted(index.data(), count.data(), static_cast<int>(n), s->view().motion(), acc, jerk);
      } else {
        s->solver().acc_jerk({index.data(), static_cast<int>(c)}, s->view().motion(), acc, jerk);
      }
      std::vector<std::vector<T>> host(6, std::vector<T>(c));
      for (int k = 0; k < 6; ++k) {
        copy_bytes(host[k].data(), Location::host(), out[k].data(), at, c * sizeof(T), s->store().stream());
      }
      return host;
    };
    std::vector<std::int32_t> all(n), mid, small;
    std::iota(all.begin(), all.end(), 0);
    for (std::size_t i = 3; i < n; i += n / (gpu ? 20000 : 300)) mid.push_back(static_cast<std::int32_t>(i));
    for (std::size_t i = 5; i < n; i += n / 97) small.push_back(static_cast<std::int32_t>(i));
    const auto whole = pass(all);
    const bool counted = s->solver().capabilities().counted_jerk;
    if (counted) s->solver().reserve_counted_jerk(static_cast<std::int64_t>(n));
    EXPECT_EQ(counted, gpu);
    for (const auto* set : {&all, &mid, &small}) {
      for (bool on_device : {false, true}) {
        if (on_device && !counted) continue;
        if (set == &all && !on_device) continue;
        const auto part = pass(*set, on_device);
        for (std::size_t k = 0; k < set->size(); ++k) {
          const auto i = static_cast<std::size_t>((*set)[k]);
          for (int c = 0; c < 6; ++c) {
            ASSERT_EQ(std::memcmp(&part[c][k], &whole[c][i], sizeof(T)), 0)
                << "body " << i << " component " << c << " with " << set->size() << " active"
                << (on_device ? ", the count on the device" : "");
          }
        }
      }
    }
  });
}

// hermite4 with block steps (or shared steps) from a Plummer sphere, `intervals` steps of dt.
struct BlockRun {
  Particles<double> p;
  std::vector<std::int32_t> levels;
  BlockStepStats stats;
  double e0 = 0, e1 = 0;
};

BlockRun run_blocks(const std::string& backend, const Particles<double>& initial, const GravityParams& g,
                    StepMode mode, double eta, double dt, int intervals, bool device_loop = true,
                    Precision precision = Precision::fp64) {
  auto s = make_system<double>(backend, initial.size(), g, precision);
  IntegratorOptions o;
  o.mode = mode;
  o.eta = eta;
  o.device_loop = device_loop;
  auto integ = make_integrator<double>("hermite4", o);
  s->upload(initial);
  integ->prepare(*s);
  BlockRun r;
  r.e0 = s->moments().kinetic + s->potential_energy();
  for (int k = 0; k < intervals; ++k) integ->step(*s, dt);
  r.e1 = s->moments().kinetic + s->potential_energy();
  s->download(r.p);
  r.levels = integ->particle_state();
  r.stats = integ->block_stats();
  return r;
}

// Against the float64 CPU reference: the same levels after each of the first intervals and the
// same number of block steps and active bodies (the schedule is integer arithmetic on criteria
// that agree to rounding), and positions within 1e-9 after 1/8 time unit (rounding differences
// of the force sums, ~1e-15, grown by the chaotic dynamics of 256 bodies over 1/8 time unit:
// measured 1.1e-16 between the CPU SIMD solver and the reference).
TEST_P(HermiteBlocksFp64, BlockStepsFollowTheCpuReference) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const auto initial = make_plummer({"plummer", 256, 21});
  const GravityParams g{1.0, 4.0 / 256};
  for (int intervals : {1, 2}) {
    const auto got = run_blocks(GetParam().backend, initial, g, StepMode::block, 0.02, 1.0 / 16, intervals);
    const auto ref = run_blocks("cpu-reference", initial, g, StepMode::block, 0.02, 1.0 / 16, intervals);
    EXPECT_EQ(got.levels, ref.levels) << intervals << " intervals";
    EXPECT_EQ(got.stats.block_steps, ref.stats.block_steps);
    EXPECT_EQ(got.stats.active, ref.stats.active);
    EXPECT_LT(got.stats.active, got.stats.block_steps * initial.size());  // block steps, not shared ones
    double worst = 0;
    for (std::size_t i = 0; i < initial.size(); ++i) {
      worst = std::max({worst, std::fabs(got.p.x[i] - ref.p.x[i]), std::fabs(got.p.y[i] - ref.p.y[i]),
                        std::fabs(got.p.z[i] - ref.p.z[i])});
    }
    EXPECT_LT(worst, 1e-9) << intervals << " intervals";
    testing::Test::RecordProperty("max_position_difference_" + std::to_string(intervals), sci(worst));
  }
}

// Shared adaptive steps (--dt-mode auto) run through the same schedule: the same bits twice,
// every body on one level, and every block step holds every body.
TEST_P(HermiteBlocksFp64, SharedAdaptiveStepsGiveTheSameBitsTwice) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const auto initial = make_plummer({"plummer", 300, 22});
  const GravityParams g{1.0, 0.01};
  const auto a = run_blocks(GetParam().backend, initial, g, StepMode::automatic, 0.02, 1.0 / 16, 2);
  const auto b = run_blocks(GetParam().backend, initial, g, StepMode::automatic, 0.02, 1.0 / 16, 2);
  EXPECT_EQ(std::memcmp(a.p.x.data(), b.p.x.data(), a.p.x.size() * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(a.p.vz.data(), b.p.vz.data(), a.p.vz.size() * sizeof(double)), 0);
  EXPECT_EQ(*std::min_element(a.levels.begin(), a.levels.end()), *std::max_element(a.levels.begin(), a.levels.end()));
  EXPECT_GT(a.levels.front(), 0);
  EXPECT_EQ(a.stats.active, a.stats.block_steps * initial.size());
}

// A Plummer sphere of 512 bodies at eps = 4/N, Aarseth's eta = 0.01, 1/4 time unit in intervals
// of 1/16: the energy error stays below 1e-7 (docs/collisional.md; measured on the CPU
// reference: see the recorded property).
TEST_P(HermiteBlocksFp64, PlummerAtEpsFourOverNKeepsItsEnergy) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const std::size_t n = 512;
  const auto initial = make_plummer({"plummer", static_cast<std::int64_t>(n), 23});
  const auto r = run_blocks(GetParam().backend, initial, {1.0, 4.0 / n}, StepMode::block, 0.01, 1.0 / 16, 4);
  const double de = std::fabs((r.e1 - r.e0) / r.e0);
  EXPECT_LT(de, 1e-7);
  testing::Test::RecordProperty("energy_error", sci(de));
  testing::Test::RecordProperty("mean_active", sci(double(r.stats.active) / double(r.stats.block_steps)));
}

// A hard binary (semi-major axis 1e-3, equal masses 1/64 each, circular) at the centre of a
// Plummer sphere of 62 bodies (total mass 1, eps = 1e-5): its period (~1.6e-4) is 400 times
// shorter than the interval, so the scheduler must put its two bodies some 12 levels below the
// rest; after 1/8 time unit (~800 orbits) its semi-major axis and eccentricity are kept.
TEST_P(HermiteBlocksFp64, HardBinaryInAClusterKeepsItsOrbit) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  auto p = make_plummer({"plummer", 62, 24});
  const double mb = 1.0 / 64, a0 = 1e-3;
  for (auto& m : p.m) m *= 1.0 - 2 * mb;
  const double v = 0.5 * std::sqrt(2 * mb / a0);  // each body's speed on the circular orbit
  const double xs[2] = {0.5 * a0, -0.5 * a0}, vs[2] = {v, -v};
  for (int k = 0; k < 2; ++k) {
    p.x.push_back(xs[k]);
    p.y.push_back(0);
    p.z.push_back(0);
    p.vx.push_back(0);
    p.vy.push_back(vs[k]);
    p.vz.push_back(0);
    p.m.push_back(mb);
    p.id.push_back(p.id.size());
    if (!p.component.empty()) p.component.push_back(p.component.back());
  }
  const std::size_t i = 62, j = 63;
  auto orbit = [&](const Particles<double>& q, double& a, double& e) {
    const double dx = q.x[i] - q.x[j], dy = q.y[i] - q.y[j], dz = q.z[i] - q.z[j];
    const double du = q.vx[i] - q.vx[j], dv = q.vy[i] - q.vy[j], dw = q.vz[i] - q.vz[j];
    const double r = std::sqrt(dx * dx + dy * dy + dz * dz), mu = q.m[i] + q.m[j];
    const double energy = 0.5 * (du * du + dv * dv + dw * dw) - mu / r;
    a = -mu / (2 * energy);
    const double hx = dy * dw - dz * dv, hy = dz * du - dx * dw, hz = dx * dv - dy * du;
    e = std::sqrt(std::max(0.0, 1 + 2 * energy * (hx * hx + hy * hy + hz * hz) / (mu * mu)));
  };
  double a_start = 0, e_start = 0;
  orbit(p, a_start, e_start);
  const auto r = run_blocks(GetParam().backend, p, {1.0, 1e-5}, StepMode::block, 0.01, 1.0 / 16, 2);
  double a_end = 0, e_end = 0;
  orbit(r.p, a_end, e_end);
  EXPECT_LT(std::fabs(a_end - a_start) / a_start, 1e-3);
  EXPECT_LT(std::fabs(e_end - e_start), 1e-2);
  const int binary_level = std::min(r.levels[i], r.levels[j]);
  std::vector<std::int32_t> others(r.levels.begin(), r.levels.begin() + 62);
  std::nth_element(others.begin(), others.begin() + 31, others.end());
  EXPECT_GE(binary_level, others[31] + 8) << "the binary's level against the cluster's median";
  testing::Test::RecordProperty("semi_major_axis_change", sci(std::fabs(a_end - a_start) / a_start));
  testing::Test::RecordProperty("eccentricity_change", sci(std::fabs(e_end - e_start)));
}

// The block steps of an interval as one loop on the device (a conditional graph; on the CPU
// there is none and both runs are the host's loop) against the host driving each block step:
// the same bits, levels and statistics, for block and shared adaptive steps, with the Plummer
// and the spline law; on the GPU every interval ran as a device loop. The mixed-precision
// solver (float64 state) runs the same comparison.
TEST_P(HermiteBlocksFp64, DeviceLoopGivesTheBitsOfTheHostLoop) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const bool gpu = GetParam().backend == "cuda";
  const auto initial = make_plummer({"plummer", 700, 25});
  struct Case {
    StepMode mode;
    GravityParams g;
    Precision precision;
  };
  GravityParams spline{1.0, 0.01};
  spline.law = SofteningLaw::spline;
  std::vector<Case> cases = {{StepMode::block, {1.0, 4.0 / 700}, Precision::fp64},
                             {StepMode::automatic, {1.0, 0.01}, Precision::fp64},
                             {StepMode::block, spline, Precision::fp64}};
  if (gpu) {
    cases.push_back({StepMode::block, {1.0, 4.0 / 700}, Precision::mixed});
  } else {
    cases.resize(1);  // the CPU has no device loop: one case shows both runs are the host's
  }
  for (const Case& c : cases) {
    const auto host = run_blocks(GetParam().backend, initial, c.g, c.mode, 0.02, 1.0 / 16, 3, false, c.precision);
    const auto loop = run_blocks(GetParam().backend, initial, c.g, c.mode, 0.02, 1.0 / 16, 3, true, c.precision);
    const std::string what = std::string(c.mode == StepMode::block ? "block" : "auto") + " " +
                             std::string(to_string(c.precision)) + (c.g.law == SofteningLaw::spline ? " spline" : "");
    EXPECT_EQ(host.stats.device_loops, 0u) << what;
    EXPECT_EQ(loop.stats.device_loops, gpu ? 3u : 0u) << what;
    EXPECT_EQ(loop.levels, host.levels) << what;
    EXPECT_EQ(loop.stats.block_steps, host.stats.block_steps) << what;
    EXPECT_EQ(loop.stats.active, host.stats.active) << what;
    EXPECT_EQ(loop.stats.histogram, host.stats.histogram) << what;
    for (auto f : {&Particles<double>::x, &Particles<double>::y, &Particles<double>::z, &Particles<double>::vx,
                          &Particles<double>::vy, &Particles<double>::vz}) {
      EXPECT_EQ(std::memcmp((loop.p.*f).data(), (host.p.*f).data(), initial.size() * sizeof(double)), 0) << what;
    }
    EXPECT_NE(std::memcmp(loop.p.x.data(), initial.x.data(), initial.size() * sizeof(double)), 0) << what;
    EXPECT_GT(loop.stats.block_steps, 3u) << what;
  }
}

// The device loop twice from the same start: the same bits (block steps, Plummer softening).
TEST_P(HermiteBlocksFp64, DeviceLoopGivesTheSameBitsTwice) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const auto initial = make_plummer({"plummer", 500, 26});
  const GravityParams g{1.0, 4.0 / 500};
  const auto a = run_blocks(GetParam().backend, initial, g, StepMode::block, 0.02, 1.0 / 16, 2);
  const auto b = run_blocks(GetParam().backend, initial, g, StepMode::block, 0.02, 1.0 / 16, 2);
  EXPECT_EQ(std::memcmp(a.p.x.data(), b.p.x.data(), a.p.x.size() * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(a.p.vy.data(), b.p.vy.data(), a.p.vy.size() * sizeof(double)), 0);
  EXPECT_EQ(a.levels, b.levels);
  EXPECT_EQ(a.stats.active, b.stats.active);
}

// The counters of the block steps: bin b holds the active sets 2^b <= active < 2^(b+1), an
// empty one in bin 0, the largest in the last bin (the device's loop and the host count alike).
TEST(HermiteBlockCounts, BinsArePowersOfTwo) {
  EXPECT_EQ(particles::block_bin(0), 0);
  EXPECT_EQ(particles::block_bin(1), 0);
  EXPECT_EQ(particles::block_bin(2), 1);
  EXPECT_EQ(particles::block_bin(3), 1);
  EXPECT_EQ(particles::block_bin(4), 2);
  EXPECT_EQ(particles::block_bin(490), 8);
  EXPECT_EQ(particles::block_bin(65535), 15);
  EXPECT_EQ(particles::block_bin(65536), 16);
  EXPECT_EQ(particles::block_bin(std::uint64_t(1) << 40), particles::BlockCounts::kBins - 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, HermiteBlocks, testing::ValuesIn(backend_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Backends, HermiteBlocksFp64, testing::ValuesIn(backend_cases(Precision::fp64)), case_name);

}  // namespace
}  // namespace nbody::test
