// nbody bench --suite tree-scaling: the Barnes-Hut tree over rank-owned bodies
// (gravity/tree/distributed_tree.hpp) stepping a model on 1, 2, 4, ..., P ranks, run as
// `mpirun -np P nbody bench --suite tree-scaling` (P = 1 too). Every rank calls it; the first k
// ranks take part in a record (a communicator of them, Communicator::split), the others wait;
// rank 0 prints and writes. docs/parallel.md, "Measuring the tree over ranks".
//   weak:   n0 bodies a rank (--tree-bodies-per-rank, default 2^15; --quick 2^11), N = k n0;
//   strong: N bodies in all (--tree-bodies, default 2^17; --quick 2^13) on every k.
// The model (--tree-models: plummer or hernquist, the first named; default plummer) is drawn by
// every rank for its own id block (draw_owned_bodies). A step is what a run over owned bodies
// does: the bodies to the ranks the previous pass's tree gave them (comm::migrate to
// tree_owner(), the tree's units dealt by the work the bodies carry: their terms of the previous
// pass), the leapfrog's half kick and drift, the tree pass (with the previous accelerations as the
// relative criterion's history, carried through the migration as extra fields), the second half
// kick. One untimed pass starts the run, then W warm-up and T timed steps (2 + 5; --quick
// 1 + 3): per step, the slowest rank's time of the step and of each phase; the records carry
// their medians over the T steps.
// After the steps, the last pass's accelerations of S sampled bodies (--tree-samples, default
// 1024, --quick 256) against the float64 direct sum over every body (each rank adds its own
// bodies' pulls; summed over the ranks in rank order): the error percentiles. A strong record on
// k > 1 ranks must give the sampled bodies the bits of the 1-rank record (the tree's contract;
// else "forces WRONG" and the program fails), as must a sample error that is not finite or over 1.
//
// The force pass is a ScalingSolver: the CPU DistributedTree now. A GPU tree over owned bodies
// plugs in as another ScalingSolver (the same accelerations over OwnedBodies, its phases in
// DistributedTreeStats' fields) chosen in make_solver when a device is present.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <omp.h>

#include "bench.hpp"
#include "comm/communicator.hpp"
#include "comm/owned_bodies.hpp"
#include "comm/sfc_domain.hpp"
#include "gravity/tree/distributed_tree.hpp"
#include "ic/owned.hpp"
#include "measure.hpp"
#include "nbody/error.hpp"
#include "tree_measure.hpp"
#include "tree_scaling.hpp"

namespace nbody::bench {
namespace {

using gravity::tree::DistributedTree;
using gravity::tree::DistributedTreeStats;
using gravity::tree::PreviousAccelerations;

// The force pass a record steps with.
class ScalingSolver {
 public:
  virtual ~ScalingSolver() = default;
  // The accelerations of this rank's bodies (their work set to the pass's terms). Collective.
  virtual void accelerations(comm::OwnedBodies<double>& b, Vec3Span<double> out, PreviousAccelerations<double> prev) = 0;
  // The last pass's counts, bytes and phase times on this rank.
  [[nodiscard]] virtual const DistributedTreeStats& stats() const = 0;
  // The ranks the last pass's tree gave this rank's bodies (in their order).
  [[nodiscard]] virtual const std::vector<int>& tree_owner() const = 0;
  [[nodiscard]] virtual std::string device() const = 0;
};

class CpuScalingSolver final : public ScalingSolver {
 public:
  CpuScalingSolver(std::shared_ptr<comm::Communicator> c, const GravityParams& g, const gravity::tree::TreeParams& p)
      : tree_(std::move(c), g, p) {}
  void accelerations(comm::OwnedBodies<double>& b, Vec3Span<double> out, PreviousAccelerations<double> prev) override {
    tree_.accelerations(b, out, prev);
  }
  const DistributedTreeStats& stats() const override { return tree_.stats(); }
  const std::vector<int>& tree_owner() const override { return tree_.tree_owner(); }
  std::string device() const override { return "cpu"; }

 private:
  DistributedTree tree_;
};

std::unique_ptr<ScalingSolver> make_solver(std::shared_ptr<comm::Communicator> c, const GravityParams& g,
                                           const gravity::tree::TreeParams& p) {
  return std::make_unique<CpuScalingSolver>(std::move(c), g, p);
}

// The phases of a step, in the order of the JSON's fields.
enum Phase { decomposition, top_tree, tree_move, exchange, build, multipoles, walk, integration, other, whole_step, kPhases };
static_assert(kPhases == int(kTreeScalingPhases.size()));

// What one configuration gave, on rank 0 of its communicator.
struct Outcome {
  std::string device;                 // the solver's
  double phase_median[kPhases] = {};  // the slowest rank's, median over the timed steps
  std::vector<double> steps;          // each timed step's seconds (the slowest rank's)
  // the last step's (max over ranks; bytes also the sum)
  double bytes_sent_max = 0, bytes_sent_total = 0, migrated_bodies_max = 0, migration_bytes_max = 0, let_bytes_max = 0;
  double peak_bodies_max = 0, peak_cells_max = 0, remote_bodies_max = 0, terms = 0, work_imbalance = 1;
  std::vector<double> sample;  // the sampled bodies' accelerations (x, y, z each), in sample order
  std::vector<double> errors;  // their relative errors against the float64 direct sum
};

// The float64 direct sum at the sampled bodies over every body: this rank's bodies' pulls,
// summed over the ranks in rank order. `t`: the targets' x, y, z (the same on every rank).
std::vector<double> direct_at(comm::Communicator& c, const comm::OwnedBodies<double>& b, const GravityParams& g,
                              const std::vector<double>& t) {
  const std::size_t s = t.size() / 3, n = b.size();
  const double eps2 = g.eps2();
  std::vector<double> a(3 * s, 0.0);
#pragma omp parallel for schedule(static)
  for (std::size_t k = 0; k < s; ++k) {
    double ax = 0, ay = 0, az = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const double dx = b.p.x[j] - t[3 * k], dy = b.p.y[j] - t[3 * k + 1], dz = b.p.z[j] - t[3 * k + 2];
      const double r2 = dx * dx + dy * dy + dz * dz + eps2;
      if (r2 == 0) continue;
      const double inv = 1 / std::sqrt(r2);
      const double f = b.p.m[j] * inv * inv * inv;
      ax += f * dx, ay += f * dy, az += f * dz;
    }
    a[3 * k] = g.G * ax, a[3 * k + 1] = g.G * ay, a[3 * k + 2] = g.G * az;
  }
  return c.allreduce_sum(a);
}

// The sampled bodies (ids `ids`, ascending) on every rank: position and acceleration, in id order.
std::vector<double> gather_sample(comm::Communicator& c, const comm::OwnedBodies<double>& b,
                                  const std::vector<std::int32_t>& ids, const std::vector<std::vector<double>>& a) {
  std::vector<double> mine;  // id, x, y, z, ax, ay, az
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (!std::binary_search(ids.begin(), ids.end(), std::int32_t(b.p.id[i]))) continue;
    mine.insert(mine.end(), {double(b.p.id[i]), b.p.x[i], b.p.y[i], b.p.z[i], a[0][i], a[1][i], a[2][i]});
  }
  std::vector<double> all = c.allgatherv<double>(mine);
  std::vector<double> out(6 * ids.size());
  for (std::size_t r = 0; r + 7 <= all.size(); r += 7) {
    const auto k = std::size_t(std::lower_bound(ids.begin(), ids.end(), std::int32_t(all[r])) - ids.begin());
    std::copy(all.begin() + std::ptrdiff_t(r + 1), all.begin() + std::ptrdiff_t(r + 7), out.begin() + std::ptrdiff_t(6 * k));
  }
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Steps the model on the ranks of `c` (all of them take part). Collective.
Outcome run_on(std::shared_ptr<comm::Communicator> cp, const TreeScalingSetup& s, std::int64_t n) {
  comm::Communicator& c = *cp;
  IcRequest req;
  req.name = s.model;
  req.n = n;
  req.seed = s.seed;
  comm::OwnedBodies<double> b = draw_owned_bodies<double>(c, req);
  GravityParams g;
  g.softening = s.softening;
  gravity::tree::TreeParams p;
  p.theta = s.theta, p.leaf_size = s.leaf, p.group_size = s.group;
  const auto solver = make_solver(cp, g, p);

  // The accelerations travel with their bodies as extra fields 0..2.
  std::vector<double> ax, ay, az;
  auto pass = [&](bool history) {
    ax.assign(b.size(), 0), ay.assign(b.size(), 0), az.assign(b.size(), 0);
    PreviousAccelerations<double> prev;
    if (history) prev = {true, b.extra[0].data(), b.extra[1].data(), b.extra[2].data()};
    solver->accelerations(b, {ax.data(), ay.data(), az.data()}, prev);
    b.extra = {ax, ay, az};
  };
  pass(false);
  const double dt = s.dt;
  std::vector<double> times;  // per timed step: the phases
  comm::MigrationStats moved;
  for (int step = 0; step < s.warm + s.timed; ++step) {
    double ph[kPhases] = {};
    const auto t0 = std::chrono::steady_clock::now();
    auto t = t0;
    moved = comm::migrate(c, b, std::span<const int>(solver->tree_owner()));
    ph[decomposition] = seconds_since(t);
    t = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < b.size(); ++i) {
      b.p.vx[i] += 0.5 * dt * b.extra[0][i], b.p.vy[i] += 0.5 * dt * b.extra[1][i], b.p.vz[i] += 0.5 * dt * b.extra[2][i];
      b.p.x[i] += dt * b.p.vx[i], b.p.y[i] += dt * b.p.vy[i], b.p.z[i] += dt * b.p.vz[i];
    }
    ph[integration] = seconds_since(t);
    pass(true);
    t = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < b.size(); ++i) {
      b.p.vx[i] += 0.5 * dt * ax[i], b.p.vy[i] += 0.5 * dt * ay[i], b.p.vz[i] += 0.5 * dt * az[i];
    }
    ph[integration] += seconds_since(t);
    ph[whole_step] = seconds_since(t0);
    const DistributedTreeStats& st = solver->stats();
    ph[top_tree] = st.top_s, ph[tree_move] = st.move_s, ph[exchange] = st.exchange_s;
    ph[build] = st.build_s, ph[multipoles] = st.multipoles_s, ph[walk] = st.walk_s;
    ph[other] = ph[whole_step];
    for (int q = 0; q < other; ++q) ph[other] -= ph[q];
    if (step >= s.warm) times.insert(times.end(), ph, ph + kPhases);
  }
  c.allreduce_max(times.data(), std::int64_t(times.size()));

  Outcome out;
  out.device = solver->device();
  for (int q = 0; q < kPhases; ++q) {
    std::vector<double> v;
    for (int k = 0; k < s.timed; ++k) v.push_back(times[std::size_t(k * kPhases + q)]);
    out.phase_median[q] = median(v);
    if (q == whole_step) out.steps = v;
  }
  // The last step's bytes and peaks (the tree pass's bytes_sent include its own move of bodies to
  // their units' ranks and of the results back; the migration's are apart).
  const DistributedTreeStats& st = solver->stats();
  const double terms = double(st.m2p + st.p2p);
  double mx[8] = {double(st.bytes_sent),  double(moved.sent),   double(moved.bytes_sent), double(st.let_bytes_sent),
                  double(st.peak_bodies), double(st.peak_cells), double(st.remote_bodies), terms};
  c.allreduce_max(mx, 8);
  const std::vector<double> sums = c.allreduce_sum(std::vector<double>{double(st.bytes_sent), terms});
  out.bytes_sent_max = mx[0], out.migrated_bodies_max = mx[1], out.migration_bytes_max = mx[2], out.let_bytes_max = mx[3];
  out.peak_bodies_max = mx[4], out.peak_cells_max = mx[5], out.remote_bodies_max = mx[6];
  out.bytes_sent_total = sums[0];
  out.terms = sums[1];
  out.work_imbalance = sums[1] > 0 ? mx[7] / (sums[1] / c.size()) : 1;

  // The force error on the sampled bodies.
  const auto ids = treebench::sample_targets(n, s.samples, s.seed + 1);
  const std::vector<double> sample = gather_sample(c, b, ids, {ax, ay, az});
  std::vector<double> at(3 * ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k)
    for (int d = 0; d < 3; ++d) at[3 * k + std::size_t(d)] = sample[6 * k + std::size_t(d)];
  const std::vector<double> ref = direct_at(c, b, g, at);
  std::vector<double> tx, ty, tz, rx, ry, rz;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    tx.push_back(sample[6 * k + 3]), ty.push_back(sample[6 * k + 4]), tz.push_back(sample[6 * k + 5]);
    rx.push_back(ref[3 * k]), ry.push_back(ref[3 * k + 1]), rz.push_back(ref[3 * k + 2]);
    out.sample.insert(out.sample.end(), {sample[6 * k + 3], sample[6 * k + 4], sample[6 * k + 5]});
  }
  out.errors = treebench::relative_errors(tx, ty, tz, rx, ry, rz);
  return out;
}

}  // namespace

void tree_scaling(const Options& o, const std::function<void(Record)>& add) {
  auto wanted = [&](const std::string& group) {
    return o.rungs.empty() || std::find(o.rungs.begin(), o.rungs.end(), group) != o.rungs.end();
  };
  const auto world = comm::world_shared();
  const int P = world->size();
  const bool root = world->rank() == 0;
  TreeScalingSetup s;
  s.model = o.tree_models.empty() ? "plummer" : o.tree_models.front();
  if (s.model != "plummer" && s.model != "hernquist")
    throw_input_error("--tree-models: the tree-scaling suite draws plummer or hernquist (got '" + s.model + "')");
  s.theta = o.tree_theta.empty() ? 0.5 : o.tree_theta.front();
  s.softening = o.tree_softening;
  s.leaf = o.tree_leaf;
  s.group = o.tree_group;
  s.samples = o.tree_samples > 0 ? o.tree_samples : o.quick ? 256 : 1024;
  s.warm = o.quick ? 1 : 2;
  s.timed = o.quick ? 3 : 5;
  const std::int64_t per_rank = o.tree_bodies_per_rank > 0 ? o.tree_bodies_per_rank : o.quick ? 2048 : 32768;
  const std::int64_t strong_n = o.tree_bodies > 0 ? o.tree_bodies : o.quick ? 8192 : 131072;
  const int threads = omp_get_max_threads();
  std::vector<int> ks;
  for (int k = 1; k < P; k *= 2) ks.push_back(k);
  ks.push_back(P);
  std::printf("tree-scaling: the tree over owned bodies on the CPU (%d thread%s a rank), %d rank%s; %s, theta %.2g, "
              "Plummer eps %.3g, leaf %d, group %d, dt %.4g; weak %lld bodies a rank, strong %lld; %d warm-up + %d "
              "timed steps; %d sampled bodies\n",
              threads, threads > 1 ? "s" : "", P, P > 1 ? "s" : "", s.model.c_str(), s.theta, s.softening, s.leaf,
              s.group, s.dt, static_cast<long long>(per_rank), static_cast<long long>(strong_n), s.warm, s.timed,
              s.samples);
  std::fflush(stdout);

  for (const std::string kind : {"weak", "strong"}) {
    if (!wanted(kind)) continue;
    Record one;  // the 1-rank record of this kind
    Outcome one_out;
    for (const int k : ks) {
      const std::int64_t n = kind == "weak" ? per_rank * k : strong_n;
      Outcome m;
      {
        auto part = world->split(world->rank() < k);
        if (part) m = run_on(part, s, n);
      }
      world->barrier();
      if (!root) continue;
      const std::string& device = m.device;
      Record r;
      r.suite = "tree-scaling";
      r.rung = kind + "-" + std::to_string(k);
      r.precision = "fp64";
      r.n = n;
      r.ranks = k;
      r.shape = device + ", " + std::to_string(threads) + " thread" + (threads > 1 ? "s" : "") + " a rank";
      TreeScalingFields& t = r.tree_scaling;
      t.setup = s;
      t.device = device;
      t.threads = threads;
      t.bodies_per_rank = double(n) / k;
      r.steps = 1;
      r.repeats = s.timed;
      r.median_s = median(m.steps);
      r.min_s = *std::min_element(m.steps.begin(), m.steps.end());
      double sum = 0;
      for (const double x : m.steps) sum += x;
      r.mean_s = sum / double(m.steps.size());
      for (int q = 0; q < kPhases; ++q) t.phase_s[std::size_t(q)] = m.phase_median[q];
      r.force_s = m.phase_median[top_tree] + m.phase_median[tree_move] + m.phase_median[exchange] +
                  m.phase_median[build] + m.phase_median[multipoles] + m.phase_median[walk];
      r.comm_s = m.phase_median[decomposition] + m.phase_median[tree_move] + m.phase_median[exchange];
      t.rate_per_rank = double(n) / r.median_s / k;
      r.rate = m.terms / r.median_s / 1e9;  // billion terms (M2P + P2P) a second, all ranks
      t.bytes_sent_max = m.bytes_sent_max, t.bytes_sent_total = m.bytes_sent_total;
      t.migrated_bodies_max = m.migrated_bodies_max, t.migration_bytes_max = m.migration_bytes_max;
      t.let_bytes_sent_max = m.let_bytes_max;
      t.peak_bodies_max = m.peak_bodies_max, t.peak_cells_max = m.peak_cells_max;
      t.remote_bodies_max = m.remote_bodies_max, t.terms_per_body = m.terms / double(n);
      t.work_imbalance = m.work_imbalance;
      const auto pc = treebench::percentiles(m.errors);
      t.samples = int(m.errors.size());
      t.err_p50 = pc.p50, t.err_p90 = pc.p90, t.err_p99 = pc.p99, t.err_max = pc.max;
      char buf[240];
      std::snprintf(buf, sizeof buf, "the last pass's |a - a_direct| / |a_direct| on %d sampled bodies (float64 direct sum): "
                    "p50 %.2g, p99 %.2g, max %.2g", t.samples, t.err_p50, t.err_p99, t.err_max);
      r.verification = buf;
      r.verified = std::isfinite(t.err_max) && t.err_max <= 1;
      if (kind == "strong" && k > 1 && !one_out.sample.empty()) {
        t.compared_with_one_rank = true;
        t.same_bits_as_one_rank = m.sample == one_out.sample;
        r.verification += t.same_bits_as_one_rank ? "; the sampled accelerations have the 1-rank record's bits"
                                                  : "; the sampled accelerations DIFFER from the 1-rank record's";
        r.verified = r.verified && t.same_bits_as_one_rank;
      }
      if (!r.verified) {
        r.error = "forces WRONG: " + r.verification;
        r.repeats = 0;
        add(r);
        continue;
      }
      if (k == 1) {
        one = r, one_out = m;
      } else if (one.timed()) {
        r.efficiency = t.rate_per_rank / one.tree_scaling.rate_per_rank;
        if (kind == "strong") r.speedup_vs_one_rank = one.median_s / r.median_s;
      }
      add(r);
    }
  }
}

}  // namespace nbody::bench
