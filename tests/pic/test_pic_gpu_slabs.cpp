// The host side of the PIC run over several GPUs (pic/gpu_slabs.hpp), without a GPU: the layout
// of the guard messages (slab_index.hpp's GuardRegion, which the device's pack and unpack kernels
// use too), which particles migrate and where, the order arrivals are appended in, and the slab
// state brought back into DomainPic.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "comm/communicator.hpp"
#include "nbody/error.hpp"
#include "pic/parallel/domain.hpp"
#include "pic/cuda/gpu_slabs.hpp"

namespace nbody::pic {
namespace {

GridGeometry slab_geometry(int nx, int ny) {
  GridGeometry g;
  g.nx = nx, g.ny = ny, g.dx = 0.5, g.dy = 0.25;
  return g;
}

// A value for (array, i, j) that tells every point apart.
double tag(int a, int i, int j) { return 10000.0 * a + 100.0 * (i + kGuard) + (j + kGuard); }

TEST(PicGpuSlabs, GuardMessageLayoutIsArrayRowColumn) {
  const GridGeometry g = slab_geometry(10, 3);
  std::vector<std::vector<double>> arrays(3, std::vector<double>(g.size()));
  for (int a = 0; a < 3; ++a) {
    const FieldView v{arrays[std::size_t(a)].data(), g.stride()};
    for (int j = -kGuard; j < g.ny + kGuard; ++j)
      for (int i = -kGuard; i < g.nx + kGuard; ++i) v(i, j) = tag(a, i, j);
  }
  const std::vector<double*> ptrs{arrays[0].data(), arrays[1].data(), arrays[2].data()};
  std::vector<GuardRegion> regions;
  for (int first : {-kGuard, 0, g.nx - kGuard, g.nx}) regions.push_back(guard_columns(g, first));
  for (int first : {-kGuard, 0, g.ny - kGuard, g.ny}) regions.push_back(guard_rows(g, first));
  for (const GuardRegion& r : regions) {
    const std::vector<double> m = pack_region(ptrs, g.stride(), r);
    ASSERT_EQ(m.size(), 3 * r.size());
    // The loop order: array, then row, then column.
    std::vector<double> loop;
    for (int a = 0; a < 3; ++a)
      for (int j = r.j0; j < r.j1; ++j)
        for (int i = r.i0; i < r.i1; ++i) loop.push_back(tag(a, i, j));
    EXPECT_EQ(m, loop) << r.i0 << ' ' << r.j0;
    // The device kernels' arithmetic: item t of the message is array t / size at point(t % size).
    for (std::size_t t = 0; t < m.size(); ++t) {
      int i = 0, j = 0;
      r.point(t % r.size(), i, j);
      ASSERT_EQ(m[t], tag(int(t / r.size()), i, j)) << t;
    }
  }
  // The guard columns' layout is guard_index's.
  const GuardRegion c = guard_columns(g, g.nx - kGuard);
  ASSERT_EQ(c.size(), std::size_t(g.rows() * kGuard));
  const std::vector<double> m = pack_region(ptrs, g.stride(), c);
  for (int a = 0; a < 3; ++a)
    for (int j = -kGuard; j < g.ny + kGuard; ++j)
      for (int di = 0; di < kGuard; ++di) EXPECT_EQ(m[guard_index(a, j, di, g.rows())], tag(a, c.i0 + di, j));
}

TEST(PicGpuSlabs, UnpackCopiesOrAddsIntoTheNamedColumnsOnly) {
  const GridGeometry g = slab_geometry(9, 2);
  std::vector<double> a(g.size(), 1.0), b(g.size(), 2.0);
  std::vector<double> msg(std::size_t(2 * g.rows() * kGuard));
  std::iota(msg.begin(), msg.end(), 0.5);
  unpack_region(msg, {a.data(), b.data()}, g.stride(), guard_columns(g, g.nx), false);  // the right guards, copied
  unpack_region(msg, {a.data(), b.data()}, g.stride(), guard_columns(g, 0), true);      // the first columns, added
  const FieldView va{a.data(), g.stride()}, vb{b.data(), g.stride()};
  for (int j = -kGuard; j < g.ny + kGuard; ++j)
    for (int i = -kGuard; i < g.nx + kGuard; ++i) {
      const bool copied = i >= g.nx, added = i >= 0 && i < kGuard;
      const int di = copied ? i - g.nx : i;
      for (int k = 0; k < 2; ++k) {
        const double base = k == 0 ? 1.0 : 2.0;
        const double got = k == 0 ? va(i, j) : vb(i, j);
        const double m = copied || added ? msg[guard_index(k, j, di, g.rows())] : 0.0;
        EXPECT_EQ(got, copied ? m : (added ? base + m : base)) << i << ' ' << j;
      }
    }
  // A message of the wrong length is refused; an empty one (no neighbour) changes nothing.
  msg.pop_back();
  EXPECT_THROW(unpack_region(msg, {a.data(), b.data()}, g.stride(), guard_columns(g, 0), true), Error);
  const std::vector<double> before = a;
  unpack_region({}, {a.data()}, g.stride(), guard_rows(g, 0), true);
  EXPECT_EQ(a, before);
}

TEST(PicGpuSlabs, OwnerAgreesWithTheSlabLayout) {
  for (int nx : {16, 17, 33})
    for (int ranks : {1, 2, 3, 4}) {
      const std::vector<int> even = slab_layout(nx, true, ranks, 0).starts;
      const SlabOwner own{-0.3, 0.02, nx, ranks, even.data()};
      for (int c = 0; c < nx; ++c) {
        const int r = own(-0.3 + (c + 0.5) * 0.02);
        const SlabLayout l = slab_layout(nx, true, ranks, r);
        EXPECT_TRUE(c >= l.i0 && c < l.i1) << nx << ' ' << ranks << ' ' << c << " -> " << r;
      }
      // Outside the grid: clamped to the edge slabs (an absorbed particle is never sent far).
      EXPECT_EQ(own(-0.3 - 0.5), 0);
      EXPECT_EQ(own(-0.3 + nx * 0.02 + 0.5), ranks - 1);
    }
}

// With the starts of a load-balanced layout the owner is the slab holding the column, on the host
// as the device computes it.
TEST(PicGpuSlabs, OwnerFollowsTheLayoutsStarts) {
  const int nx = 40;
  for (const std::vector<int>& starts : {std::vector<int>{0, 6, 30, 34, 40}, std::vector<int>{0, 34, 40},
                                         std::vector<int>{0, 40}, std::vector<int>{0, 6, 12, 18, 24, 30, 40}}) {
    const int ranks = int(starts.size()) - 1;
    const SlabOwner own{-0.3, 0.02, nx, ranks, starts.data()};
    for (int c = 0; c < nx; ++c) {
      const int r = own(-0.3 + (c + 0.5) * 0.02);
      const SlabLayout l = slab_layout(starts, false, r);
      EXPECT_TRUE(c >= l.i0 && c < l.i1) << c << " -> " << r;
    }
    EXPECT_EQ(own(-0.3 - 0.5), 0);
    EXPECT_EQ(own(-0.3 + nx * 0.02 + 0.5), ranks - 1);
  }
  // The even layout's starts are comm::block_of's.
  const SlabLayout even = slab_layout(17, true, 3, 1);
  EXPECT_EQ(even.starts, (std::vector<int>{0, 6, 12, 17}));
  EXPECT_EQ(even.i0, 6);
  EXPECT_EQ(even.i1, 12);
  EXPECT_THROW((void)slab_layout(std::vector<int>{0, 5, 5, 9}, true, 0), Error);
}

TEST(PicBalance, StartsEvenTheCostAndKeepTheWidth) {
  // Uniform costs: the even split.
  EXPECT_EQ(balanced_starts(std::vector<double>(48, 3.0), 3, 6), (std::vector<int>{0, 16, 32, 48}));
  EXPECT_DOUBLE_EQ(slab_imbalance(std::vector<double>(48, 3.0), {0, 16, 32, 48}), 1.0);
  // A dense target in columns 10..19 (100 a column) in a thin background (1 a column).
  std::vector<double> cost(48, 1.0);
  for (int i = 10; i < 20; ++i) cost[std::size_t(i)] = 100.0;
  const std::vector<int> even{0, 12, 24, 36, 48};
  for (int min_width : {1, 2, 6}) {
    const std::vector<int> s = balanced_starts(cost, 4, min_width);
    ASSERT_EQ(s.size(), 5u);
    EXPECT_EQ(s.front(), 0);
    EXPECT_EQ(s.back(), 48);
    for (int r = 0; r < 4; ++r) EXPECT_GE(s[std::size_t(r) + 1] - s[std::size_t(r)], min_width) << min_width;
    EXPECT_LT(slab_imbalance(cost, s), slab_imbalance(cost, even)) << min_width;
    // With narrow slabs allowed each slab is within one column's cost of the mean.
    if (min_width <= 2) EXPECT_LE(slab_imbalance(cost, s), 1.0 + 100.0 * 4 / 1038.0) << min_width;
  }
  // (even: the second slab holds 8 target columns and 4 of background, 804 of 1038)
  EXPECT_NEAR(slab_imbalance(cost, even), 4 * 804.0 / 1038.0, 1e-12);
  // Nothing to weigh: the even split; too few columns: refused.
  EXPECT_EQ(balanced_starts(std::vector<double>(17, 0.0), 3, 2), (std::vector<int>{0, 6, 12, 17}));
  EXPECT_THROW((void)balanced_starts(std::vector<double>(11, 1.0), 3, 4), Error);
  // All the cost in the last column: the boundaries pushed toward it, as far as the width allows.
  std::vector<double> last(20, 0.0);
  last.back() = 1.0;
  EXPECT_EQ(balanced_starts(last, 4, 3), (std::vector<int>{0, 11, 14, 17, 20}));
}

BlockNeighbours neighbours_of(const SlabLayout& l) {
  return block_neighbours(l.bx, l.by, l.ranks_x, l.left, l.right, l.down, l.up);
}

TEST(PicGpuSlabs, MigrationGoesToTheNeighbourThatOwnsTheCell) {
  const BlockNeighbours mid = neighbours_of(slab_layout(48, false, 3, 1));
  EXPECT_EQ(mid(1, 0), BlockMove::stay);
  EXPECT_EQ(mid(0, 0), BlockMove::left);
  EXPECT_EQ(mid(2, 0), BlockMove::right);
  const SlabLayout edge = slab_layout(48, false, 3, 0);
  EXPECT_EQ(edge.left, -1);
  EXPECT_EQ(neighbours_of(edge)(2, 0), BlockMove::beyond) << "two slabs away";
  // Two ranks on a periodic axis: both neighbours are the other rank; right first (DomainPic).
  const SlabLayout ring = slab_layout(48, true, 2, 0);
  EXPECT_EQ(ring.left, 1);
  EXPECT_EQ(ring.right, 1);
  EXPECT_EQ(neighbours_of(ring)(1, 0), BlockMove::right);
}

TEST(PicGpuSlabs, BlockMigrationGoesAlongXThenY) {
  // 3 x 3 blocks of a 48 x 48 grid open in x, periodic in y; the middle block (1, 1) is rank 4.
  const BlockNeighbours mid = neighbours_of(block_layout(48, 48, false, true, 9, 3, 4));
  EXPECT_EQ(mid(1, 1), BlockMove::stay);
  EXPECT_EQ(mid(1, 2), BlockMove::up);
  EXPECT_EQ(mid(1, 0), BlockMove::down);
  EXPECT_EQ(mid(2, 2), BlockMove::right) << "a corner crossing goes along x first";
  EXPECT_EQ(mid(0, 0), BlockMove::left);
  // The bottom block row wraps to the top one (periodic y); the left edge has no neighbour.
  const BlockNeighbours corner = neighbours_of(block_layout(48, 48, false, true, 9, 3, 0));
  EXPECT_EQ(corner(0, 2), BlockMove::down);
  EXPECT_EQ(corner(0, 1), BlockMove::up);
  EXPECT_EQ(corner(2, 0), BlockMove::beyond) << "two block columns away on an open axis";
  // Two block rows on a periodic axis: both are the other row; up first (DomainPic).
  const BlockNeighbours two = neighbours_of(block_layout(48, 48, true, true, 4, 2, 1));
  EXPECT_EQ(two(1, 1), BlockMove::up);
  EXPECT_EQ(two(0, 0), BlockMove::right) << "2 block columns on a ring: right first";
}

std::vector<std::uint64_t> record(std::uint64_t species, std::uint64_t id, double x) {
  std::vector<std::uint64_t> r{species, id};
  for (double v : {x, 2 * x, 3 * x, 4 * x, 5 * x, 6 * x}) {
    std::uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    r.push_back(b);
  }
  return r;
}

TEST(PicGpuSlabs, ArrivalsAreAppendedInIdOrderPerSpecies) {
  // What came from the left (ids 9, 4 of species 1; 7 of species 0), then from the right (2 of 1).
  std::vector<std::uint64_t> in;
  for (const auto& r : {record(1, 9, 0.9), record(0, 7, 0.7), record(1, 4, 0.4), record(1, 2, 0.2)})
    in.insert(in.end(), r.begin(), r.end());
  const std::vector<std::uint64_t> s1 = arrivals_of(in, 1);
  ASSERT_EQ(s1.size(), std::size_t(3 * kMigrationRecord));
  std::vector<std::uint64_t> want;
  for (const auto& r : {record(1, 2, 0.2), record(1, 4, 0.4), record(1, 9, 0.9)}) want.insert(want.end(), r.begin(), r.end());
  EXPECT_EQ(s1, want) << "whole records, sorted by id";
  EXPECT_EQ(arrivals_of(in, 0), record(0, 7, 0.7));
  EXPECT_TRUE(arrivals_of(in, 2).empty());
  in.pop_back();
  EXPECT_THROW((void)arrivals_of(in, 1), Error);
}

// The GPU blocks take the deposition kernels whose row runs over blocks (deposit_kernels.hpp)
// and refuse the others with one input error naming those that do, before any device is asked.
TEST(PicGpuSlabs, OnlyTheKernelsThatRunOverBlocksAreTaken) {
  PicSettings s;
  s.geom = slab_geometry(16, 4);
  s.dt = 0.1;
  PicSimulation sim(s);
  comm::NullCommunicator one;
  std::size_t refused = 0;
  for (const DepositKernelInfo& row : deposit_kernels()) {
    if (row.over_blocks()) continue;
    PicGpuOptions o;
    o.deposit = row.kind;
    try {
      DomainPicGpu blocks(sim, one, o);
      ADD_FAILURE() << row.name << " taken";
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_status(), 2) << row.name;
      EXPECT_NE(std::string(e.what()).find(deposit_kernels_over_blocks()), std::string::npos) << e.what();
      ++refused;
    }
  }
  EXPECT_GT(refused, 0u);
}

TEST(PicGpuSlabs, SlabStateBroughtBackGathersToTheSameState) {
  PicSettings s;
  s.geom = slab_geometry(16, 4);
  s.dt = 0.1;
  PicSimulation sim(s);
  Species e;
  e.name = "electron";
  sim.add_species(e);
  LoadSpec spec;
  spec.profile.n0 = 1.0;
  spec.ppc_x = 2, spec.ppc_y = 1;
  spec.u_thermal[0] = 0.1;
  sim.load(0, spec);
  for (std::size_t k = 0; k < sim.fields().data[kEy].size(); ++k) sim.fields().data[kEy][k] = 0.001 * double(k % 97);
  sim.refresh_guards();
  comm::NullCommunicator one;
  DomainPic d(sim, one);
  // The state as the GPU slab brings it back: fields, particles, ids (here: the slab's own).
  Fields f = d.fields();
  std::vector<Species> sp = d.species();
  auto ids = d.ids();
  for (double& x : sp[0].ux) x += 1e-3;  // a changed state
  d.set_state(f, sp, ids, 5, 0.5);
  PicSimulation out(s);
  out.add_species(e);
  d.gather(out);
  EXPECT_EQ(out.step_count(), 5);
  EXPECT_EQ(out.time(), 0.5);
  ASSERT_EQ(out.species()[0].size(), sp[0].size());
  ASSERT_GT(sp[0].size(), 0u);
  EXPECT_EQ(out.species()[0].ux, sp[0].ux);
  EXPECT_EQ(out.fields().data[kEy], sim.fields().data[kEy]);
  // A state whose ids do not match its particles is refused.
  ids[0].pop_back();
  EXPECT_THROW(d.set_state(f, sp, ids, 5, 0.5), Error);
}

}  // namespace
}  // namespace nbody::pic
