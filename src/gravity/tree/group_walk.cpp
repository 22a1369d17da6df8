// The group walk's list and evaluation (group_walk.hpp): one machine code for the single-process
// tree and the tree over rank-owned bodies.
#include "gravity/tree/group_walk.hpp"

#include <algorithm>
#include <cmath>

#include "gravity/pair_law.hpp"
#include "gravity/tree/cpu_tree.hpp"

namespace nbody::gravity::tree {

std::uint64_t InteractionList::body_count() const noexcept {
  std::uint64_t n = 0;
  for (const auto& r : bodies) n += static_cast<std::uint64_t>(r.second - r.first);
  return n;
}

Box<double> group_box(const double* x, const double* y, const double* z, int b, int e) {
  double lo[3] = {x[b], y[b], z[b]}, hi[3] = {x[b], y[b], z[b]};
  for (int k = b; k < e; ++k) {
    lo[0] = std::min(lo[0], x[k]), hi[0] = std::max(hi[0], x[k]);
    lo[1] = std::min(lo[1], y[k]), hi[1] = std::max(hi[1], y[k]);
    lo[2] = std::min(lo[2], z[k]), hi[2] = std::max(hi[2], z[k]);
  }
  return {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2]),
          0.5 * (hi[0] - lo[0]), 0.5 * (hi[1] - lo[1]), 0.5 * (hi[2] - lo[2])};
}

bool interaction_list(const Octree& t, const OpeningTest<double>& test, const Box<double>& box, double a_min,
                      InteractionList& list) {
  list.cells.clear();
  list.bodies.clear();
  list.stack.assign(1, 0);
  const bool partial = !t.pruned.empty();
  while (!list.stack.empty()) {
    const int c = list.stack.back();
    list.stack.pop_back();
    if (!test.opens(box, a_min, t.cell(c))) {
      list.cells.push_back(t.multipole(c));
    } else if (partial && t.pruned[c] != 0) {
      return false;
    } else if (t.leaf(c)) {
      const std::int32_t first = t.body_begin[c], end = first + t.body_count[c];
      if (!list.bodies.empty() && list.bodies.back().second == first) {
        list.bodies.back().second = end;  // adjacent leaves: one range
      } else {
        list.bodies.emplace_back(first, end);
      }
    } else {
      for (int k = t.child_begin[c] + t.child_count[c] - 1; k >= t.child_begin[c]; --k) list.stack.push_back(k);
    }
  }
  return true;
}

double history_value(double ax, double ay, double az) { return std::sqrt(ax * ax + ay * ay + az * az); }

OpeningTest<double> opening_test(const GravityParams& g, bool relative, double alpha) {
  OpeningTest<double> test;
  test.relative = relative;
  test.G = g.G;
  test.alpha = alpha;
  if (g.law == SofteningLaw::spline && g.eps2() > 0) {
    const double h = SplinePair<double>::kSupportPerSoftening * g.softening;
    test.near2 = h * h;
  }
  return test;
}

namespace {
MultipoleEval<double> multipole_eval(const GravityParams& g) {
  const bool spline = g.law == SofteningLaw::spline && g.eps2() > 0;
  return {spline ? 0.0 : g.eps2()};
}
}  // namespace

void accumulate_accelerations(const GravityParams& g, const InteractionList& list, const double* x, const double* y,
                              const double* z, const double* m, int count, const double* gx, const double* gy,
                              const double* gz, double* sx, double* sy, double* sz) {
  const MultipoleEval<double> eval = multipole_eval(g);
  with_pair_law<double>(g, [&](const auto& law) {
    for (const auto& q : list.cells) {
#pragma omp simd
      for (int k = 0; k < count; ++k) eval.accumulate(q.x - gx[k], q.y - gy[k], q.z - gz[k], q, sx[k], sy[k], sz[k]);
    }
    for (const auto& r : list.bodies) {
      for (int j = r.first; j < r.second; ++j) {
        const double xj = x[j], yj = y[j], zj = z[j], mj = m[j];
#pragma omp simd
        for (int k = 0; k < count; ++k) law.accumulate(xj - gx[k], yj - gy[k], zj - gz[k], mj, sx[k], sy[k], sz[k]);
      }
    }
  });
}

void accumulate_potentials(const GravityParams& g, const InteractionList& list, const double* x, const double* y,
                           const double* z, const double* m, int count, const double* gx, const double* gy,
                           const double* gz, const std::int32_t* own, double* s) {
  const MultipoleEval<double> eval = multipole_eval(g);
  with_pair_law<double>(g, [&](const auto& law) {
    for (const auto& q : list.cells) {
#pragma omp simd
      for (int k = 0; k < count; ++k) s[k] += eval.potential(q.x - gx[k], q.y - gy[k], q.z - gz[k], q);
    }
    for (const auto& r : list.bodies) {
      for (int j = r.first; j < r.second; ++j) {
        const double xj = x[j], yj = y[j], zj = z[j], mj = m[j];
#pragma omp simd
        for (int k = 0; k < count; ++k) {
          const double phi = law.potential(xj - gx[k], yj - gy[k], zj - gz[k], mj);
          s[k] += j != own[k] ? phi : 0.0;
        }
      }
    }
  });
}

}  // namespace nbody::gravity::tree
