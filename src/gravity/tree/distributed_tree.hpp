#pragma once
// The Barnes-Hut tree over rank-owned bodies (comm/owned_bodies.hpp), CPU and MPI: no rank holds
// every body, and every body gets the bits the single-process CpuTree gives it (float64 terms;
// the Barnes-Hut criterion with the same theta, leaf and group sizes; Plummer or spline
// softening), on any number of ranks and whatever rank owns it. See docs/parallel.md, "The tree
// over rank-owned bodies".
//
// A pass:
//  1. The tree's cube over every body (bounding_cube of all of them: one exact allreduce of
//     maxima); each body's key in it.
//  2. The top of the global octree by integer sums of key counts, one a level, down to the units
//     (top_tree.hpp); whole units dealt to the ranks by work, so that no leaf and no target group
//     is cut by a rank boundary.
//  3. Each body to the rank of its unit (one alltoallv; none moves where the owners already are
//     the tree's), sorted there by (key, id): the single-process order of a state in id order.
//  4. Each rank builds its units' subtrees (build_subtree) and their multipoles (P2M of a leaf's
//     bodies in key order, M2M of children in order: compute_cell_multipole); the units'
//     multipoles are gathered by every rank (allgatherv, unit order), and the cells above the
//     units summed on every rank from them by M2M, in order, with the same bits.
//  5. The locally essential tree (let_exchange.hpp): each group asks the ranks whose units its
//     walk opens, which answer with exactly the cells and bodies that walk opens.
//  6. Each rank walks its groups with the single-process walk (group_walk.hpp) over its partial
//     tree (a cell it would open and does not hold is an error, never skipped) and returns every
//     body's result, and its work (terms summed), to the body's owner.
//
// The relative criterion: the caller hands each pass the previous pass's accelerations of its
// bodies (e.g. carried through migrations as extra fields, as an integrator keeps them); a
// body's |a| from them (widened to float64) is CpuTree's history, and each group opens cells by
// its members' smallest |a|. Without them (the first pass) the pass is Barnes-Hut, as CpuTree's
// first pass.
#include <cstdint>
#include <memory>
#include <vector>

#include "comm/communicator.hpp"
#include "comm/owned_bodies.hpp"
#include "gravity/params.hpp"
#include "gravity/tree/params.hpp"
#include "gravity/tree/top_tree.hpp"
#include "particles/views.hpp"

namespace nbody::gravity::tree {

// What the last pass held and sent, on this rank (for logs and benchmarks).
struct DistributedTreeStats {
  std::int64_t owned_bodies = 0;   // bodies of the OwnedBodies handed in
  std::int64_t tree_bodies = 0;    // bodies of this rank's units (the walk's targets)
  std::int64_t remote_bodies = 0;  // bodies received from other ranks for the walk
  std::int64_t peak_bodies = 0;    // owned + tree + remote: the most held at once
  std::int64_t units = 0, own_units = 0;
  std::int64_t top_cells = 0;     // cells above and of the units (on every rank)
  std::int64_t own_cells = 0;     // cells of this rank's subtrees below its units
  std::int64_t remote_cells = 0;  // cells received
  std::int64_t peak_cells = 0;    // top + own + remote
  int top_rounds = 0;             // collective counting rounds of the top tree
  // Bytes to / from other ranks, per exchange, and in all.
  std::int64_t move_bytes_sent = 0, move_bytes_received = 0;  // bodies to the tree's owners and the results back
  std::int64_t unit_bytes_received = 0;                       // the units' multipoles (allgatherv)
  std::int64_t let_bytes_sent = 0, let_bytes_received = 0;    // groups' queries, essential cells and bodies
  std::int64_t let_cells_sent = 0, let_bodies_sent = 0;
  std::int64_t bytes_sent = 0, bytes_received = 0;
  int groups = 0;
  std::uint64_t m2p = 0, p2p = 0;  // terms of this rank's targets
  // Host-clock seconds of the pass's phases on this rank (read only for logs and benchmarks: no
  // value of the pass depends on them). A collective's wait for the slower ranks is in its phase.
  double top_s = 0;         // 1-2: the cube, the keys and their sort, the top tree's counting rounds, the owners
  double move_s = 0;        // 3 and the end: bodies to their units' ranks (sorted there), the results back
  double build_s = 0;       // 4: the units' subtrees
  double multipoles_s = 0;  // 4: their multipoles, the units' gathered, the top's M2M
  double exchange_s = 0;    // 5-6: the groups and the locally essential tree's queries and answers
  double walk_s = 0;        // 7: the walk of this rank's groups
  double pass_s = 0;        // the whole pass
};

// The previous pass's accelerations of a rank's bodies, in their order (the relative criterion's
// history); `known` false: none (every rank must say the same).
template <class T>
struct PreviousAccelerations {
  bool known = false;
  const T* x = nullptr;
  const T* y = nullptr;
  const T* z = nullptr;
};

class DistributedTree {
 public:
  DistributedTree(std::shared_ptr<comm::Communicator> c, const GravityParams& g, const TreeParams& p);

  // The accelerations of this rank's bodies (in their order) from every body of the run (G
  // included): CpuTree's bits (with the relative criterion, those of the CpuTree pass whose
  // history is `previous`). Each body's work becomes its terms (multipoles + bodies).
  // Collective; ranks that disagree on previous.known get an input error.
  template <class T>
  void accelerations(comm::OwnedBodies<T>& b, Vec3Span<T> out, PreviousAccelerations<T> previous = {});
  // phi_i of this rank's bodies (G included, the body's own term left out): CpuTree's bits (with
  // the relative criterion, CpuTree opens cells by its history: hand in the same accelerations).
  template <class T>
  void potentials(const comm::OwnedBodies<T>& b, double* phi, PreviousAccelerations<T> previous = {});
  // W = 1/2 sum_i m_i phi_i over every body, the terms added in id order (comm::chained_sum): the
  // single-process CpuTree::potential_energy of the state in id order, on every rank.
  template <class T>
  [[nodiscard]] double potential_energy(const comm::OwnedBodies<T>& b, PreviousAccelerations<T> previous = {});

  // The rank the last pass's tree gave each body of the OwnedBodies (in its order): hand it to
  // comm::migrate and the next pass moves no body (while the units and their owners stay).
  [[nodiscard]] const std::vector<int>& tree_owner() const noexcept { return tree_owner_; }
  [[nodiscard]] const DistributedTreeStats& stats() const noexcept { return stats_; }
  [[nodiscard]] const TreeParams& params() const noexcept { return params_; }

 private:
  enum class Mode { acceleration, potential };
  // Steps 1-6 over x, y, z, m, id, work of the owned bodies (float64); per owned body, in their
  // order: v0..v2 (acceleration) or v0 (potential) and its terms.
  // history: each owned body's previous |a| (null: none; the pass is Barnes-Hut).
  void pass(Mode mode, const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& z,
            const std::vector<double>& m, const std::vector<std::uint64_t>& id, const std::vector<std::uint64_t>& work,
            const std::vector<double>* history, std::vector<double>& v0, std::vector<double>& v1,
            std::vector<double>& v2, std::vector<std::uint64_t>& terms);

  // Each owned body's previous |a| (CpuTree's history values); `have` false where the criterion is
  // Barnes-Hut or there is no previous pass. Collective (the ranks must agree).
  template <class T>
  std::vector<double> history_of(const comm::OwnedBodies<T>& b, PreviousAccelerations<T> previous, bool& have);

  std::shared_ptr<comm::Communicator> comm_;
  GravityParams gravity_;
  TreeParams params_;
  DistributedTreeStats stats_;
  TopTree top_;  // the last pass's (kept for its units and owners)
  std::vector<int> tree_owner_;
};

}  // namespace nbody::gravity::tree
