#pragma once
// The float64 CPU Barnes-Hut tree: the oracle for the tree as the reference solver is for the
// direct sums, and the layout the CUDA port follows (keys, sort, breadth-first octree as flat
// arrays, multipoles, groups of targets in key order, one interaction list of cells (M2P) and
// body ranges (P2P) per group). Every term in float64 whatever the state's type; the same bits
// on every run and for any thread count (each group's sums in a fixed order, nothing summed
// across threads). See docs/tree.md.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "gravity/params.hpp"
#include "gravity/solver.hpp"
#include "gravity/tree/keys.hpp"
#include "gravity/tree/multipole.hpp"
#include "gravity/tree/opening.hpp"
#include "gravity/tree/params.hpp"
#include "particles/views.hpp"

namespace nbody::gravity::tree {

// The octree as structure-of-arrays over cells in breadth-first order: cell 0 is the root, the
// children of a cell are contiguous and come after it; a cell's bodies are one range of the
// key-sorted sources. A cell is a leaf when it holds at most leaf_size bodies or lies at the
// deepest level (kKeyBits: bodies closer than the box / 2^21 share a leaf, whatever their count).
struct Octree {
  std::vector<std::int32_t> body_begin, body_count;
  std::vector<std::int32_t> child_begin, child_count;  // child_count 0: a leaf
  std::vector<std::int32_t> level;
  std::vector<double> cx, cy, cz, half;  // geometric centre, half the side
  std::vector<double> m, mx, my, mz;     // mass, centre of mass
  std::vector<double> qxx, qxy, qxz, qyy, qyz, qzz;  // traceless quadrupole about the centre of mass
  std::vector<double> tr;                            // trace of the second moment (softened M2P)
  std::vector<double> rcrit2;                        // squared Barnes-Hut opening radius
  // Empty for a whole tree. A partial tree (a rank's locally essential tree, distributed_tree.hpp)
  // marks here the cells whose children or bodies it does not hold (1): a walk that opens one
  // fails rather than use what is not there.
  std::vector<std::uint8_t> pruned;

  [[nodiscard]] int size() const noexcept { return static_cast<int>(body_begin.size()); }
  [[nodiscard]] bool leaf(int c) const { return child_count[c] == 0; }
  [[nodiscard]] Multipole<double> multipole(int c) const {
    return {m[c], mx[c], my[c], mz[c], qxx[c], qxy[c], qxz[c], qyy[c], qyz[c], qzz[c], tr[c]};
  }
  [[nodiscard]] CellView<double> cell(int c) const {
    return {cx[c], cy[c], cz[c], half[c], m[c], mx[c], my[c], mz[c], rcrit2[c]};
  }
  void clear();
  void push(std::int32_t begin, std::int32_t count, std::int32_t lvl, double x, double y, double z, double h);
};

// The smallest cube holding every point (enlarged by a relative 1e-12 so that the largest
// coordinates fall inside); a unit cube about the point where all coincide. Throws a runtime
// error for non-finite coordinates.
[[nodiscard]] KeyBox<double> bounding_cube(const double* x, const double* y, const double* z, int n);
// The same cube from the bounds lo[d] <= x_d <= hi[d] of n >= 0 points (the GPU tree reduces them
// on the device).
[[nodiscard]] KeyBox<double> cube_from_bounds(const double lo[3], const double hi[3], int n);

// Sorts keys with their indices: by key, equal keys by index (a unique order: deterministic).
void sort_by_key(std::vector<std::uint64_t>& keys, std::vector<std::int32_t>& index);

// The octree of key-sorted bodies in `box` (keys from box.key).
void build_octree(const std::vector<std::uint64_t>& sorted_keys, const KeyBox<double>& box, int leaf_size,
                  Octree& tree);
// The step of build_octree on one cell: unless cell c is a leaf (at most leaf_size bodies, or at
// the deepest level), its non-empty children, in octant order, appended to the tree (their
// bodies the ranges of c's keys in `sorted_keys`, their centres c's centre -+ half of c's half).
void split_cell(const std::vector<std::uint64_t>& sorted_keys, int leaf_size, Octree& tree, int c);
// The whole subtree below cell c (already in the tree, its bodies a range of `sorted_keys`),
// breadth first after the cells the tree holds: what build_octree builds below that cell.
void build_subtree(const std::vector<std::uint64_t>& sorted_keys, int leaf_size, Octree& tree, int c);

// Mass, centre of mass, quadrupole (P2M at the leaves, M2M above) and opening radius of every
// cell, bottom-up. A massless cell's centre of mass is its geometric centre.
void compute_multipoles(const double* x, const double* y, const double* z, const double* m, double theta,
                        Octree& tree);
// The step of compute_multipoles on one cell (P2M of a leaf's bodies in key order, M2M of a cell's
// children in order, then the opening radius); the multipole arrays must be sized already.
void compute_cell_multipole(const double* x, const double* y, const double* z, const double* m, double theta,
                            Octree& tree, int c);

// Key-ordered ranges [begin, end) of at most `capacity` bodies: the cells of the octree of the
// keys that hold at most kGroupCellFactor * capacity bodies (or lie at the deepest level), each
// cut into the fewest pieces of at most `capacity` bodies, of sizes as equal as can be (piece j
// of k in a cell of c bodies starts at floor(c j / k)). Full groups keep a GPU warp's lanes busy
// (leaves of at most `capacity` bodies hold a quarter of that on average); a piece of a small
// cell stays compact.
constexpr int kGroupCellFactor = 8;
[[nodiscard]] constexpr std::int32_t group_pieces(std::int32_t count, int capacity) {
  return (count + capacity - 1) / capacity;
}
[[nodiscard]] constexpr std::int32_t piece_start(std::int32_t count, std::int32_t pieces, std::int32_t j) {
  return static_cast<std::int32_t>(static_cast<std::int64_t>(count) * j / pieces);
}
void split_groups(const std::vector<std::uint64_t>& sorted_keys, int capacity,
                  std::vector<std::pair<std::int32_t, std::int32_t>>& groups);
// The groups of one cell of level `level` whose bodies are sorted_keys[b, e) (appended): those
// split_groups forms there when the cell is, or lies inside, a cell it recurses into.
void split_groups_in(const std::uint64_t* sorted_keys, std::int32_t b, std::int32_t e, int level, int capacity,
                     std::vector<std::pair<std::int32_t, std::int32_t>>& groups);

// What the last pass did, for logs, tests and benchmarks.
struct TreeStats {
  int bodies = 0, cells = 0, leaves = 0, depth = 0, groups = 0;
  std::uint64_t m2p = 0;  // target-cell multipole terms
  std::uint64_t p2p = 0;  // target-body pair terms
  double keys_s = 0, sort_s = 0, build_s = 0, multipoles_s = 0, walk_s = 0;  // wall seconds per phase
};

class CpuTree {
 public:
  CpuTree(const GravityParams& g, const TreeParams& p);

  // out_i = the tree's acceleration of target i from the sources (G included).
  template <class T>
  void accelerations(const TargetView<T>& t, const SourceView<T>& s, Vec3Span<T> out);
  // phi_i = the tree's potential at target i (G included; the target's own term left out where
  // the targets are sources, t.self >= 0).
  template <class T>
  void potentials(const TargetView<T>& t, const SourceView<T>& s, double* phi);
  // W = 1/2 sum_i m_i phi_i of the sources, from the tree.
  template <class T>
  [[nodiscard]] double potential_energy(const SourceView<T>& s);

  [[nodiscard]] const TreeStats& stats() const noexcept { return stats_; }
  [[nodiscard]] const Octree& octree() const noexcept { return tree_; }
  [[nodiscard]] const TreeParams& params() const noexcept { return params_; }
  // Forgets the previous pass's |a| (the relative criterion starts again with Barnes-Hut).
  void reset_history() { last_acc_.clear(), used_acc_.clear(); }
  // The previous pass's |a| by source index (0: unknown; empty before the first pass): the
  // relative criterion's history, what the next pass opens cells by, saved in checkpoints so that
  // a resumed run opens the cells the uninterrupted one opened. |a| is taken from the
  // accelerations as returned (in T, as the GPU tree takes it).
  [[nodiscard]] const std::vector<double>& history() const noexcept { return last_acc_; }
  // The history the previous acceleration pass opened cells by (empty: none, it was Barnes-Hut),
  // for a checkpoint after which that pass is made again (ForceSolver::save_state).
  [[nodiscard]] const std::vector<double>& used_history() const noexcept { return used_acc_; }
  // The history the next pass opens cells by (empty: none, Barnes-Hut).
  void set_history(std::vector<double> h) { last_acc_ = std::move(h), used_acc_.clear(); }
  // Records |a| of a whole pass over the n sources: a pass over every source records itself; a
  // pass over a block of them (a rank's part) records nothing, and the whole pass is recorded
  // once every rank's block is gathered (ForceSolver::gathered), so that every group of the next
  // pass sees the previous pass's |a| of all its members, as on one process. One call a pass:
  // the history the pass read becomes used_history().
  template <class T>
  void record_history(int n, const T* ax, const T* ay, const T* az);

 private:
  enum class Mode { acceleration, potential };
  template <class T>
  void load(const TargetView<T>& t, const SourceView<T>& s);
  void build();
  void walk(Mode mode, int self, double* ax, double* ay, double* az);

  GravityParams gravity_;
  TreeParams params_;
  TreeStats stats_;
  Octree tree_;
  KeyBox<double> box_{};
  // Sources as given, then key-sorted; sorted position k holds source index_[k].
  std::vector<double> in_x_, in_y_, in_z_, in_m_;
  std::vector<std::uint64_t> keys_;
  std::vector<std::int32_t> index_, rank_;
  std::vector<double> x_, y_, z_, m_;
  // Targets key-sorted (the sources' order when the targets are the sources).
  bool targets_are_sources_ = false;
  // The targets are sources block_first_ ... block_first_ + block_count_ - 1 (a rank's block of a
  // pass over several ranks): the walk takes the groups of the whole set of sources and
  // evaluates their members in the block, so that each one's sum is the one-process sum.
  bool block_of_sources_ = false;
  int block_first_ = 0, block_count_ = 0;
  std::vector<double> tx_, ty_, tz_;
  std::vector<std::uint64_t> tkeys_;
  std::vector<std::int32_t> tindex_;
  std::vector<double> last_acc_;  // |a| of each source in the previous acceleration pass
  std::vector<double> used_acc_;  // the history that pass read (empty: none)
};

}  // namespace nbody::gravity::tree

namespace nbody {
// The tree as a force solver (--gravity tree --device cpu): accelerations and potentials, no jerks.
template <class T>
[[nodiscard]] std::unique_ptr<ForceSolver<T>> make_cpu_tree_solver(const GravityParams& g,
                                                                   const gravity::tree::TreeParams& p);
}  // namespace nbody
