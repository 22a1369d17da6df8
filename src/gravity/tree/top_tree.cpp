// The top of the global octree over rank-owned bodies (top_tree.hpp).
#include "gravity/tree/top_tree.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "comm/sfc_domain.hpp"
#include "gravity/tree/group_walk.hpp"
#include "nbody/error.hpp"

namespace nbody::gravity::tree {

int TopTree::unit_of(std::uint64_t key) const {
  const auto it = std::upper_bound(unit_first_key.begin(), unit_first_key.end(), key);
  return it == unit_first_key.begin() ? 0 : static_cast<int>(it - unit_first_key.begin()) - 1;
}

std::pair<int, int> TopTree::units_of(int rank) const {
  const auto b = std::lower_bound(unit_owner.begin(), unit_owner.end(), rank);
  const auto e = std::upper_bound(b, unit_owner.end(), rank);
  return {static_cast<int>(b - unit_owner.begin()), static_cast<int>(e - unit_owner.begin())};
}

std::int64_t min_unit_size(int leaf_size, int group_size) {
  return std::max<std::int64_t>(std::max(1, leaf_size),
                                std::int64_t{kGroupCellFactor} * std::clamp(group_size, 1, kMaxGroup));
}

KeyBox<double> global_bounding_cube(comm::Communicator& c, const double* x, const double* y, const double* z, int n) {
  constexpr double lowest = std::numeric_limits<double>::lowest();
  // The maxima of x, y, z, of -x, -y, -z, and a flag for a non-finite position.
  double m[7] = {lowest, lowest, lowest, lowest, lowest, lowest, 0.0};
  for (int i = 0; i < n; ++i) {
    const double p[3] = {x[i], y[i], z[i]};
    for (int d = 0; d < 3; ++d) {
      if (!std::isfinite(p[d])) m[6] = 1.0;
      m[d] = std::max(m[d], p[d]);
      m[d + 3] = std::max(m[d + 3], -p[d]);
    }
  }
  c.allreduce_max(m, 7);
  if (m[6] != 0.0) throw_runtime_error("gravity tree: a body has a non-finite position (on some rank)");
  const double lo[3] = {-m[3], -m[4], -m[5]}, hi[3] = {m[0], m[1], m[2]};
  return cube_from_bounds(lo, hi, m[0] == lowest ? 0 : 1);  // (no body anywhere: the unit cube)
}

TopTree build_top_tree(comm::Communicator& c, const KeyBox<double>& box, std::span<const std::uint64_t> keys,
                       std::span<const std::uint64_t> work, std::int64_t unit_size) {
  // before[k]: the work of keys[0..k), so that a key range's work is two binary searches.
  std::vector<std::uint64_t> before(keys.size() + 1, 0);
  for (std::size_t k = 0; k < keys.size(); ++k) before[k + 1] = before[k] + std::max<std::uint64_t>(work[k], 1);
  auto local = [&](std::uint64_t lo, std::uint64_t hi, std::uint64_t& count, std::uint64_t& w) {
    const auto b = std::size_t(std::lower_bound(keys.begin(), keys.end(), lo) - keys.begin());
    const auto e = std::size_t(std::lower_bound(keys.begin() + std::ptrdiff_t(b), keys.end(), hi) - keys.begin());
    count = e - b;
    w = before[e] - before[b];
  };

  TopTree top;
  Octree& t = top.cells;
  std::vector<std::uint64_t> cell_work;
  const std::uint64_t mine[2] = {keys.size(), before.back()};
  const auto total = comm::allreduce_sum_u64(c, mine);
  top.bodies = static_cast<std::int64_t>(total[0]);
  const double h0 = 0.5 * box.size;
  auto push = [&](std::int64_t count, int level, double x, double y, double z, double h, std::uint64_t prefix,
                  std::uint64_t w) {
    t.push(-1, static_cast<std::int32_t>(std::min<std::int64_t>(count, std::numeric_limits<std::int32_t>::max())),
           level, x, y, z, h);
    top.count.push_back(count);
    top.prefix.push_back(prefix);
    cell_work.push_back(w);
  };
  push(top.bodies, 0, box.x0 + h0, box.y0 + h0, box.z0 + h0, h0, 0, total[1]);
  if (top.bodies == 0) {
    top.cell_unit.assign(1, -1);
    return top;  // no units
  }
  std::vector<int> frontier{0}, split;
  while (true) {
    split.clear();
    for (int k : frontier)
      if (top.count[k] > unit_size && t.level[k] < kKeyBits) split.push_back(k);
    if (split.empty()) break;
    // This rank's counts and work in the octants of every cell to split; then the global sums.
    std::vector<std::uint64_t> part(16 * split.size());
    for (std::size_t s = 0; s < split.size(); ++s) {
      const int k = split[s];
      const int shift = 3 * (kKeyBits - 1 - t.level[k]);
      for (unsigned o = 0; o < 8; ++o) {
        const std::uint64_t p = top.prefix[k] * 8 + o;
        local(p << shift, (p + 1) << shift, part[16 * s + o], part[16 * s + 8 + o]);
      }
    }
    const auto sum = comm::allreduce_sum_u64(c, part);
    ++top.rounds;
    frontier.clear();
    for (std::size_t s = 0; s < split.size(); ++s) {
      const int k = split[s];
      // The children of build_octree (split_cell): the non-empty octants in order, their centres
      // k's centre -+ half of k's half.
      const double h = 0.5 * t.half[k];
      t.child_begin[k] = t.size();
      for (unsigned o = 0; o < 8; ++o) {
        const auto n = static_cast<std::int64_t>(sum[16 * s + o]);
        if (n == 0) continue;
        frontier.push_back(t.size());
        push(n, t.level[k] + 1, t.cx[k] + ((o & 4u) ? h : -h), t.cy[k] + ((o & 2u) ? h : -h),
             t.cz[k] + ((o & 1u) ? h : -h), h, top.prefix[k] * 8 + o, sum[16 * s + 8 + o]);
      }
      t.child_count[k] = t.size() - t.child_begin[k];
    }
  }
  // The units in key order: the leaves of the top, depth first in octant order.
  top.cell_unit.assign(std::size_t(t.size()), -1);
  std::vector<int> stack{0};
  while (!stack.empty()) {
    const int k = stack.back();
    stack.pop_back();
    if (t.leaf(k)) {
      top.cell_unit[std::size_t(k)] = top.units();
      top.unit_cell.push_back(k);
      top.unit_first_key.push_back(top.prefix[k] << (3 * (kKeyBits - t.level[k])));
      top.unit_work.push_back(cell_work[std::size_t(k)]);
    } else {
      for (int j = t.child_begin[k] + t.child_count[k] - 1; j >= t.child_begin[k]; --j) stack.push_back(j);
    }
  }
  // Whole units to ranks, balanced by work: rank r starts at the first unit whose work before it
  // reaches floor(W r / P) (computed as comm::decompose does, without overflow).
  const auto p = static_cast<std::uint64_t>(c.size());
  const std::uint64_t q = total[1] / p, rem = total[1] % p;
  auto target = [&](std::uint64_t r) { return q * r + rem * r / p; };
  std::uint64_t w_before = 0, r = 0;
  for (int u = 0; u < top.units(); ++u) {
    while (r + 1 < p && target(r + 1) <= w_before) ++r;
    top.unit_owner.push_back(static_cast<int>(r));
    w_before += top.unit_work[std::size_t(u)];
  }
  return top;
}

}  // namespace nbody::gravity::tree
