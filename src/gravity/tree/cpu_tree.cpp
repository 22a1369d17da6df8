// The float64 CPU tree: keys, sort, octree, multipoles and the group walk, and the tree as a
// ForceSolver. See cpu_tree.hpp and docs/tree.md.
#include "gravity/tree/cpu_tree.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <limits>
#include <string>

#include "core/parallel.hpp"
#include "gravity/pair_law.hpp"
#include "gravity/tree/group_walk.hpp"
#include "gravity/tree/history.hpp"
#include "nbody/error.hpp"

namespace nbody::gravity::tree {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Groups are worth threads when the walk has enough work: about a thousand terms a target.
bool parallel_walk(std::int64_t targets) { return parallel_pairs(targets, 1024); }

using Range = std::pair<std::int32_t, std::int32_t>;

void split(const std::uint64_t* keys, std::int32_t b, std::int32_t e, int level, int capacity,
           std::vector<Range>& out) {
  if (e - b <= kGroupCellFactor * capacity || level == kKeyBits) {
    const std::int32_t count = e - b, k = group_pieces(count, capacity);
    for (std::int32_t j = 0; j < k; ++j) out.emplace_back(b + piece_start(count, k, j), b + piece_start(count, k, j + 1));
    return;
  }
  for (unsigned o = 0; o < 8 && b < e; ++o) {
    const std::int32_t end = static_cast<std::int32_t>(
        std::partition_point(keys + b, keys + e, [&](std::uint64_t k) { return octant(k, level) <= o; }) - keys);
    if (end > b) split(keys, b, end, level + 1, capacity, out);
    b = end;
  }
}

}  // namespace

void Octree::clear() {
  for (auto* v : {&body_begin, &body_count, &child_begin, &child_count, &level}) v->clear();
  for (auto* v : {&cx, &cy, &cz, &half, &m, &mx, &my, &mz, &qxx, &qxy, &qxz, &qyy, &qyz, &qzz, &tr, &rcrit2}) v->clear();
  pruned.clear();
}

void Octree::push(std::int32_t begin, std::int32_t count, std::int32_t lvl, double x, double y, double z, double h) {
  body_begin.push_back(begin);
  body_count.push_back(count);
  child_begin.push_back(0);
  child_count.push_back(0);
  level.push_back(lvl);
  cx.push_back(x);
  cy.push_back(y);
  cz.push_back(z);
  half.push_back(h);
}

KeyBox<double> bounding_cube(const double* x, const double* y, const double* z, int n) {
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (int i = 0; i < n; ++i) {
    const double p[3] = {x[i], y[i], z[i]};
    for (int d = 0; d < 3; ++d) {
      if (!std::isfinite(p[d])) throw_runtime_error("gravity tree: body " + std::to_string(i) + " has a non-finite position");
      lo[d] = std::min(lo[d], p[d]);
      hi[d] = std::max(hi[d], p[d]);
    }
  }
  return cube_from_bounds(lo, hi, n);
}

KeyBox<double> cube_from_bounds(const double lo[3], const double hi[3], int n) {
  if (n == 0) return {-0.5, -0.5, -0.5, 1.0};
  double size = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
  double mid[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])};
  const double scale = std::max({std::abs(lo[0]), std::abs(lo[1]), std::abs(lo[2]), std::abs(hi[0]),
                                 std::abs(hi[1]), std::abs(hi[2])});
  // Room for the rounding of (x - x0) / size at the upper end; a unit cube where all coincide.
  size = size > 0 ? size * (1 + 1e-12) + 4 * std::numeric_limits<double>::epsilon() * scale
                  : std::max(1.0, scale * 1e-12);
  return {mid[0] - 0.5 * size, mid[1] - 0.5 * size, mid[2] - 0.5 * size, size};
}

void sort_by_key(std::vector<std::uint64_t>& keys, std::vector<std::int32_t>& index) {
  std::vector<std::pair<std::uint64_t, std::int32_t>> pairs(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) pairs[i] = {keys[i], index[i]};
  std::sort(pairs.begin(), pairs.end());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    keys[i] = pairs[i].first;
    index[i] = pairs[i].second;
  }
}

void split_cell(const std::vector<std::uint64_t>& keys, int leaf_size, Octree& t, int c) {
  const std::int32_t count = t.body_count[c];
  const int lvl = t.level[c];
  if (count <= leaf_size || lvl == kKeyBits) return;
  const double h = 0.5 * t.half[c];
  std::int32_t b = t.body_begin[c];
  const std::int32_t e = b + count;
  t.child_begin[c] = t.size();
  for (unsigned o = 0; o < 8 && b < e; ++o) {
    const std::int32_t end = static_cast<std::int32_t>(
        std::partition_point(keys.begin() + b, keys.begin() + e, [&](std::uint64_t k) { return octant(k, lvl) <= o; }) -
        keys.begin());
    if (end > b) {
      t.push(b, end - b, lvl + 1, t.cx[c] + ((o & 4u) ? h : -h), t.cy[c] + ((o & 2u) ? h : -h),
             t.cz[c] + ((o & 1u) ? h : -h), h);
    }
    b = end;
  }
  t.child_count[c] = t.size() - t.child_begin[c];
}

void build_subtree(const std::vector<std::uint64_t>& keys, int leaf_size, Octree& t, int c) {
  const int first = t.size();
  split_cell(keys, leaf_size, t, c);
  for (int k = first; k < t.size(); ++k) split_cell(keys, leaf_size, t, k);
}

void build_octree(const std::vector<std::uint64_t>& keys, const KeyBox<double>& box, int leaf_size, Octree& t) {
  t.clear();
  const auto n = static_cast<std::int32_t>(keys.size());
  const double h0 = 0.5 * box.size;
  t.push(0, n, 0, box.x0 + h0, box.y0 + h0, box.z0 + h0, h0);
  for (int c = 0; c < t.size(); ++c) split_cell(keys, leaf_size, t, c);
}

void compute_cell_multipole(const double* x, const double* y, const double* z, const double* m, double theta,
                            Octree& t, int c) {
  const double infinity = std::numeric_limits<double>::infinity();
  const MultipoleArrays<double> cell{t.m.data(),   t.mx.data(),  t.my.data(),  t.mz.data(),  t.qxx.data(),
                                     t.qxy.data(), t.qxz.data(), t.qyy.data(), t.qyz.data(), t.qzz.data(),
                                     t.tr.data()};
  const Multipole<double> q =
      t.leaf(c) ? bodies_multipole(x, y, z, m, t.body_begin[c], t.body_begin[c] + t.body_count[c], t.cx[c], t.cy[c], t.cz[c])
                : children_multipole(cell, t.child_begin[c], t.child_begin[c] + t.child_count[c], t.cx[c], t.cy[c],
                                     t.cz[c]);
  t.m[c] = q.m, t.mx[c] = q.x, t.my[c] = q.y, t.mz[c] = q.z;
  t.qxx[c] = q.qxx, t.qxy[c] = q.qxy, t.qxz[c] = q.qxz, t.qyy[c] = q.qyy, t.qyz[c] = q.qyz, t.qzz[c] = q.qzz;
  t.tr[c] = q.tr;
  const double delta = std::sqrt((q.x - t.cx[c]) * (q.x - t.cx[c]) + (q.y - t.cy[c]) * (q.y - t.cy[c]) +
                                 (q.z - t.cz[c]) * (q.z - t.cz[c]));
  t.rcrit2[c] = barnes_hut_radius2(t.half[c], delta, theta, infinity);
}

void compute_multipoles(const double* x, const double* y, const double* z, const double* m, double theta,
                        Octree& t) {
  const int cells = t.size();
  for (auto* v : {&t.m, &t.mx, &t.my, &t.mz, &t.qxx, &t.qxy, &t.qxz, &t.qyy, &t.qyz, &t.qzz, &t.tr, &t.rcrit2}) {
    v->assign(cells, 0.0);
  }
  for (int c = cells - 1; c >= 0; --c) compute_cell_multipole(x, y, z, m, theta, t, c);
}

void split_groups(const std::vector<std::uint64_t>& keys, int capacity, std::vector<Range>& groups) {
  groups.clear();
  if (keys.empty()) return;
  split(keys.data(), 0, static_cast<std::int32_t>(keys.size()), 0, std::max(1, capacity), groups);
}

void split_groups_in(const std::uint64_t* keys, std::int32_t b, std::int32_t e, int level, int capacity,
                     std::vector<Range>& groups) {
  if (e > b) split(keys, b, e, level, std::max(1, capacity), groups);
}

CpuTree::CpuTree(const GravityParams& g, const TreeParams& p) : gravity_(g), params_(p) {}

template <class T>
void CpuTree::load(const TargetView<T>& t, const SourceView<T>& s) {
  const int n = s.n;
  in_x_.assign(s.x, s.x + n);
  in_y_.assign(s.y, s.y + n);
  in_z_.assign(s.z, s.z + n);
  in_m_.assign(s.m, s.m + n);
  targets_are_sources_ = t.x == s.x && t.y == s.y && t.z == s.z && t.n == s.n && t.self == 0;
  block_of_sources_ = !targets_are_sources_ && t.self >= 0 && t.self + t.n <= s.n && t.x == s.x + t.self &&
                      t.y == s.y + t.self && t.z == s.z + t.self;
  block_first_ = block_of_sources_ ? t.self : 0;
  block_count_ = block_of_sources_ ? t.n : 0;
  if (!targets_are_sources_ && !block_of_sources_) {
    tx_.assign(t.x, t.x + t.n);
    ty_.assign(t.y, t.y + t.n);
    tz_.assign(t.z, t.z + t.n);
  }
}

void CpuTree::build() {
  using clock = std::chrono::steady_clock;
  const int n = static_cast<int>(in_x_.size());
  auto t0 = clock::now();
  box_ = bounding_cube(in_x_.data(), in_y_.data(), in_z_.data(), n);
  keys_.resize(n);
  index_.resize(n);
#pragma omp parallel for schedule(static) if (parallel_elements(n))
  for (int i = 0; i < n; ++i) {
    keys_[i] = box_.key(in_x_[i], in_y_[i], in_z_[i]);
    index_[i] = i;
  }
  stats_.keys_s = seconds_since(t0);
  t0 = clock::now();
  sort_by_key(keys_, index_);
  stats_.sort_s = seconds_since(t0);
  t0 = clock::now();
  x_.resize(n), y_.resize(n), z_.resize(n), m_.resize(n), rank_.resize(n);
  for (int k = 0; k < n; ++k) {
    const int i = index_[k];
    x_[k] = in_x_[i], y_[k] = in_y_[i], z_[k] = in_z_[i], m_[k] = in_m_[i];
    rank_[i] = k;
  }
  build_octree(keys_, box_, std::max(1, params_.leaf_size), tree_);
  stats_.build_s = seconds_since(t0);
  t0 = clock::now();
  compute_multipoles(x_.data(), y_.data(), z_.data(), m_.data(), params_.theta, tree_);
  stats_.multipoles_s = seconds_since(t0);
  stats_.bodies = n;
  stats_.cells = tree_.size();
  stats_.leaves = 0;
  stats_.depth = 0;
  for (int c = 0; c < tree_.size(); ++c) {
    stats_.leaves += tree_.leaf(c) ? 1 : 0;
    stats_.depth = std::max(stats_.depth, tree_.level[c]);
  }
}

// `self`: the source index of target 0 (-1: the targets are not sources). Writes, per target in
// the order given, the acceleration (ax, ay, az) or the potential (ax).
void CpuTree::walk(Mode mode, int self, double* ax, double* ay, double* az) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  // Targets in key order: the sources' order, or their own keys in the sources' box.
  const std::int32_t* tindex = index_.data();
  const double *tx = x_.data(), *ty = y_.data(), *tz = z_.data();
  const std::vector<std::uint64_t>* tkeys = &keys_;
  int nt = static_cast<int>(x_.size());
  // Target k (in key order) is source src_off + tindex[k] and is written to out[tindex[k] -
  // out_off]; with a block of the sources, only the members in [block_first_, block_end) are.
  const bool block = block_of_sources_;
  const int block_end = block_first_ + block_count_;
  const int src_off = block ? 0 : self, out_off = block ? block_first_ : 0;
  if (!targets_are_sources_ && !block) {
    nt = static_cast<int>(tx_.size());
    tkeys_.resize(nt);
    tindex_.resize(nt);
    for (int i = 0; i < nt; ++i) {
      tkeys_[i] = box_.key(tx_[i], ty_[i], tz_[i]);
      tindex_[i] = i;
    }
    sort_by_key(tkeys_, tindex_);
    std::vector<double> sx(nt), sy(nt), sz(nt);
    for (int k = 0; k < nt; ++k) sx[k] = tx_[tindex_[k]], sy[k] = ty_[tindex_[k]], sz[k] = tz_[tindex_[k]];
    tx_.swap(sx), ty_.swap(sy), tz_.swap(sz);  // now sorted
    tindex = tindex_.data();
    tx = tx_.data(), ty = ty_.data(), tz = tz_.data();
    tkeys = &tkeys_;
  }
  std::vector<Range> groups;
  split_groups(*tkeys, std::clamp(params_.group_size, 1, kMaxGroup), groups);

  // The previous pass's |a| of a target (0: unknown), for the relative criterion.
  const int ns = static_cast<int>(x_.size());
  const bool have_history = params_.criterion == Criterion::relative && self >= 0 &&
                            last_acc_.size() == static_cast<std::size_t>(ns);
  const OpeningTest<double> test = opening_test(gravity_, have_history, params_.alpha);
  const double G = gravity_.G;
  const auto ngroups = static_cast<std::int64_t>(groups.size());
  std::uint64_t m2p = 0, p2p = 0;

#pragma omp parallel reduction(+ : m2p, p2p) if (parallel_walk(nt))
  {
    InteractionList list;
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t g = 0; g < ngroups; ++g) {
      const auto [b, e] = groups[g];
      // The group's bounding box and weakest previous pull.
      double a_min = have_history ? HUGE_VAL : 0.0;
      if (have_history) {
        for (int k = b; k < e; ++k) a_min = std::min(a_min, last_acc_[src_off + tindex[k]]);
      }
      // The members this call writes: every one, or those of the block (the others' sums are
      // other ranks'); a group with none of them is not walked.
      alignas(64) std::int32_t member[kMaxGroup];
      int count = 0;
      for (int k = b; k < e; ++k)
        if (!block || (tindex[k] >= block_first_ && tindex[k] < block_end)) member[count++] = k;
      if (count == 0) continue;
      const Box<double> box = group_box(tx, ty, tz, b, e);
      // The interaction list: accepted cells (M2P) and the bodies of opened leaves (P2P).
      (void)interaction_list(tree_, test, box, a_min, list);  // (a whole tree: never incomplete)
      m2p += static_cast<std::uint64_t>(count) * list.cells.size();
      p2p += static_cast<std::uint64_t>(count) * list.body_count();
      // Evaluation: per target, the cells, then the bodies, in list order (group_walk.hpp).
      alignas(64) double gx[kMaxGroup], gy[kMaxGroup], gz[kMaxGroup], sx[kMaxGroup], sy[kMaxGroup], sz[kMaxGroup];
      alignas(64) std::int32_t own[kMaxGroup];
      for (int k = 0; k < count; ++k) {
        const int m = member[k];
        gx[k] = tx[m], gy[k] = ty[m], gz[k] = tz[m];
        sx[k] = 0, sy[k] = 0, sz[k] = 0;
        own[k] = self >= 0 ? rank_[src_off + tindex[m]] : -1;
      }
      if (mode == Mode::acceleration) {
        accumulate_accelerations(gravity_, list, x_.data(), y_.data(), z_.data(), m_.data(), count, gx, gy, gz, sx, sy,
                                 sz);
        for (int k = 0; k < count; ++k) {
          const int out = tindex[member[k]] - out_off;
          ax[out] = G * sx[k];
          ay[out] = G * sy[k];
          az[out] = G * sz[k];
        }
      } else {
        accumulate_potentials(gravity_, list, x_.data(), y_.data(), z_.data(), m_.data(), count, gx, gy, gz, own, sx);
        for (int k = 0; k < count; ++k) ax[tindex[member[k]] - out_off] = G * sx[k];
      }
    }
  }
  stats_.groups = static_cast<int>(groups.size());
  stats_.m2p = m2p;
  stats_.p2p = p2p;
  stats_.walk_s = seconds_since(t0);
}

template <class T>
void CpuTree::accelerations(const TargetView<T>& t, const SourceView<T>& s, Vec3Span<T> out) {
  if (t.n == 0) return;
  load(t, s);
  build();
  std::vector<double> ax(t.n), ay(t.n), az(t.n);
  walk(Mode::acceleration, t.self, ax.data(), ay.data(), az.data());
  for (int i = 0; i < t.n; ++i) {
    out.x[i] = static_cast<T>(ax[i]);
    out.y[i] = static_cast<T>(ay[i]);
    out.z[i] = static_cast<T>(az[i]);
  }
  if (targets_are_sources_ && params_.criterion == Criterion::relative) record_history(s.n, out.x, out.y, out.z);
}

template <class T>
void CpuTree::record_history(int n, const T* ax, const T* ay, const T* az) {
  // The pass read last_acc_ where it held n values (walk: have_history); it is kept, swapped
  // (not copied) into used_acc_, and the spare vector takes the pass's |a|.
  const auto ns = static_cast<std::size_t>(n);
  if (last_acc_.size() == ns) used_acc_.swap(last_acc_);
  else used_acc_.clear();
  last_acc_.resize(ns);
  for (std::size_t i = 0; i < ns; ++i) {
    last_acc_[i] = history_value(ax[i], ay[i], az[i]);
  }
}

template <class T>
void CpuTree::potentials(const TargetView<T>& t, const SourceView<T>& s, double* phi) {
  if (t.n == 0) return;
  load(t, s);
  build();
  walk(Mode::potential, t.self, phi, nullptr, nullptr);
}

template <class T>
double CpuTree::potential_energy(const SourceView<T>& s) {
  std::vector<double> phi(s.n);
  potentials(TargetView<T>{s.x, s.y, s.z, s.n, 0}, s, phi.data());
  double w = 0;
  for (int i = 0; i < s.n; ++i) w += double(s.m[i]) * phi[i];
  return 0.5 * w;
}

#define NBODY_INSTANTIATE(T)                                                                             \
  template void CpuTree::accelerations<T>(const TargetView<T>&, const SourceView<T>&, Vec3Span<T>);     \
  template void CpuTree::potentials<T>(const TargetView<T>&, const SourceView<T>&, double*);            \
  template double CpuTree::potential_energy<T>(const SourceView<T>&);                                    \
  template void CpuTree::record_history<T>(int, const T*, const T*, const T*);
NBODY_INSTANTIATE(float)
NBODY_INSTANTIATE(double)
#undef NBODY_INSTANTIATE

}  // namespace nbody::gravity::tree

namespace nbody {
namespace {

template <class T>
class CpuTreeSolver final : public ForceSolver<T> {
 public:
  CpuTreeSolver(const GravityParams& g, const gravity::tree::TreeParams& p) : ForceSolver<T>(g), tree_(g, p) {}
  std::string name() const override { return "tree"; }
  std::string kernel() const override {
    const auto& p = tree_.params();
    char text[160];
    if (p.criterion == gravity::tree::Criterion::relative) {
      std::snprintf(text, sizeof text, "tree relative alpha=%g (first pass theta=%g) leaf %d group %d float64",
                    p.alpha, p.theta, p.leaf_size, p.group_size);
    } else {
      std::snprintf(text, sizeof text, "tree barnes-hut theta=%g leaf %d group %d float64", p.theta, p.leaf_size,
                    p.group_size);
    }
    return text;
  }
  std::string device() const override { return "CPU, " + std::to_string(omp_get_max_threads()) + " OpenMP threads"; }
  Location location() const override { return Location::host(); }
  Precision precision() const override { return sizeof(T) == 4 ? Precision::fp32 : Precision::fp64; }
  SolverCapabilities capabilities() const override { return {true, false, false}; }
  double potential_energy(const SourceView<T>& s) override { return tree_.potential_energy(s); }
  TaggedBlob save_state(bool repeats_last_pass) const override {
    return gravity::tree::save_history(tree_.params(), repeats_last_pass ? tree_.used_history() : tree_.history());
  }
  void restore_state(const TaggedBlob& state, std::size_t n) override {
    if (auto h = gravity::tree::restored_history(tree_.params(), state, n)) tree_.set_history(std::move(*h));
  }
  // (a rank's block pass recorded nothing: the whole pass, every rank's block, recorded here)
  void gathered(const TargetView<T>& t, const SourceView<T>& s, Vec3Span<T> out) override {
    if (tree_.params().criterion == gravity::tree::Criterion::relative && t.self == 0 && t.n == s.n)
      tree_.record_history(s.n, out.x, out.y, out.z);
  }
  std::vector<double> potentials(const SourceView<T>& s) override {
    std::vector<double> phi(std::size_t(std::max(s.n, 0)));
    tree_.potentials(TargetView<T>{s.x, s.y, s.z, s.n, 0}, s, phi.data());
    return phi;
  }

 protected:
  void do_accelerations(const TargetView<T>& t, const SourceView<T>& s, Vec3Span<T> out) override {
    tree_.accelerations(t, s, out);
  }
  // The multipole (M2P) and pair (P2P) terms of the pass, not targets x sources.
  bool counts_pairs() const noexcept override { return false; }
  std::uint64_t pass_terms(std::int64_t, std::int64_t) const noexcept override {
    return tree_.stats().m2p + tree_.stats().p2p;
  }

 private:
  gravity::tree::CpuTree tree_;
};

}  // namespace

template <class T>
std::unique_ptr<ForceSolver<T>> make_cpu_tree_solver(const GravityParams& g, const gravity::tree::TreeParams& p) {
  return std::make_unique<CpuTreeSolver<T>>(g, p);
}

template std::unique_ptr<ForceSolver<float>> make_cpu_tree_solver<float>(const GravityParams&,
                                                                         const gravity::tree::TreeParams&);
template std::unique_ptr<ForceSolver<double>> make_cpu_tree_solver<double>(const GravityParams&,
                                                                           const gravity::tree::TreeParams&);

}  // namespace nbody
