// nbody bench --suite tree: the Barnes-Hut tree measured (docs/tree.md, "Measuring the tree").
//
// For each N (ascending) and model:
//   1. The model is drawn (float64, seed 1) and its positions and masses rounded to float32, so
//      that the float32 tree, the float64 tree and the reference all see the same bodies.
//   2. The reference: the float64 direct sum over all N sources at K sampled targets (fixed seed;
//      bench/tree_measure.hpp), once, on the CPU with OpenMP.
//   3. For each opening angle: a tree is made (leaf 16, group 32, Barnes-Hut), one pass gives the
//      accelerations, whose error at the sampled targets is |a - a_ref| / |a_ref| (percentiles);
//      a p99 above 0.1 or a non-finite value is a wrong result, recorded and not timed. Then
//      warm-up passes (at the first angle: 0.3 s of work on a GPU, so its clocks ramp up; that
//      first pass alone at the others) and R timed passes: the
//      whole force pass and the tree's own phase times (CUDA events on a GPU, a steady clock on
//      the CPU), and the leapfrog's kick, drift, kick over the N bodies (the integrator's
//      element-wise operations, dt = 0 so that every pass sees the same positions: the kernels
//      do the same work). Medians over the R passes. The sampled accelerations of the last pass
//      are compared bit for bit with the first's.
//   4. The direct sum (the production CUDA kernel in float32 on a GPU, the OpenMP + SIMD float64
//      sum on the CPU) timed at the same N up to a limit (2^20 on a GPU) and its error measured
//      the same way; above the limit its time is extrapolated as c N^2 and marked so.
// Finally, per model, the N where the tree's force pass (at the fastest angle whose p99 is at
// most 1e-3 at that N) becomes as fast as the direct sum's: interpolated in log N - log t.
//
// On a GPU the tree is CudaTree in float32 (every N) and float64 (at one N: the largest listed
// N <= 2^20); without one, the CPU tree (float64, the oracle) at small N, so that the suite and
// its output are tested everywhere.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench.hpp"
#include "measure.hpp"
#include "gravity/params.hpp"
#include "gravity/tree/cpu_tree.hpp"
#include "gravity/tree/cuda_tree.hpp"
#include "ic/ic.hpp"
#include "integrate/system.hpp"
#include "nbody/error.hpp"
#include "particles/memory.hpp"
#include "particles/ops.hpp"
#include "particles/store.hpp"
#include "tree_measure.hpp"

namespace nbody::bench {
namespace {

using gravity::tree::CpuTree;
using gravity::tree::TreeParams;
using gravity::tree::TreeStats;
using treebench::Percentiles;

constexpr std::uint64_t kModelSeed = 1;
constexpr std::uint64_t kSampleSeed = 20261123;
constexpr double kWrongP99 = 0.1;        // a tree this wrong is a bug, not an approximation
constexpr double kGoalP99 = 1e-3;        // the accuracy of the crossover (issue 16's goals)
constexpr std::int64_t kGpuDirectMaxN = 1 << 20;
constexpr std::int64_t kCpuDirectMaxN = 1 << 14;
constexpr std::int64_t kFp64MaxN = 1 << 20;
constexpr double kGpuWarmupSeconds = 0.3;
constexpr double kTreeBytesEstimate = 160;  // device bytes a body of the tree takes, at most (measured ~110)
constexpr double kDeviceReserve = 2e9;      // the walk's scratch, CUB and the CUDA context

std::string fmt(const char* f, double a, double b = 0, double c = 0, double d = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a, b, c, d);
  return buf;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// What the suite runs: body counts, models, angles, samples, repeats.
struct Plan {
  bool gpu = false;
  std::string why_cpu;
  bool quick = false;
  std::vector<std::int64_t> ns;
  std::vector<std::string> models;
  std::vector<double> user_thetas;
  int user_samples = 0;
  std::int64_t fp64_n = -1;
  std::int64_t direct_max_n = 0;
  double softening = 0.01;
  double budget_s = 420;
  int leaf = 16, group = 64;

  [[nodiscard]] std::vector<double> thetas(std::int64_t n) const {
    if (!user_thetas.empty()) return user_thetas;
    if (!gpu) return quick ? std::vector<double>{0.3, 0.6, 0.9} : std::vector<double>{0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
    if (n <= (std::int64_t{1} << 21))
      return quick ? std::vector<double>{0.4, 0.6, 0.8} : std::vector<double>{0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
    if (n <= (std::int64_t{1} << 25)) return quick ? std::vector<double>{0.6} : std::vector<double>{0.4, 0.5, 0.6, 0.7};
    return {0.6};
  }
  [[nodiscard]] int samples(std::int64_t n) const {
    if (user_samples > 0) return user_samples;
    if (n <= (std::int64_t{1} << 21)) return 4096;
    if (n <= (std::int64_t{1} << 25)) return 2048;
    return 1024;
  }
  [[nodiscard]] int repeats(double pass_seconds) const {
    if (!gpu) return quick ? 1 : 3;
    if (quick || pass_seconds > 1.0) return 3;
    return 5;
  }
};

Plan make_plan(const Options& o) {
  Plan p;
  p.gpu = gravity::tree::cuda_tree_available(&p.why_cpu);
  p.quick = o.quick;
  p.user_thetas = o.tree_theta;
  p.user_samples = o.tree_samples;
  p.softening = o.tree_softening;
  p.budget_s = o.tree_budget_s;
  p.leaf = o.tree_leaf;
  p.group = o.tree_group;
  p.models = o.tree_models.empty() ? std::vector<std::string>{"cube", "plummer", "hernquist", "disk-galaxy"}
                                   : o.tree_models;
  if (!o.tree_n.empty()) {
    p.ns = o.tree_n;
  } else if (p.gpu) {
    p.ns = o.quick ? std::vector<std::int64_t>{10000, 100000, 1048576}
                   : std::vector<std::int64_t>{10000, 30000, 100000, 1048576, 16777216, 100000000};
  } else {
    p.ns = o.quick ? std::vector<std::int64_t>{2048} : std::vector<std::int64_t>{4096, 16384};
  }
  std::sort(p.ns.begin(), p.ns.end());
  p.ns.erase(std::unique(p.ns.begin(), p.ns.end()), p.ns.end());
  p.direct_max_n = p.gpu ? kGpuDirectMaxN : kCpuDirectMaxN;
  if (p.gpu)
    for (const std::int64_t n : p.ns)
      if (n <= kFp64MaxN) p.fp64_n = n;
  return p;
}

// One model at one N, rounded to float32 values (kept as float64), and its reference.
struct Unit {
  std::string model;
  std::int64_t n = 0;
  Particles<double> bodies;
  std::vector<std::int32_t> targets;
  std::vector<double> rx, ry, rz;
};

Record base_record(const Plan& plan, const std::string& rung, const std::string& model, std::int64_t n,
                   const std::string& precision) {
  Record r;
  r.suite = "tree";
  r.rung = rung;
  r.n = n;
  r.precision = precision;
  r.tree.model = model;
  r.tree.softening = plan.softening;
  return r;
}

// Fills the error fields from accelerations at the unit's targets; true when they are sane.
bool judge_errors(const Unit& u, const std::vector<double>& ax, const std::vector<double>& ay,
                  const std::vector<double>& az, double wrong_p99, Record& r) {
  const Percentiles p = treebench::percentiles(treebench::relative_errors(ax, ay, az, u.rx, u.ry, u.rz));
  r.tree.samples = int(u.targets.size());
  r.tree.err_p50 = p.p50, r.tree.err_p90 = p.p90, r.tree.err_p99 = p.p99, r.tree.err_max = p.max;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "force error vs the float64 direct sum at %zu targets: p50 %.3g, p90 %.3g, p99 %.3g, max %.3g "
                "(wrong above p99 %.0e)",
                u.targets.size(), p.p50, p.p90, p.p99, p.max, wrong_p99);
  r.verification = buf;
  r.verified = std::isfinite(p.max) && p.p99 <= wrong_p99;
  if (!r.verified) r.error = std::string("forces WRONG: ") + buf;
  return r.verified;
}

// Medians of the per-pass times into the record.
struct PassTimes {
  std::vector<double> force, kick_drift, keys, sort, build, multipoles, walk;
  void add(double f, double kd, const TreeStats& s) {
    force.push_back(f), kick_drift.push_back(kd);
    keys.push_back(s.keys_s), sort.push_back(s.sort_s), build.push_back(s.build_s);
    multipoles.push_back(s.multipoles_s), walk.push_back(s.walk_s);
  }
  void fill(const TreeStats& s, std::int64_t n, Record& r) const {
    std::vector<double> step;
    for (std::size_t k = 0; k < force.size(); ++k) step.push_back(force[k] + kick_drift[k]);
    r.steps = 1;
    r.repeats = int(force.size());
    r.median_s = median(step, -1);
    r.min_s = *std::min_element(step.begin(), step.end());
    r.mean_s = 0;
    for (double s1 : step) r.mean_s += s1 / double(step.size());
    TreeFields& t = r.tree;
    t.force_s = median(force, -1);
    t.kick_drift_s = median(kick_drift, -1);
    t.step_s = r.median_s;
    t.keys_s = median(keys, -1), t.sort_s = median(sort, -1), t.build_s = median(build, -1);
    t.multipoles_s = median(multipoles, -1), t.walk_s = median(walk, -1);
    t.m2p_per_particle = double(s.m2p) / double(n);
    t.p2p_per_particle = double(s.p2p) / double(n);
    t.cells = s.cells, t.groups = s.groups, t.depth = s.depth;
    r.rate = t.walk_s > 0 ? double(s.m2p + s.p2p) / t.walk_s / 1e9 : 0;
  }
};

// The timed passes of a verified angle: plan.repeats(first) force passes, each followed by the
// integrators' kick, drift, kick with dt = 0 (the same positions every pass), medians into r.
template <class T, class Tree, class Pass, class Ops>
void time_passes(const Plan& plan, double first, Pass&& pass, const Tree& tree, Ops& ops, const ParticleView<T>& view,
                 const ConstVec3Span<T>& acc, std::int64_t n, Record& r) {
  PassTimes times;
  for (int k = 0, reps = plan.repeats(first); k < reps; ++k) {
    const double f = pass();
    const TreeStats st = tree.stats();
    const double kd = ops.measure_seconds([&] {
      ops.kick(view, acc, 0.0);
      ops.drift(view, 0.0);
      ops.kick(view, acc, 0.0);
    });
    times.add(f, kd, st);
  }
  times.fill(tree.stats(), n, r);
}

GravityParams gravity_of(const Plan& plan) {
  GravityParams g;
  g.G = 1.0;
  g.softening = plan.softening;
  g.law = SofteningLaw::plummer;
  return g;
}

TreeParams tree_params(const Plan& plan, double theta) {
  TreeParams t;
  t.theta = theta;
  t.leaf_size = plan.leaf;
  t.group_size = plan.group;
  return t;
}

std::string tree_shape(const Plan& plan) { return "leaf " + std::to_string(plan.leaf) + ", group " + std::to_string(plan.group); }

// ---- the CPU tree --------------------------------------------------------------------------------

Record cpu_tree(const Plan& plan, Unit& u, double theta) {
  Record r = base_record(plan, "tree-cpu", u.model, u.n, "fp64");
  r.shape = tree_shape(plan);
  r.tree.theta = theta;
  try {
    const int n = int(u.n);
    Particles<double>& b = u.bodies;
    CpuTree tree(gravity_of(plan), tree_params(plan, theta));
    std::vector<double> ax(u.bodies.size()), ay(ax.size()), az(ax.size());
    const TargetView<double> t{b.x.data(), b.y.data(), b.z.data(), n, 0};
    const SourceView<double> s{b.x.data(), b.y.data(), b.z.data(), b.m.data(), n};
    auto pass = [&] {
      const auto t0 = std::chrono::steady_clock::now();
      tree.accelerations(t, s, Vec3Span<double>{ax.data(), ay.data(), az.data()});
      return seconds_since(t0);
    };
    auto sampled = [&] {
      std::vector<double> sx, sy, sz;
      for (const std::int32_t i : u.targets) sx.push_back(ax[i]), sy.push_back(ay[i]), sz.push_back(az[i]);
      return std::array<std::vector<double>, 3>{sx, sy, sz};
    };
    const double first = pass();
    const auto a0 = sampled();
    if (!judge_errors(u, a0[0], a0[1], a0[2], kWrongP99, r)) return r;
    auto ops = make_host_ops<double>();
    const ParticleView<double> view{{b.x.data(), b.y.data(), b.z.data()}, {b.vx.data(), b.vy.data(), b.vz.data()},
                                    b.m.data(), b.id.data(), n};
    const ConstVec3Span<double> acc{ax.data(), ay.data(), az.data()};
    time_passes(plan, first, pass, tree, *ops, view, acc, u.n, r);
    r.tree.same_bits = sampled() == a0;
    if (!r.tree.same_bits) r.verification += "; accelerations DIFFER between passes";
  } catch (const Error& e) {
    r.verified = false;
    r.error = e.what();
  }
  return r;
}

// ---- the direct sum --------------------------------------------------------------------------------

template <class T>
Record direct_sum(const Plan& plan, const Unit& u, const std::string& device, Precision precision) {
  Record r = base_record(plan, device == "cuda" ? "direct-gpu" : "direct-cpu", "", u.n,
                         std::string(to_string(precision)));
  try {
    SolverRequest req;
    req.choice = {device, "direct"};
    req.precision = precision;
    req.n = std::size_t(u.n);
    req.gravity = gravity_of(plan);
    System<T> sys(req);
    r.shape = sys.kernel();
    sys.upload(u.bodies.template as<T>());
    const double first = sys.measure_seconds([&] { sys.compute_accelerations(); });
    Accelerations<T> a;
    sys.download_accelerations(a);
    std::vector<double> sx, sy, sz;
    for (const std::int32_t i : u.targets) sx.push_back(a.ax[i]), sy.push_back(a.ay[i]), sz.push_back(a.az[i]);
    const double bound = precision == Precision::fp64 ? 1e-10 : 1e-4;
    if (!judge_errors(u, sx, sy, sz, bound, r)) return r;
    for (double spent = first; plan.gpu && spent < kGpuWarmupSeconds;)
      spent += sys.measure_seconds([&] { sys.compute_accelerations(); });
    std::vector<double> times;
    for (int k = 0, reps = plan.repeats(first); k < reps; ++k)
      times.push_back(sys.measure_seconds([&] { sys.compute_accelerations(); }));
    r.steps = 1;
    r.repeats = int(times.size());
    r.median_s = median(times, -1);
    r.min_s = *std::min_element(times.begin(), times.end());
    for (double t : times) r.mean_s += t / double(times.size());
    r.rate = double(u.n) * double(u.n) / r.median_s / 1e9;
    r.tree.force_s = r.median_s;
    r.tree.step_s = r.median_s;
  } catch (const Error& e) {
    r.verified = false;
    r.error = e.what();
  }
  return r;
}

// ---- the GPU tree ----------------------------------------------------------------------------------

#if NBODY_HAVE_CUDA
// The bodies on the device in T, with room for their accelerations and the sampled values.
template <class T>
struct DeviceBodies {
  static constexpr int kArrays = 10;  // x, y, z, m, vx, vy, vz, ax, ay, az
  Location at = Location::cuda(0);
  std::int64_t n;
  Array<T> x, y, z, m, vx, vy, vz, ax, ay, az, picked;
  Array<std::int32_t> targets;

  explicit DeviceBodies(const Unit& u)
      : n(u.n),
        x(at, n), y(at, n), z(at, n), m(at, n), vx(at, n), vy(at, n), vz(at, n), ax(at, n), ay(at, n), az(at, n),
        picked(at, 3 * u.targets.size()), targets(at, u.targets.size()) {
    const Particles<double>& b = u.bodies;
    std::vector<T> h(static_cast<std::size_t>(n));
    const std::pair<Array<T>*, const std::vector<double>*> fields[] = {
        {&x, &b.x}, {&y, &b.y}, {&z, &b.z}, {&m, &b.m}, {&vx, &b.vx}, {&vy, &b.vy}, {&vz, &b.vz}};
    for (const auto& [d, s] : fields) {
      for (std::size_t i = 0; i < h.size(); ++i) h[i] = T((*s)[i]);
      copy_bytes(d->data(), at, h.data(), Location::host(), h.size() * sizeof(T));
    }
    copy_bytes(targets.data(), at, u.targets.data(), Location::host(), u.targets.size() * sizeof(std::int32_t));
  }
  // The accelerations at the sampled targets, in float64.
  [[nodiscard]] std::array<std::vector<double>, 3> sampled() {
    const std::size_t k = targets.size();
    std::vector<T> h(3 * k);
    const Array<T>* from[3] = {&ax, &ay, &az};
    for (int c = 0; c < 3; ++c)
      gather_values(picked.data() + c * k, from[c]->data(), targets.data(), k, sizeof(T), at, nullptr);
    copy_bytes(h.data(), Location::host(), picked.data(), at, h.size() * sizeof(T));
    std::array<std::vector<double>, 3> out;
    for (int c = 0; c < 3; ++c) out[c].assign(h.begin() + c * k, h.begin() + (c + 1) * k);
    return out;
  }
};

template <class T>
Record gpu_tree(const Plan& plan, const Unit& u, DeviceBodies<T>& d, double theta, double warmup_s) {
  const Precision precision = std::is_same_v<T, float> ? Precision::fp32 : Precision::fp64;
  Record r = base_record(plan, "tree-gpu", u.model, u.n, std::string(to_string(precision)));
  r.shape = tree_shape(plan);
  r.tree.theta = theta;
  try {
    const int n = int(u.n);
    const Location at = Location::cuda(0);
    const double free0 = double(available_bytes(at));
    gravity::tree::CudaTree tree(gravity_of(plan), tree_params(plan, theta), 0);
    auto ops = make_device_ops<T>(0, nullptr);  // the legacy stream, as the tree's kernels
    auto pass = [&] {
      return ops->measure_seconds(
          [&] { tree.accelerations_device(d.x.data(), d.y.data(), d.z.data(), d.m.data(), n, d.ax.data(), d.ay.data(), d.az.data()); });
    };
    const double first = pass();
    const double free1 = double(available_bytes(at));
    const auto a0 = d.sampled();
    if (!judge_errors(u, a0[0], a0[1], a0[2], kWrongP99, r)) return r;
    r.tree.tree_bytes_per_body = std::max(0.0, free0 - free1) / double(n);
    r.tree.device_bytes_per_body = r.tree.tree_bytes_per_body + DeviceBodies<T>::kArrays * sizeof(T);
    for (double spent = first; spent < warmup_s;) spent += pass();
    const ParticleView<T> view{{d.x.data(), d.y.data(), d.z.data()}, {d.vx.data(), d.vy.data(), d.vz.data()},
                               d.m.data(), nullptr, n};
    const ConstVec3Span<T> acc{d.ax.data(), d.ay.data(), d.az.data()};
    time_passes(plan, first, pass, tree, *ops, view, acc, u.n, r);
    r.tree.same_bits = d.sampled() == a0;
    if (!r.tree.same_bits) r.verification += "; accelerations DIFFER between passes";
  } catch (const Error& e) {
    r.verified = false;
    r.error = e.what();
  }
  return r;
}

// Why the unit does not fit on the device, or "".
std::string device_room(const Plan& plan, std::int64_t n) {
  const std::size_t bytes = plan.fp64_n == n ? 8 : 4;
  const double need = double(n) * (DeviceBodies<float>::kArrays * double(bytes) + kTreeBytesEstimate) + kDeviceReserve;
  const double free = double(available_bytes(Location::cuda(0)));
  if (need <= free) return "";
  return fmt("skipped: needs about %.1f GB of device memory, %.1f GB free", need / 1e9, free / 1e9);
}
#endif

// ---- the suite -------------------------------------------------------------------------------------

Record skipped_record(const Plan& plan, const std::string& model, std::int64_t n, const std::string& why) {
  Record r = base_record(plan, plan.gpu ? "tree-gpu" : "tree-cpu", model, n, plan.gpu ? "fp32" : "fp64");
  r.skipped = why;
  return r;
}

// Makes the unit's bodies and reference; "" or why it cannot be made.
std::string make_unit(const Plan& plan, Unit& u) {
  const double host_need = double(u.n) * 200.0;  // the model (64 B a body), drawing, float copies
  const double host_free = double(available_bytes(Location::host()));
  if (host_need > host_free)
    return fmt("skipped: needs about %.1f GB of host memory, %.1f GB available", host_need / 1e9, host_free / 1e9);
  IcRequest req;
  req.name = u.model;
  req.n = u.n;
  req.seed = kModelSeed;
  auto t0 = std::chrono::steady_clock::now();
  u.bodies = make_initial_conditions(req);
  Particles<double>& b = u.bodies;
  for (auto* v : {&b.x, &b.y, &b.z, &b.vx, &b.vy, &b.vz, &b.m})
    for (double& e : *v) e = double(float(e));
  const double t_model = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  u.targets = treebench::sample_targets(u.n, plan.samples(u.n), kSampleSeed);
  treebench::reference_accelerations(b.x.data(), b.y.data(), b.z.data(), b.m.data(), u.n, u.targets, 1.0,
                                     plan.softening * plan.softening, u.rx, u.ry, u.rz);
  std::printf("tree suite: %s N=%lld drawn in %.2f s; float64 reference at %zu targets in %.2f s\n", u.model.c_str(),
              static_cast<long long>(u.n), t_model, u.targets.size(), seconds_since(t0));
  std::fflush(stdout);
  return "";
}

std::string crossover_text(const treebench::Crossover& c) {
  if (c.kind == "interpolated") return fmt("crossover at N = %.4g (interpolated)", c.n);
  if (c.kind == "at or below") return fmt("the tree is faster already at the smallest N, %.4g", c.n);
  return fmt("the tree is slower at every N up to %.4g", c.n);
}

// ", its p99 X" for the direct sum timed at n ("" when none was).
std::string direct_accuracy(const std::vector<Record>& recs, std::int64_t n) {
  for (const Record& r : recs)
    if (r.rung.rfind("direct", 0) == 0 && r.n == n && r.timed()) return fmt(" (its own p99 %.2g)", r.tree.err_p99);
  return "";
}

void crossovers(const Plan& plan, const std::vector<Record>& recs, const std::function<void(Record)>& add) {
  std::vector<treebench::TimedPoint> direct;
  for (const Record& r : recs)
    if (r.rung.rfind("direct", 0) == 0 && r.timed()) direct.push_back({double(r.n), r.tree.force_s, false});
  const std::string tree_rung = plan.gpu ? "tree-gpu" : "tree-cpu";
  const std::string precision = plan.gpu ? "fp32" : "fp64";
  for (const std::string& model : plan.models) {
    // The fastest angle meeting the accuracy at each N.
    std::map<std::int64_t, const Record*> best;
    for (const Record& r : recs) {
      if (r.rung != tree_rung || r.precision != precision || r.tree.model != model || !r.timed()) continue;
      if (r.tree.err_p99 > kGoalP99) continue;
      const Record*& b = best[r.n];
      if (b == nullptr || r.tree.force_s < b->tree.force_s) b = &r;
    }
    std::vector<treebench::TimedPoint> tree;
    std::vector<const Record*> at;
    for (const auto& [n, r] : best) tree.push_back({double(n), r->tree.force_s, false}), at.push_back(r);
    const treebench::Crossover c = treebench::find_crossover(tree, direct);
    Record r = base_record(plan, "crossover", model, c.n > 0 ? std::llround(c.n) : 0, precision);
    r.tree.crossover_n = c.n;
    r.tree.crossover_kind = c.kind;
    r.tree.crossover_extrapolated = c.extrapolated;
    if (c.kind == "no data") {
      r.skipped = "no crossover: no timed direct sum, or no tree pass with p99 <= 1e-3";
    } else {
      const Record& hi = *at[c.above];
      r.tree.theta = hi.tree.theta;
      r.tree.err_p50 = hi.tree.err_p50, r.tree.err_p90 = hi.tree.err_p90;
      r.tree.err_p99 = hi.tree.err_p99, r.tree.err_max = hi.tree.err_max;
      r.tree.samples = hi.tree.samples;
      const treebench::TimedPoint d = treebench::direct_time(direct, double(hi.n));
      r.verification = "the tree's force pass (fastest angle with p99 <= 1e-3 at each N) against the direct sum's (" +
                       std::string(plan.gpu ? "CUDA, float32" : "CPU, float64") + "): " + crossover_text(c) + fmt("; at N = %.4g: tree %.4g ms (theta %.2g, ", double(hi.n),
                                              hi.tree.force_s * 1e3, hi.tree.theta) +
                       fmt("p99 %.2g), direct %.4g ms", hi.tree.err_p99, d.seconds * 1e3) +
                       (d.extrapolated ? " (extrapolated as N^2)" : direct_accuracy(recs, hi.n)) +
                       (c.extrapolated ? "; uses an extrapolated direct time" : "");
      r.verified = true;
    }
    add(r);
  }
}

}  // namespace

void tree_suite(const Options& o, const std::function<void(Record)>& add_record) {
  const Plan plan = make_plan(o);
  std::vector<Record> recs;
  auto add = [&](Record r) {
    recs.push_back(r);
    add_record(std::move(r));
  };
  std::string ns;
  for (const std::int64_t n : plan.ns) ns += (ns.empty() ? "" : ", ") + std::to_string(n);
  std::string models;
  for (const auto& m : plan.models) models += (models.empty() ? "" : ", ") + m;
  std::printf("tree suite: %s; N = %s; models %s; softening %g (Plummer); time budget %.0f s\n",
              plan.gpu ? "CudaTree on GPU 0 (float32; float64 at one N)" : ("the CPU tree (float64): " + plan.why_cpu).c_str(),
              ns.c_str(), models.c_str(), plan.softening, plan.budget_s);
  std::fflush(stdout);
  const auto start = std::chrono::steady_clock::now();
  // model -> its last unit: N, seconds, tree passes (angles x precisions)
  struct LastUnit {
    std::int64_t n = 0;
    double seconds = 0;
    int passes = 1;
  };
  std::map<std::string, LastUnit> last;
  auto passes_at = [&](std::int64_t n) {
    return int(plan.thetas(n).size()) * ((plan.gpu && n == plan.fp64_n) ? 2 : 1);
  };
  std::vector<treebench::TimedPoint> direct_measured;
  for (const std::int64_t n : plan.ns) {
    bool direct_done = false;
    for (const std::string& model : plan.models) {
      // The time budget: this unit's estimate from the model's previous one, per tree pass (a
      // unit at 2^20 runs seven angles in two precisions, one at 10^8 one or two angles) x the N
      // ratio x 1.2.
      const double spent = seconds_since(start);
      double estimate = 0;
      if (const auto it = last.find(model); it != last.end())
        estimate = it->second.seconds / double(std::max(it->second.passes, 1)) * double(passes_at(n)) * double(n) /
                   double(it->second.n) * 1.2;
      if (spent + estimate > plan.budget_s) {
        add(skipped_record(plan, model, n,
                           fmt("skipped: the time budget (%.0f s) would be passed: %.0f s spent, about %.0f s more "
                               "needed (--tree-budget)",
                               plan.budget_s, spent, estimate)));
        continue;
      }
#if NBODY_HAVE_CUDA
      if (plan.gpu) {
        if (const std::string why = device_room(plan, n); !why.empty()) {
          add(skipped_record(plan, model, n, why));
          continue;
        }
      }
#endif
      const auto t_unit = std::chrono::steady_clock::now();
      Unit u;
      u.model = model;
      u.n = n;
      try {
        if (const std::string why = make_unit(plan, u); !why.empty()) {
          add(skipped_record(plan, model, n, why));
          continue;
        }
      } catch (const Error& e) {
        Record r = skipped_record(plan, model, n, "");
        r.error = std::string("the model could not be made: ") + e.what();
        add(r);
        continue;
      }
      if (plan.gpu) {
#if NBODY_HAVE_CUDA
        try {
          DeviceBodies<float> d(u);
          // The GPU's clocks ramp up during the first angle's warm-up; the others' first pass (which
          // allocates the tree) is their warm-up.
          double warm = kGpuWarmupSeconds;
          for (const double theta : plan.thetas(n)) add(gpu_tree<float>(plan, u, d, theta, std::exchange(warm, 0.0)));
        } catch (const Error& e) {
          Record r = skipped_record(plan, model, n, "");
          r.error = std::string("the bodies could not be put on the device: ") + e.what();
          add(r);
        }
        if (n == plan.fp64_n) {
          try {
            DeviceBodies<double> d(u);
            double warm = kGpuWarmupSeconds;
            for (const double theta : plan.thetas(n))
              add(gpu_tree<double>(plan, u, d, theta, std::exchange(warm, 0.0)));
          } catch (const Error& e) {
            Record r = skipped_record(plan, model, n, "");
            r.precision = "fp64";
            r.error = std::string("the bodies could not be put on the device: ") + e.what();
            add(r);
          }
        }
#endif
      } else {
        for (const double theta : plan.thetas(n)) add(cpu_tree(plan, u, theta));
      }
      if (!direct_done) {
        direct_done = true;
        if (n <= plan.direct_max_n) {
          Record r = plan.gpu ? direct_sum<float>(plan, u, "cuda", Precision::fp32)
                              : direct_sum<double>(plan, u, "cpu", Precision::fp64);
          r.tree.model = model;  // whose bodies it was timed on (its time does not depend on them)
          if (r.timed()) direct_measured.push_back({double(n), r.median_s, false});
          add(r);
        } else {
          Record r = base_record(plan, plan.gpu ? "direct-gpu" : "direct-cpu", "", n, plan.gpu ? "fp32" : "fp64");
          const treebench::TimedPoint d = treebench::direct_time(direct_measured, double(n));
          r.tree.extrapolated_step_s = d.seconds;
          r.skipped = d.seconds > 0 ? fmt("not run above N = %.0f: %.4g s extrapolated as c N^2 from the largest N "
                                          "timed",
                                          double(plan.direct_max_n), d.seconds)
                                    : fmt("not run above N = %.0f (no smaller N timed to extrapolate from)",
                                          double(plan.direct_max_n));
          add(r);
        }
      }
      last[model] = {n, seconds_since(t_unit), passes_at(n)};
    }
  }
  crossovers(plan, recs, add);
  std::printf("tree suite: %.0f s\n", seconds_since(start));
}

}  // namespace nbody::bench
