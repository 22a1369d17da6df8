#pragma once
// The group walk's two halves, shared by the single-process tree (cpu_tree.hpp) and the tree over
// rank-owned bodies (distributed_tree.hpp), so that a group with the same members over the same
// cells gets the same bits whichever of them runs it: the interaction list of a group's box (the
// depth-first walk in octant order: accepted cells for M2P, bodies of opened leaves for P2P) and
// the evaluation of a list at the group's targets (per target the cells, then the bodies, in list
// order; the loops over the targets innermost). Both live in one translation unit
// (group_walk.cpp, compiled without errno for its square roots) and are called, never inlined
// into the callers: one machine code for every caller.
#include <cstdint>
#include <utility>
#include <vector>

#include "gravity/params.hpp"
#include "gravity/tree/multipole.hpp"
#include "gravity/tree/opening.hpp"

namespace nbody::gravity::tree {

struct Octree;

// The largest group (the schema's bound on --tree-group-size).
constexpr int kMaxGroup = 64;

using BodyRange = std::pair<std::int32_t, std::int32_t>;

// A group's interaction list and the walk's stack (kept between groups: no allocation a group).
struct InteractionList {
  std::vector<std::int32_t> stack;
  std::vector<Multipole<double>> cells;
  std::vector<BodyRange> bodies;  // ranges of the tree's body arrays (adjacent leaves merged)
  [[nodiscard]] std::uint64_t body_count() const noexcept;
};

// The bounding box of the points [b, e) (exact: minima and maxima).
[[nodiscard]] Box<double> group_box(const double* x, const double* y, const double* z, int b, int e);

// The interaction list of a group's box over `t` from its root (cell 0). False where the walk
// opens a cell whose children or bodies `t` does not hold (t.pruned: a partial tree); the list is
// then incomplete.
[[nodiscard]] bool interaction_list(const Octree& t, const OpeningTest<double>& test, const Box<double>& box,
                                    double a_min, InteractionList& list);

// A body's previous |a| for the relative criterion, from its acceleration as returned (widened
// to float64): sqrt(ax^2 + ay^2 + az^2), one machine code for CpuTree's history and the tree over
// rank-owned bodies.
[[nodiscard]] double history_value(double ax, double ay, double az);

// The opening test of a pass with these parameters (Barnes-Hut where relative is false).
[[nodiscard]] OpeningTest<double> opening_test(const GravityParams& g, bool relative, double alpha);

// Adds the list's pulls (without G) at the `count` targets (gx, gy, gz) to (sx, sy, sz); the
// sources' bodies are (x, y, z, m) indexed by the list's ranges.
void accumulate_accelerations(const GravityParams& g, const InteractionList& list, const double* x, const double* y,
                              const double* z, const double* m, int count, const double* gx, const double* gy,
                              const double* gz, double* sx, double* sy, double* sz);
// Adds the list's potentials (without G) to s; own[k] is target k's own index among the bodies
// (its term left out; -1 where the targets are not sources).
void accumulate_potentials(const GravityParams& g, const InteractionList& list, const double* x, const double* y,
                           const double* z, const double* m, int count, const double* gx, const double* gy,
                           const double* gz, const std::int32_t* own, double* s);

}  // namespace nbody::gravity::tree
