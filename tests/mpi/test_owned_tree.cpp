// The Barnes-Hut tree over rank-owned bodies (gravity/tree/distributed_tree.hpp) under mpirun with
// any number of ranks (ctest: 1, 2 and 3): every body's acceleration and potential equal bit for
// bit those of the single-process CpuTree on the whole state, whatever rank owns the body
// (scrambled ownership, after a rebalance, after a migration to the tree's owners, unbalanced
// work), for small leaves and groups (many cells cut by the ranks' first units), Plummer and
// Hernquist models, Plummer and spline softening, float64 and float32 bodies; theta = 0 is the
// direct sum; bodies on one point; the relative criterion over two passes; non-finite positions
// and ranks that disagree on the history are refused on every rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "comm/mpi_communicator.hpp"
#include "comm/owned_bodies.hpp"
#include "comm/sfc_domain.hpp"
#include "gravity/direct/cpu_direct.hpp"
#include "gravity/tree/cpu_tree.hpp"
#include "gravity/tree/distributed_tree.hpp"
#include "ic/ic.hpp"
#include "ic/owned.hpp"
#include "nbody/error.hpp"

namespace nbody {
namespace {

using gravity::tree::CpuTree;
using gravity::tree::DistributedTree;
using gravity::tree::TreeParams;

comm::Communicator& world() { return comm::world(); }

IcRequest model(const char* name, std::int64_t n, std::uint64_t seed = 3) {
  IcRequest r;
  r.name = name;
  r.n = n;
  r.seed = seed;
  return r;
}

TreeParams tree_params(double theta, int leaf, int group) {
  TreeParams p;
  p.theta = theta;
  p.leaf_size = leaf;
  p.group_size = group;
  return p;
}

GravityParams plummer_softening(double eps) {
  GravityParams g;
  g.softening = eps;
  return g;
}

// Every rank gets the whole set of (id, value) pairs in id order (test only).
template <class T>
std::vector<T> by_id(std::span<const std::uint64_t> ids, std::span<const T> v, std::int64_t n) {
  const auto all_ids = world().allgatherv<std::uint64_t>(ids);
  const auto all_v = world().allgatherv<T>(v);
  std::vector<T> out(std::size_t(n), T(-12345));
  for (std::size_t k = 0; k < all_ids.size(); ++k) out[all_ids[k]] = all_v[k];
  return out;
}

// The bodies drawn per rank (id blocks: not curve ranges), then dealt out again by id so that
// every rank owns bodies from all over the model.
template <class T>
comm::OwnedBodies<T> scrambled(const IcRequest& req) {
  auto b = draw_owned_bodies<T>(world(), req);
  std::vector<int> dest(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) dest[i] = int((7 * b.p.id[i] + 1) % std::uint64_t(world().size()));
  comm::migrate(world(), b, dest);
  return b;
}

// The single-process tree's accelerations of the whole state (in id order).
template <class T>
std::vector<std::vector<T>> single_process(const Particles<T>& whole, const GravityParams& g, const TreeParams& p) {
  const int n = int(whole.size());
  std::vector<std::vector<T>> a(3, std::vector<T>(static_cast<std::size_t>(n)));
  CpuTree tree(g, p);
  tree.accelerations(TargetView<T>{whole.x.data(), whole.y.data(), whole.z.data(), n, 0},
                     SourceView<T>{whole.x.data(), whole.y.data(), whole.z.data(), whole.m.data(), n},
                     Vec3Span<T>{a[0].data(), a[1].data(), a[2].data()});
  return a;
}

// The distributed tree's accelerations of b's bodies, gathered by id, against `want` bit for bit.
// Returns the accelerations (in b's order).
template <class T>
std::vector<std::vector<T>> expect_bits(DistributedTree& tree, comm::OwnedBodies<T>& b,
                                        const std::vector<std::vector<T>>& want, const std::string& what,
                                        gravity::tree::PreviousAccelerations<T> previous = {}) {
  std::vector<std::vector<T>> a(3, std::vector<T>(b.size()));
  tree.accelerations(b, {a[0].data(), a[1].data(), a[2].data()}, previous);
  for (int d = 0; d < 3; ++d) {
    const auto got = by_id<T>(b.p.id, a[std::size_t(d)], b.n_total);
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i], want[std::size_t(d)][i]) << what << ": body " << i << " axis " << d;
      if (got[i] != want[std::size_t(d)][i]) return a;
    }
  }
  return a;
}

TEST(DistributedTree, TheSingleProcessBitsWhateverRankOwnsABody) {
  struct Case {
    const char* model;
    double theta;
    int leaf, group;
    GravityParams g;
  };
  GravityParams spline = plummer_softening(0.02);
  spline.law = SofteningLaw::spline;
  const Case cases[] = {
      {"plummer", 0.5, 4, 4, plummer_softening(0.01)},   // units of 32 bodies: many cut cells
      {"hernquist", 0.6, 2, 2, plummer_softening(0.0)},  // unsoftened, leaves of 2
      {"hernquist", 0.4, 16, 1, spline},                 // groups of one body, leaves larger than units of 8
      {"plummer", 0.7, 8, 16, plummer_softening(0.05)},
  };
  for (const Case& k : cases) {
    const auto req = model(k.model, 3000);
    const Particles<double> whole = make_initial_conditions(req);
    const TreeParams p = tree_params(k.theta, k.leaf, k.group);
    const auto want = single_process(whole, k.g, p);
    const std::string what = std::string(k.model) + " theta " + std::to_string(k.theta) + " leaf " +
                             std::to_string(k.leaf) + " group " + std::to_string(k.group);
    DistributedTree tree(comm::world_shared(), k.g, p);
    auto b = scrambled<double>(req);
    expect_bits(tree, b, want, what + " (scrambled)");
    // Each body's work is now its terms (multipoles and bodies of its group's list).
    std::uint64_t work = 0;
    for (auto w : b.work) work += w;
    const std::uint64_t mine[2] = {work, tree.stats().m2p + tree.stats().p2p};
    const auto sums = comm::allreduce_sum_u64(world(), mine);
    EXPECT_EQ(sums[0], sums[1]) << what;
  }
}

TEST(DistributedTree, AfterARebalanceAndAMigrationToTheTreesOwners) {
  const auto req = model("plummer", 2500, 9);
  const Particles<double> whole = make_initial_conditions(req);
  const GravityParams g = plummer_softening(0.01);
  const TreeParams p = tree_params(0.5, 4, 8);
  const auto want = single_process(whole, g, p);
  DistributedTree tree(comm::world_shared(), g, p);
  auto b = draw_owned_bodies<double>(world(), req);
  auto balanced_work = [&] {
    for (std::size_t i = 0; i < b.size(); ++i) b.work[i] = 1 + b.p.id[i] % 5;
  };
  balanced_work();
  comm::SfcDomain d;
  comm::rebalance(world(), b, d, 1.0);  // comm's own curve ranges (its key box, not the tree's)
  expect_bits(tree, b, want, "after rebalance");
  // Every body to the rank the tree gave it: with the same work, the next pass moves none.
  balanced_work();
  expect_bits(tree, b, want, "same work");
  comm::migrate(world(), b, tree.tree_owner());
  balanced_work();
  expect_bits(tree, b, want, "on the tree's owners");
  EXPECT_EQ(tree.stats().move_bytes_sent, 0);
  EXPECT_EQ(tree.stats().move_bytes_received, 0);
  EXPECT_EQ(tree.stats().owned_bodies, tree.stats().tree_bodies);
}

TEST(DistributedTree, UnbalancedWorkMovesTheUnitsNotTheBits) {
  const auto req = model("hernquist", 3000, 4);
  const Particles<double> whole = make_initial_conditions(req);
  const GravityParams g = plummer_softening(0.01);
  const TreeParams p = tree_params(0.6, 4, 4);
  const auto want = single_process(whole, g, p);
  DistributedTree tree(comm::world_shared(), g, p);
  auto b = scrambled<double>(req);
  // The first tenth of the ids cost a thousand times more: the ranks' ranges follow the work.
  for (std::size_t i = 0; i < b.size(); ++i) b.work[i] = b.p.id[i] < 300 ? 1000 : 1;
  expect_bits(tree, b, want, "unbalanced work");
  const auto held = world().allgather_value<std::int64_t>(tree.stats().tree_bodies);
  std::int64_t sum = 0;
  for (auto h : held) sum += h;
  EXPECT_EQ(sum, 3000);
  // The bodies' work is now their terms: a second pass balanced by it, the same bits.
  expect_bits(tree, b, want, "work from the last pass");
}

TEST(DistributedTree, PotentialsAndTheEnergyHaveTheSingleProcessBits) {
  const auto req = model("plummer", 2000, 5);
  const Particles<double> whole = make_initial_conditions(req);
  const GravityParams g = plummer_softening(0.02);
  const TreeParams p = tree_params(0.5, 4, 4);
  const int n = int(whole.size());
  std::vector<double> want(static_cast<std::size_t>(n));
  CpuTree one(g, p);
  const SourceView<double> s{whole.x.data(), whole.y.data(), whole.z.data(), whole.m.data(), n};
  one.potentials(TargetView<double>{whole.x.data(), whole.y.data(), whole.z.data(), n, 0}, s, want.data());
  const double w_one = one.potential_energy(s);
  DistributedTree tree(comm::world_shared(), g, p);
  const auto b = scrambled<double>(req);
  std::vector<double> phi(b.size());
  tree.potentials(b, phi.data());
  const auto got = by_id<double>(b.p.id, phi, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[std::size_t(i)], want[std::size_t(i)]) << "body " << i;
  EXPECT_EQ(tree.potential_energy(b), w_one);
}

TEST(DistributedTree, Float32Bodies) {
  const auto req = model("plummer", 1500, 6);
  const Particles<float> whole = make_initial_conditions(req).as<float>();
  const GravityParams g = plummer_softening(0.01);
  const TreeParams p = tree_params(0.5, 8, 4);
  DistributedTree tree(comm::world_shared(), g, p);
  auto b = scrambled<float>(req);
  expect_bits(tree, b, single_process(whole, g, p), "float32");
}

TEST(DistributedTree, ThetaZeroIsTheDirectSum) {
  const auto req = model("hernquist", 800, 8);
  const Particles<double> whole = make_initial_conditions(req);
  const GravityParams g = plummer_softening(0.01);
  const TreeParams p = tree_params(0.0, 4, 4);
  const auto want = single_process(whole, g, p);
  DistributedTree tree(comm::world_shared(), g, p);
  auto b = scrambled<double>(req);
  expect_bits(tree, b, want, "theta 0");
  // Every cell opened: no multipole term, every pair a body term (the oracle's sum to rounding).
  const std::uint64_t mine[2] = {tree.stats().m2p, tree.stats().p2p};
  const auto terms = comm::allreduce_sum_u64(world(), mine);
  EXPECT_EQ(terms[0], 0u);
  EXPECT_EQ(terms[1], 800u * 800u);
  const int n = int(whole.size());
  std::vector<double> rx(static_cast<std::size_t>(n)), ry(static_cast<std::size_t>(n)), rz(static_cast<std::size_t>(n));
  direct::reference_accelerations(TargetView<double>{whole.x.data(), whole.y.data(), whole.z.data(), n, 0},
                                  SourceView<double>{whole.x.data(), whole.y.data(), whole.z.data(), whole.m.data(), n},
                                  {rx.data(), ry.data(), rz.data()}, g);
  for (int i = 0; i < n; ++i) {
    const double scale = std::hypot(rx[std::size_t(i)], ry[std::size_t(i)], rz[std::size_t(i)]);
    EXPECT_NEAR(want[0][std::size_t(i)], rx[std::size_t(i)], 1e-12 * scale) << "body " << i;
  }
}

TEST(DistributedTree, FewBodiesLeaveRanksWithoutUnits) {
  for (std::int64_t n : {0, 1, 2, 40}) {
    const auto req = model("plummer", n, 2);
    const Particles<double> whole = make_initial_conditions(req);
    const GravityParams g = plummer_softening(0.01);
    const TreeParams p = tree_params(0.5, 4, 4);
    DistributedTree tree(comm::world_shared(), g, p);
    auto b = scrambled<double>(req);
    if (n == 0) {
      std::vector<double> a(b.size());
      tree.accelerations(b, {a.data(), a.data(), a.data()});
      EXPECT_EQ(tree.stats().units, 0);
      continue;
    }
    expect_bits(tree, b, single_process(whole, g, p), "n " + std::to_string(n));
  }
}

// Bodies sharing one key: a cell at the deepest level is a leaf and a unit whatever its count
// (here 300 bodies on one point and 100 on another, beside 600 of a Plummer model).
TEST(DistributedTree, BodiesOnOnePointFormOneUnit) {
  Particles<double> whole = make_initial_conditions(model("plummer", 1000, 14));
  for (std::size_t i = 0; i < 400; ++i) {
    const double at = i < 300 ? 0.125 : -0.5;
    whole.x[i] = at, whole.y[i] = at, whole.z[i] = at;
  }
  const GravityParams g = plummer_softening(0.01);
  const TreeParams p = tree_params(0.5, 4, 4);
  const auto want = single_process(whole, g, p);
  DistributedTree tree(comm::world_shared(), g, p);
  auto b = comm::scatter_id_blocks(world(), world().rank() == 0 ? whole : Particles<double>{});
  std::vector<int> dest(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) dest[i] = int((5 * b.p.id[i] + 2) % std::uint64_t(world().size()));
  comm::migrate(world(), b, dest);
  expect_bits(tree, b, want, "coincident bodies");
}

TEST(DistributedTree, ReportsWhatItHeldAndSent) {
  const auto req = model("hernquist", 4000, 12);
  const GravityParams g = plummer_softening(0.01);
  DistributedTree tree(comm::world_shared(), g, tree_params(0.7, 8, 8));
  auto b = scrambled<double>(req);
  std::vector<double> ax(b.size()), ay(b.size()), az(b.size());
  tree.accelerations(b, {ax.data(), ay.data(), az.data()});
  const auto& s = tree.stats();
  EXPECT_EQ(s.owned_bodies, std::int64_t(b.size()));
  EXPECT_LE(s.tree_bodies + s.remote_bodies, 4000);  // no body twice on a rank
  EXPECT_EQ(s.peak_cells, s.top_cells + s.own_cells + s.remote_cells);
  if (world().size() > 1) {
    EXPECT_GT(s.bytes_sent, 0);
    EXPECT_GT(s.let_bytes_received, 0);
    // The far field arrives as multipoles: not every other rank's body comes here.
    EXPECT_LT(s.remote_bodies, 4000 - s.tree_bodies);
    EXPECT_LT(s.own_units, s.units);
  } else {
    EXPECT_EQ(s.bytes_sent + s.bytes_received, 0);
  }
  // The phases' host-clock times: each measured, together within the whole pass.
  const double phases[] = {s.top_s, s.move_s, s.build_s, s.multipoles_s, s.exchange_s, s.walk_s};
  double sum = 0;
  for (const double t : phases) {
    EXPECT_GE(t, 0);
    sum += t;
  }
  EXPECT_GT(s.walk_s, 0);
  EXPECT_GT(s.pass_s, 0);
  EXPECT_LE(sum, s.pass_s * (1 + 1e-9));
  std::printf(
      "rank %d of %d: owned %lld tree %lld remote %lld bodies; cells top %lld own %lld remote %lld; "
      "units %lld (own %lld), %d rounds; bytes sent %lld received %lld (let %lld / %lld, units %lld)\n",
      world().rank(), world().size(), (long long)s.owned_bodies, (long long)s.tree_bodies, (long long)s.remote_bodies,
      (long long)s.top_cells, (long long)s.own_cells, (long long)s.remote_cells, (long long)s.units,
      (long long)s.own_units, s.top_rounds, (long long)s.bytes_sent, (long long)s.bytes_received,
      (long long)s.let_bytes_sent, (long long)s.let_bytes_received, (long long)s.unit_bytes_received);
}

// The relative criterion over two passes: the first (no history) is Barnes-Hut, the second opens
// cells by the first's |a|, handed in as the accelerations the bodies carried (extra fields)
// through a migration, as CpuTree records them; then the potentials by the second's.
TEST(DistributedTree, TheRelativeCriterionWithThePreviousPassAccelerations) {
  const auto req = model("hernquist", 2500, 10);
  const Particles<double> whole = make_initial_conditions(req);
  const GravityParams g = plummer_softening(0.01);
  TreeParams p = tree_params(0.5, 4, 4);
  p.criterion = gravity::tree::Criterion::relative;
  p.alpha = 0.001;
  const int n = int(whole.size());
  CpuTree one(g, p);
  const SourceView<double> s{whole.x.data(), whole.y.data(), whole.z.data(), whole.m.data(), n};
  const TargetView<double> t{whole.x.data(), whole.y.data(), whole.z.data(), n, 0};
  std::vector<std::vector<double>> a1(3, std::vector<double>(static_cast<std::size_t>(n))), a2 = a1;
  one.accelerations(t, s, {a1[0].data(), a1[1].data(), a1[2].data()});
  const std::uint64_t first_terms = one.stats().m2p + one.stats().p2p;
  one.accelerations(t, s, {a2[0].data(), a2[1].data(), a2[2].data()});
  EXPECT_NE(one.stats().m2p + one.stats().p2p, first_terms);  // (the second pass opened other cells)
  std::vector<double> phi_one(static_cast<std::size_t>(n));
  one.potentials(t, s, phi_one.data());  // (opened by the second pass's |a|)

  DistributedTree tree(comm::world_shared(), g, p);
  auto b = scrambled<double>(req);
  b.extra = expect_bits(tree, b, a1, "first pass");
  comm::migrate(world(), b, tree.tree_owner());
  b.extra = expect_bits(tree, b, a2, "second pass", {true, b.extra[0].data(), b.extra[1].data(), b.extra[2].data()});
  std::vector<double> phi(b.size());
  tree.potentials(b, phi.data(), {true, b.extra[0].data(), b.extra[1].data(), b.extra[2].data()});
  const auto got = by_id<double>(b.p.id, phi, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[std::size_t(i)], phi_one[std::size_t(i)]) << "body " << i;
}

// Every rank at once: a non-finite position on one rank, and ranks that disagree on whether they
// hand in a history, are errors on every rank (none is left waiting in a collective).
TEST(DistributedTree, RefusalsReachEveryRank) {
  const auto req = model("plummer", 300, 2);
  const GravityParams g = plummer_softening(0.01);
  TreeParams p = tree_params(0.5, 4, 4);
  {
    DistributedTree tree(comm::world_shared(), g, p);
    auto b = scrambled<double>(req);
    if (world().rank() == world().size() - 1 && b.size() > 0) b.p.y[0] = std::nan("");
    std::vector<double> a(b.size());
    try {
      tree.accelerations(b, {a.data(), a.data(), a.data()});
      ADD_FAILURE() << "no error for a non-finite position";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("non-finite"), std::string::npos) << e.what();
    }
  }
  if (world().size() == 1) return;
  p.criterion = gravity::tree::Criterion::relative;
  DistributedTree tree(comm::world_shared(), g, p);
  auto b = scrambled<double>(req);
  std::vector<double> a(b.size() + 1);
  gravity::tree::PreviousAccelerations<double> previous{world().rank() == 0, a.data(), a.data(), a.data()};
  try {
    tree.accelerations(b, {a.data(), a.data(), a.data()}, previous);
    ADD_FAILURE() << "no error for ranks that disagree on the history";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("previous accelerations"), std::string::npos) << e.what();
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
