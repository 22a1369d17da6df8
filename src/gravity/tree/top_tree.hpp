#pragma once
// The top of the global octree over rank-owned bodies, and the ranges of the ranks on it.
//
// The octree of the tree over several ranks is the single-process tree of ALL bodies: a cell is
// defined by its key prefix, split when it holds more than leaf_size bodies over every rank, and
// its children are its non-empty octants. Its top is built here without moving a body: each rank
// counts its own sorted keys in the octants of the cells still to split, and one integer sum over
// the ranks a level (allreduce_sum_u64: exact, no order) gives the global counts. A cell is split
// while it holds more than `unit_size` bodies (and is above the deepest level); the cells where
// this stops are the units: every leaf and every target group cell of the single-process tree
// lies inside one unit, since unit_size >= leaf_size and >= kGroupCellFactor * group size.
//
// Units are dealt to ranks whole, as contiguous runs of the key order balanced by the bodies'
// work (the splitters of the decomposition rounded to unit boundaries: cornerstone assigns whole
// leaves of its global tree in the same way). No leaf and no group is ever cut by a rank
// boundary; only the cells above the units span ranks, and their multipoles are formed on every
// rank by M2M from the units' (top_tree cells are the same on every rank).
#include <cstdint>
#include <span>
#include <vector>

#include "comm/communicator.hpp"
#include "gravity/tree/cpu_tree.hpp"

namespace nbody::gravity::tree {

struct TopTree {
  // The top cells, breadth first, the units its leaves (child_count 0); body_count is the global
  // count (clamped to int32 above the units), body_begin -1. Multipoles are filled by the pass.
  Octree cells;
  std::vector<std::uint64_t> prefix;  // each cell's key prefix (its keys: prefix << 3 (kKeyBits - level))
  std::vector<std::int64_t> count;    // each cell's global body count
  // Units in key order: their cell, first key (the cell's lowest key), work and owning rank.
  std::vector<std::int32_t> unit_cell;
  std::vector<std::uint64_t> unit_first_key;
  std::vector<std::uint64_t> unit_work;
  std::vector<int> unit_owner;
  std::vector<std::int32_t> cell_unit;  // per cell: its unit index, -1 above the units
  std::int64_t bodies = 0;              // over every rank
  int rounds = 0;                       // collective counting rounds (one a level)

  [[nodiscard]] int units() const noexcept { return static_cast<int>(unit_cell.size()); }
  // The unit holding a key (every key of the box lies in one).
  [[nodiscard]] int unit_of(std::uint64_t key) const;
  // The units of `rank`: [first, second).
  [[nodiscard]] std::pair<int, int> units_of(int rank) const;
};

// The smallest unit size that keeps every leaf and group whole: max(leaf_size, kGroupCellFactor *
// group size).
[[nodiscard]] std::int64_t min_unit_size(int leaf_size, int group_size);

// The tree's cube over every rank's bodies: the single-process tree's bounding_cube of all of
// them (the global minima and maxima by one exact allreduce of maxima; a non-finite position on
// any rank is a runtime error on every rank). Collective.
[[nodiscard]] KeyBox<double> global_bounding_cube(comm::Communicator& c, const double* x, const double* y,
                                                  const double* z, int n);

// The top tree of the bodies every rank holds: `sorted_keys` this rank's keys in `box` in
// increasing order, `work` their work in that order (0 counts as 1). Units dealt to the ranks in
// key order: rank r's run starts at the first unit whose work before it reaches floor(W r / P)
// (W the total), so a rank holds W / P within one unit's work. Collective; every rank gets the
// same tree.
[[nodiscard]] TopTree build_top_tree(comm::Communicator& c, const KeyBox<double>& box,
                                     std::span<const std::uint64_t> sorted_keys, std::span<const std::uint64_t> work,
                                     std::int64_t unit_size);

}  // namespace nbody::gravity::tree
