// Rank-owned bodies under mpirun with any number of ranks (ctest: 1, 2 and 3): the SFC
// decomposition (balance, determinism), migration (every body exactly once, its bits kept), the
// streamed direct sum against the single-process solvers bit for bit, the diagnostics, the
// per-rank initial conditions, and a run checkpointed on P ranks resumed on every Q <= P.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <span>
#include <vector>

#include "comm/communicator.hpp"
#include "comm/owned_bodies.hpp"
#include "comm/sfc_domain.hpp"
#include "diag/owned_diagnostics.hpp"
#include "gravity/direct/cpu_direct.hpp"
#include "gravity/direct/owned_direct.hpp"
#include "ic/ic.hpp"
#include "ic/owned.hpp"
#include "comm/mpi_communicator.hpp"
#include "io/checkpoint.hpp"
#include "nbody/error.hpp"
#include "particles/functors.hpp"
#include "particles/ops.hpp"

namespace nbody {
namespace {

comm::Communicator& world() { return comm::world(); }
std::shared_ptr<comm::Communicator> world_shared_ptr() { return comm::world_shared(); }

IcRequest cube(std::int64_t n, std::uint64_t seed = 7) {
  IcRequest r;
  r.name = "cube";
  r.n = n;
  r.seed = seed;
  return r;
}

// The owned bodies of `c` for the model, decomposed and migrated (work 1 + id % 5, so that the
// balance is by work and not by count).
template <class T>
comm::OwnedBodies<T> owned_model(comm::Communicator& c, const IcRequest& req, comm::SfcDomain& domain) {
  auto b = draw_owned_bodies<T>(c, req);
  for (std::size_t i = 0; i < b.size(); ++i) b.work[i] = 1 + b.p.id[i] % 5;
  comm::rebalance(c, b, domain, 1.0);
  return b;
}

// Every rank gets the whole set of (id, value) pairs gathered in id order (test only).
template <class T>
std::vector<T> by_id(comm::Communicator& c, std::span<const std::uint64_t> ids, std::span<const T> v, std::int64_t n) {
  const auto all_ids = c.allgatherv<std::uint64_t>(ids);
  const auto all_v = c.allgatherv<T>(v);
  std::vector<T> out(std::size_t(n), T(-12345));
  for (std::size_t k = 0; k < all_ids.size(); ++k) out[all_ids[k]] = all_v[k];
  return out;
}

TEST(SfcDomain, BalancedByWorkAndAPureFunctionOfTheBodies) {
  const std::int64_t n = 1500;
  comm::SfcDomain d1;
  auto b = owned_model<double>(world(), cube(n), d1);
  // Balance: every rank's work within one body's work (at most 5) of the mean.
  const auto bal = comm::measure_balance(world(), b.work);
  std::uint64_t total = 0;
  for (auto w : bal.work) total += w;
  for (auto w : bal.work) EXPECT_LE(double(w), double(total) / world().size() + 5.0);
  // Every body is where the domain says, and the ranges are in curve order.
  for (std::size_t i = 0; i < b.size(); ++i) EXPECT_EQ(d1.owner(comm::curve_point(b, d1, i)), world().rank());
  for (std::size_t r = 1; r < d1.first.size(); ++r) EXPECT_LE(d1.first[r - 1], d1.first[r]);
  // The same bodies dealt out differently (body id to rank (7 id) mod P) give the same ranges.
  std::vector<int> dest(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) dest[i] = int((7 * b.p.id[i]) % std::uint64_t(world().size()));
  comm::migrate(world(), b, dest);
  std::vector<std::uint64_t> keys(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) keys[i] = d1.box.key(b.p.x[i], b.p.y[i], b.p.z[i]);
  const auto d2 = comm::decompose(world(), keys, b.p.id, b.work, d1.box);
  EXPECT_EQ(d1.first, d2.first);
  // Against the rule worked out serially over every body: rank r starts at the body whose
  // inclusion takes the work before it past floor(W r / P).
  const auto all_keys = world().allgatherv<std::uint64_t>(keys);
  const auto all_ids = world().allgatherv<std::uint64_t>(b.p.id);
  const auto all_work = world().allgatherv<std::uint64_t>(b.work);
  std::vector<std::size_t> order(all_keys.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t z) {
    return comm::SfcPoint{all_keys[a], all_ids[a]} < comm::SfcPoint{all_keys[z], all_ids[z]};
  });
  const int p = world().size();
  for (int r = 1; r < p; ++r) {
    const std::uint64_t target = total * std::uint64_t(r) / std::uint64_t(p);
    std::uint64_t before = 0;
    std::size_t k = 0;
    while (before + all_work[order[k]] <= target) before += all_work[order[k++]];
    EXPECT_EQ(d1.first[std::size_t(r)], (comm::SfcPoint{all_keys[order[k]], all_ids[order[k]]})) << "rank " << r;
  }
}

TEST(SfcDomain, ImbalancePastTheThresholdRedecomposes) {
  comm::SfcDomain d;
  auto b = owned_model<double>(world(), cube(600), d);
  // Within the threshold: the ranges stay.
  auto s = comm::rebalance(world(), b, d, 1.5);
  EXPECT_FALSE(s.redecomposed);
  if (world().size() == 1) return;
  // Rank 0's bodies become 20 times as costly: past the threshold, new ranges even it out.
  for (auto& w : b.work) w = world().rank() == 0 ? 100 : 5;
  s = comm::rebalance(world(), b, d, 1.5);
  EXPECT_GT(s.imbalance_before, 1.5);
  EXPECT_TRUE(s.redecomposed);
  EXPECT_LT(s.imbalance_after, 1.2);
}

TEST(Migration, EveryBodyExactlyOnceWithItsBits) {
  const auto req = cube(1000, 11);
  const Particles<double> whole = make_initial_conditions(req);
  comm::SfcDomain d;
  auto b = owned_model<double>(world(), req, d);
  b.extra.assign(1, std::vector<double>(b.size()));
  for (std::size_t i = 0; i < b.size(); ++i) b.extra[0][i] = 0.5 * double(b.p.id[i]);  // state that travels
  // Scramble and migrate again, twice.
  for (int round = 0; round < 2; ++round) {
    std::vector<int> dest(b.size());
    for (std::size_t i = 0; i < b.size(); ++i) dest[i] = int((b.p.id[i] * 13 + round) % std::uint64_t(world().size()));
    comm::migrate(world(), b, dest);
  }
  for (std::size_t i = 0; i < b.size(); ++i) EXPECT_EQ(b.extra[0][i], 0.5 * double(b.p.id[i]));
  const auto got = comm::gather_in_id_order(world(), b);
  if (world().rank() != 0) return;
  ASSERT_EQ(got.size(), whole.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got.id[i], i);
    EXPECT_EQ(got.m[i], whole.m[i]);
    EXPECT_EQ(got.x[i], whole.x[i]);
    EXPECT_EQ(got.vy[i], whole.vy[i]);
  }
}

// Every rank at once (a rank alone would leave the others in the collective): an id outside
// 0..n-1 and a threshold that is no ratio are input errors.
TEST(Migration, RefusesIdsOutsideTheRunAndBadThresholds) {
  comm::SfcDomain d;
  auto b = owned_model<double>(world(), cube(300), d);
  EXPECT_THROW(comm::rebalance(world(), b, d, 0.5), Error);
  ASSERT_GT(b.size(), 0u);
  b.p.id[0] = 300 + std::uint64_t(world().rank());
  try {
    (void)owned_moments(world(), b);
    ADD_FAILURE() << "no error for id " << b.p.id[0];
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("body id " + std::to_string(b.p.id[0])), std::string::npos) << e.what();
  }
}

TEST(OwnedIc, TheBitsOfTheWholeModel) {
  for (const char* name : {"cube", "shell", "plummer", "king", "hernquist", "uniform-sphere"}) {
    IcRequest req = cube(777, 5);
    req.name = name;
    const Particles<double> whole = make_initial_conditions(req);
    const auto b = draw_owned_bodies<double>(world(), req);
    EXPECT_EQ(b.size(), std::size_t(comm::block_of(777, world().size(), world().rank()).count));
    const auto got = comm::gather_in_id_order(world(), b);
    if (world().rank() != 0) continue;
    ASSERT_EQ(got.size(), whole.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got.x[i], whole.x[i]) << name << " body " << i;
      ASSERT_EQ(got.vz[i], whole.vz[i]) << name << " body " << i;
    }
  }
  IcRequest galaxy = cube(100);
  galaxy.name = "disk-galaxy";
  EXPECT_THROW((void)draw_owned_bodies<double>(world(), galaxy), Error);
}

// The accelerations of the owned sum, gathered by id, and one process's solver on the whole set.
template <class T>
void expect_single_process_bits(OwnedKernel kernel, const GravityParams& g, std::int64_t n) {
  const auto req = cube(n, 3);
  const Particles<T> whole = make_initial_conditions(req).template as<T>();
  comm::SfcDomain d;
  auto b = owned_model<T>(world(), req, d);
  std::vector<T> ax(b.size()), ay(b.size()), az(b.size());
  OwnedDirectSum<T> sum(world_shared_ptr(), g, kernel);
  sum.accelerations(b, {ax.data(), ay.data(), az.data()});
  const auto gx = by_id<T>(world(), b.p.id, ax, n), gz = by_id<T>(world(), b.p.id, az, n);
  std::vector<T> wx(whole.size()), wy(whole.size()), wz(whole.size());
  const SourceView<T> s{whole.x.data(), whole.y.data(), whole.z.data(), whole.m.data(), int(n)};
  const TargetView<T> t{whole.x.data(), whole.y.data(), whole.z.data(), int(n), 0};
  switch (kernel) {
    case OwnedKernel::reference: direct::reference_accelerations(t, s, {wx.data(), wy.data(), wz.data()}, g); break;
    case OwnedKernel::simd: direct::simd_accelerations(t, s, {wx.data(), wy.data(), wz.data()}, g); break;
    case OwnedKernel::mixed:
      if constexpr (std::is_same_v<T, double>) direct::simd_accelerations_mixed(t, s, {wx.data(), wy.data(), wz.data()}, g);
      break;
  }
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(gx[std::size_t(i)], wx[std::size_t(i)]) << "body " << i;
    ASSERT_EQ(gz[std::size_t(i)], wz[std::size_t(i)]) << "body " << i;
  }
  for (auto w : b.work) EXPECT_EQ(w, std::uint64_t(n - 1));
  // What the pass moved to this rank: its id block (an id and 4 values a body), then every other
  // block's 4 values, one broadcast per block.
  const comm::Block mine = comm::id_block(n, world().size(), world().rank(), direct::kStreamAlign);
  int blocks = 0;
  for (int r = 0; r < world().size(); ++r) blocks += comm::id_block(n, world().size(), r, direct::kStreamAlign).count > 0;
  EXPECT_EQ(sum.last_traffic().values_received, 5 * mine.count + 4 * (n - mine.count));
  EXPECT_EQ(sum.last_traffic().broadcasts, blocks);
}

TEST(OwnedDirectSum, OneProcessBitsFloat32) {
  // 2500 bodies: several stream blocks of 1024 on 3 ranks, the last one short.
  expect_single_process_bits<float>(OwnedKernel::simd, {1.0, 0.05, SofteningLaw::plummer}, 2500);
  expect_single_process_bits<float>(OwnedKernel::simd, {1.0, 0.05, SofteningLaw::spline}, 1100);
  expect_single_process_bits<float>(OwnedKernel::simd, {1.0, 0.0, SofteningLaw::plummer}, 700);
}

TEST(OwnedDirectSum, OneProcessBitsMixedAndReference) {
  expect_single_process_bits<double>(OwnedKernel::mixed, {1.0, 0.05, SofteningLaw::plummer}, 2100);
  expect_single_process_bits<double>(OwnedKernel::reference, {0.5, 0.05, SofteningLaw::plummer}, 1500);
  expect_single_process_bits<float>(OwnedKernel::reference, {1.0, 0.0, SofteningLaw::plummer}, 600);
}

// float64 SIMD: the same bits on P ranks as on one (a sub-communicator of rank 0 alone), within
// rounding of the single-process loop.
TEST(OwnedDirectSum, Float64SimdIndependentOfTheRanks) {
  const std::int64_t n = 2300;
  const GravityParams g{1.0, 0.02, SofteningLaw::plummer};
  const auto run = [&](std::shared_ptr<comm::Communicator> c) {
    comm::SfcDomain d;
    auto b = owned_model<double>(*c, cube(n, 9), d);
    std::vector<double> ax(b.size()), ay(b.size()), az(b.size());
    OwnedDirectSum<double> sum(c, g, OwnedKernel::simd);
    sum.accelerations(b, {ax.data(), ay.data(), az.data()});
    const double w = sum.potential_energy(b);
    return std::pair{by_id<double>(*c, b.p.id, ax, n), w};
  };
  const auto [all, w_all] = run(world_shared_ptr());
  const auto alone = world().split(world().rank() == 0);
  if (!alone) return;
  const auto [one, w_one] = run(alone);
  EXPECT_EQ(all, one);
  EXPECT_EQ(w_all, w_one);
  const Particles<double> whole = make_initial_conditions(cube(n, 9));
  const std::size_t nn = static_cast<std::size_t>(n);
  std::vector<double> wx(nn), wy(nn), wz(nn);
  const SourceView<double> s{whole.x.data(), whole.y.data(), whole.z.data(), whole.m.data(), int(n)};
  direct::simd_accelerations<double>({s.x, s.y, s.z, int(n), 0}, s, {wx.data(), wy.data(), wz.data()}, g);
  for (std::size_t i = 0; i < std::size_t(n); ++i) EXPECT_NEAR(one[i], wx[i], 1e-11 * (1 + std::abs(wx[i])));
  EXPECT_NEAR(w_one, direct::simd_potential_energy(s, g), 1e-10 * std::abs(w_one));
}

TEST(OwnedDiagnostics, OneProcessBits) {
  const std::int64_t n = 1300;
  const auto req = cube(n, 21);
  Particles<double> whole = make_initial_conditions(req);
  comm::SfcDomain d;
  const auto b = owned_model<double>(world(), req, d);
  const Moments got = owned_moments(world(), b);
  // One process: the host executor's moments (serial, in index order).
  const ParticleView<double> v{{whole.x.data(), whole.y.data(), whole.z.data()},
                               {whole.vx.data(), whole.vy.data(), whole.vz.data()},
                               whole.m.data(),
                               whole.id.data(),
                               int(n)};
  const Moments one = make_host_ops<double>()->moments(v);
  EXPECT_EQ(got.mass, one.mass);
  EXPECT_EQ(got.kinetic, one.kinetic);
  EXPECT_EQ(got.momentum, one.momentum);
  EXPECT_EQ(got.angular, one.angular);
  EXPECT_EQ(got.mass_moment, one.mass_moment);
  // The oracle's potential energy, streamed, has one process's bits.
  const GravityParams g{1.0, 0.05, SofteningLaw::plummer};
  OwnedDirectSum<double> sum(world_shared_ptr(), g, OwnedKernel::reference);
  EXPECT_EQ(sum.potential_energy(b), direct::reference_potential_energy<double>(v.sources(), g));
}

// Kick-drift-kick steps on owned bodies, the accelerations carried as the bodies' extra fields
// (they migrate with them), a rebalance after every drift.
void kdk_steps(comm::Communicator& c, std::shared_ptr<comm::Communicator> cs, comm::OwnedBodies<float>& b,
               comm::SfcDomain& d, int steps) {
  const GravityParams g{1.0, 0.05, SofteningLaw::plummer};
  OwnedDirectSum<float> sum(cs, g, OwnedKernel::simd);
  const float dt = 1.0f / 64;
  auto force = [&] {
    b.extra.resize(3);
    for (auto& f : b.extra) f.resize(b.size());
    sum.accelerations(b, {b.extra[0].data(), b.extra[1].data(), b.extra[2].data()});
  };
  if (b.extra.size() != 3) force();
  for (int s = 0; s < steps; ++s) {
    const int n = int(b.size());
    const Vec3Span<float> v{b.p.vx.data(), b.p.vy.data(), b.p.vz.data()};
    const ConstVec3Span<float> a{b.extra[0].data(), b.extra[1].data(), b.extra[2].data()};
    for (int i = 0; i < n; ++i) particles::Kick<float>{v, a, dt / 2}(i);
    for (int i = 0; i < n; ++i) particles::Drift<float>{{b.p.x.data(), b.p.y.data(), b.p.z.data()}, as_const(v), dt}(i);
    comm::rebalance(c, b, d, 1.05);
    force();
    const Vec3Span<float> v2{b.p.vx.data(), b.p.vy.data(), b.p.vz.data()};
    const ConstVec3Span<float> a2{b.extra[0].data(), b.extra[1].data(), b.extra[2].data()};
    for (int i = 0; i < int(b.size()); ++i) particles::Kick<float>{v2, a2, dt / 2}(i);
  }
}

TEST(OwnedRestart, CheckpointedOnPRanksResumedOnEveryQ) {
  const std::int64_t n = 400;
  comm::SfcDomain d;
  auto b = draw_owned_bodies<float>(world(), cube(n, 4));
  comm::rebalance(world(), b, d, 1.05);
  kdk_steps(world(), world_shared_ptr(), b, d, 3);
  // The checkpoint: the whole state in id order on rank 0, through the checkpoint codec.
  Checkpoint ck;
  ck.config.n = n;
  ck.step = 3;
  ck.state = comm::gather_in_id_order(world(), b);
  const std::string bytes = world().rank() == 0 ? encode_checkpoint(ck) : std::string();
  // Uninterrupted: 3 more steps on every rank.
  kdk_steps(world(), world_shared_ptr(), b, d, 3);
  const auto straight = comm::gather_in_id_order(world(), b);
  for (int q = 1; q <= world().size(); ++q) {
    const auto sub = world().split(world().rank() < q);
    if (!sub) continue;
    Particles<float> state;
    if (sub->rank() == 0) state = std::get<Particles<float>>(decode_checkpoint(bytes, "memory").state);
    auto r = comm::scatter_id_blocks(*sub, state);
    comm::SfcDomain dq;
    comm::rebalance(*sub, r, dq, 1.05);
    kdk_steps(*sub, sub, r, dq, 3);
    const auto resumed = comm::gather_in_id_order(*sub, r);
    if (sub->rank() != 0) continue;
    ASSERT_EQ(resumed.size(), straight.size()) << "resumed on " << q;
    EXPECT_EQ(resumed.x, straight.x) << "resumed on " << q;
    EXPECT_EQ(resumed.vz, straight.vz) << "resumed on " << q;
    EXPECT_EQ(resumed.id, straight.id) << "resumed on " << q;
  }
}

}  // namespace
}  // namespace nbody

// Every rank runs every test; the exit status is the worst of the ranks'.
int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  std::unique_ptr<nbody::comm::MpiSession> mpi;
  if (nbody::comm::launched_by_mpi()) mpi = std::make_unique<nbody::comm::MpiSession>(&argc, &argv);
  int status = RUN_ALL_TESTS();
  status = static_cast<int>(nbody::comm::world().allreduce_max(double(status)));
  return status;
}
