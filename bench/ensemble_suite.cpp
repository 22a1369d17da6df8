// nbody bench --suite ensemble: system-steps per second of many small systems (docs/ensembles.md,
// "Measuring"). For each system size (3 ... 1024 bodies, Plummer spheres, leapfrog, float64) and
// each count of systems (1e2 ... 1e7; above --ensemble-max-bodies bodies in all a record says it
// was skipped):
//   gpu-batched   every system in one launch (the production path), once for each shape of
//                 --ensemble-shape (auto, group, warp, block; the record's shape column names it)
//   gpu-one       the same systems one at a time on the GPU (a batch of one per launch), up to 32
//                 of them, as a program that integrates one system per call would
//   cpu           the OpenMP path over every core, on at most --ensemble-cpu-max-bodies bodies
// Each record: a warm-up call of 3 steps, a probe of 32, then one call of S steps (at least 32),
// S chosen from the probe so that it takes about 0.3 s (0.05 s with --quick), as one interval of
// a run: the time includes what a run pays per interval (the per-system states' copy back), not
// the bodies' (they stay on the device; a run copies them for its outputs only). Afterwards the
// batched GPU result of system 0, copied back, is compared bit for bit with the CPU path's
// (the promise of docs/ensembles.md, "Reproducibility").
// With --ensemble-scatterings N, first the scattering records (cpu-/gpu-scatter-h4, -h4sym,
// -ias15): N of the scattering example's systems to their ends with a collision stop, the count of
// each outcome and the worst |dE/E| over the systems that did not collide and over all
// (docs/ensembles.md, "10^4 scatterings").
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench.hpp"
#include "core/strings.hpp"
#include "ensemble/backend.hpp"
#include "ensemble/generators.hpp"

namespace nbody::bench {
namespace {

using namespace nbody::ensemble;
using Clock = std::chrono::steady_clock;

// `count` Plummer spheres of n bodies, drawn in parallel (each from its own stream).
EnsembleStore plummer_batch(int n, std::int64_t count) {
  EnsembleStore s;
  const auto bodies = std::size_t(count) * std::size_t(n);
  for (auto* v : {&s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz, &s.m}) v->resize(bodies);
  s.offset.resize(std::size_t(count) + 1);
  s.state.assign(std::size_t(count), SystemState{});
  PlummerSpec spec;
  spec.n = n;
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < count; ++k) {
    const SystemBodies b = plummer_system(spec, 1, k);
    const auto at = std::size_t(k) * std::size_t(n);
    for (int i = 0; i < n; ++i) {
      const auto q = at + std::size_t(i), j = std::size_t(i);
      s.m[q] = b.m[j];
      s.x[q] = b.pos[3 * j], s.y[q] = b.pos[3 * j + 1], s.z[q] = b.pos[3 * j + 2];
      s.vx[q] = b.vel[3 * j], s.vy[q] = b.vel[3 * j + 1], s.vz[q] = b.vel[3 * j + 2];
    }
  }
  for (std::int64_t k = 0; k <= count; ++k) s.offset[std::size_t(k)] = k * n;
  return s;
}

Params bench_params() {
  Params p;
  p.integrator = Integrator::leapfrog;
  p.dt = 1e-4;  // (a step small enough that no sphere changes much over the timed steps)
  p.eps2 = 1e-4;
  p.t_end = 1e30;
  return p;
}

// Seconds for `steps` more steps of every system of each store (one backend each).
double timed_steps(std::vector<std::unique_ptr<Backend>>& b, std::vector<EnsembleStore>& s, const Params& p,
                   std::int64_t steps) {
  const auto t0 = Clock::now();
  for (std::size_t q = 0; q < s.size(); ++q) b[q]->advance(s[q], p, s[q].state[0].t + double(steps) * p.dt);
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

constexpr std::int64_t kWarmSteps = 3, kProbeSteps = 32;
constexpr double kSymmetricEta = 2e-5;  // hermite4_symmetric's eta in the scattering records
// The scattering records' collision radius (units of the binary's a; docs/ensembles.md, "Accuracy").
constexpr double kCollisionRadius = 0.01;

// One record: warm-up, probe, then S steps sized from the probe.
Record measure(const std::string& rung, int n, std::int64_t count, std::vector<std::unique_ptr<Backend>>& b,
               std::vector<EnsembleStore>& s, bool quick) {
  Record r;
  r.suite = "ensemble";
  r.rung = rung;
  r.precision = "fp64";
  r.n = n;
  r.shape = std::to_string(count) + " systems";
  const Params p = bench_params();
  for (std::size_t q = 0; q < s.size(); ++q) b[q]->start(s[q], p);
  (void)timed_steps(b, s, p, kWarmSteps);
  const double per_step = timed_steps(b, s, p, kProbeSteps) / double(kProbeSteps);
  const double target = quick ? 0.05 : 0.3;
  const auto steps =
      std::clamp<std::int64_t>(std::int64_t(target / std::max(per_step, 1e-9)), kProbeSteps, 100000);
  const double seconds = timed_steps(b, s, p, steps);
  std::int64_t systems = 0;
  for (const auto& st : s) systems += st.systems();
  r.steps = int(steps);
  r.repeats = 1;
  r.median_s = r.mean_s = r.min_s = seconds / double(steps);
  r.rate = double(systems) * double(steps) / seconds / 1e9;  // billion system-steps per second
  r.ensemble_systems = count;
  r.ensemble_measured_systems = systems;
  return r;
}

// The scattering example's systems (examples/ensemble/scattering.toml: an equal-mass circular
// binary, a third star at v_inf = 0.5, b up to 4 a), each run to its escape, a collision
// (two stars closer than kCollisionRadius) or t = 400.
ScatteringSpec scattering_spec() {
  ScatteringSpec spec;
  spec.m1 = spec.m2 = spec.m3 = 0.5, spec.v_inf = 0.5, spec.b_max = 4, spec.r0 = 30;
  return spec;
}

Params scattering_params(Integrator integrator) {
  Params p;
  p.integrator = integrator;
  p.dt = 0.1;
  p.eta = integrator == Integrator::hermite4_symmetric ? kSymmetricEta : 2e-5;
  p.t_end = 400;
  p.escape_radius = 40;
  p.collision_radius = kCollisionRadius;
  return p;
}

constexpr int kScatterIntervals = 40;
constexpr double kEnergyBound = 1e-10;  // the goal: every system that did not collide

// Systems first .. first + count - 1 of the scattering ensemble (generator seed 1).
EnsembleStore scatterings(std::int64_t first, std::int64_t count) {
  EnsembleStore s;
  const ScatteringSpec spec = scattering_spec();
  for (std::int64_t k = first; k < first + count; ++k) {
    const SystemBodies sys = scattering_system(spec, 1, k);
    s.add_system(sys.m, sys.pos, sys.vel);
  }
  return s;
}
// Every system of `s` to its end on `b`, in the 40 intervals of the example's run.
void integrate_scatterings(Backend& b, EnsembleStore& s, const Params& p) {
  b.start(s, p);
  for (int q = 1; q <= kScatterIntervals; ++q)
    b.advance(s, p, q == kScatterIntervals ? p.t_end : p.t_end * q / kScatterIntervals);
}

// What a scattering record verifies: the outcomes, the worst |dE/E| over the systems that did not
// collide and over all (with the system that has it), the systems that stopped early.
struct ScatterSummary {
  std::int64_t outcomes[kOutcomes] = {};
  std::int64_t steps = 0;
  double worst_free = 0, worst_all = 0;
  std::int64_t at_free = -1, at_all = -1;
  std::int64_t early() const {
    return outcomes[int(Outcome::diverged)] + outcomes[int(Outcome::step_limit)] +
           outcomes[int(Outcome::energy_limit)] + outcomes[int(Outcome::running)];
  }
};

ScatterSummary summarize(EnsembleStore& s, const Params& p) {
  ScatterSummary m;
  for (std::int64_t k = 0; k < s.systems(); ++k) {
    const SystemState& st = s.state[std::size_t(k)];
    m.steps += st.steps;
    ++m.outcomes[st.status >= 0 && st.status < kOutcomes ? st.status : int(Outcome::diverged)];
    double e = 0, l = 0;
    final_invariants(s, k, p.eps2, e, l);
    const double de = std::fabs((e - st.e0) / st.e0);
    // (a NaN is worse than any number; the first NaN stays)
    const auto worse = [de](double than, std::int64_t at) { return at < 0 || (de != de ? than == than : de > than); };
    if (worse(m.worst_all, m.at_all)) m.worst_all = de, m.at_all = k;
    if (st.status != int(Outcome::collision) && worse(m.worst_free, m.at_free)) m.worst_free = de, m.at_free = k;
  }
  return m;
}

// The impact parameter of system k (units of a): the incoming star's angular momentum about the
// binary's centre of mass over its reduced mass and v_inf (the hyperbola's L = b v_inf).
double impact_parameter(std::int64_t k) {
  const ScatteringSpec spec = scattering_spec();
  const SystemBodies b = scattering_system(spec, 1, k);
  const double mb = b.m[0] + b.m[1];
  double r[3], v[3];
  for (int c = 0; c < 3; ++c) {
    r[c] = b.pos[6 + c] - (b.m[0] * b.pos[c] + b.m[1] * b.pos[3 + c]) / mb;
    v[c] = b.vel[6 + c] - (b.m[0] * b.vel[c] + b.m[1] * b.vel[3 + c]) / mb;
  }
  const double l[3] = {r[1] * v[2] - r[2] * v[1], r[2] * v[0] - r[0] * v[2], r[0] * v[1] - r[1] * v[0]};
  return std::sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]) / spec.v_inf / spec.a;
}

// A system of the record: its index (generator seed 1), impact parameter, outcome, stop, steps.
std::string system_text(const EnsembleStore& s, std::int64_t k) {
  if (k < 0) return "none";
  const SystemState& st = s.state[std::size_t(k)];
  return format_line("system %lld of seed 1, b %.3f a: %s at t %.4g, %lld steps", static_cast<long long>(k),
                     impact_parameter(k), outcome_name(st.status), st.stop_time, static_cast<long long>(st.steps));
}

// Whether system k of `gpu` (fetched) has the bits of the CPU path run on it alone.
bool has_cpu_bits(const EnsembleStore& gpu, std::int64_t k, const Params& p) {
  EnsembleStore cpu1 = scatterings(k, 1);
  auto cpu = make_cpu_backend(1);
  integrate_scatterings(*cpu, cpu1, p);
  const EnsembleStore g = gpu.single(k);
  const SystemState &a = cpu1.state[0], &c = g.state[0];
  bool same = a.steps == c.steps && a.status == c.status && std::memcmp(&a.t, &c.t, 8) == 0 &&
              std::memcmp(&a.dt, &c.dt, 8) == 0 && std::memcmp(&a.stop_time, &c.stop_time, 8) == 0;
  const auto bytes = sizeof(double) * std::size_t(cpu1.x.size());
  for (const auto& [u, v] : {std::pair{&cpu1.x, &g.x}, std::pair{&cpu1.y, &g.y}, std::pair{&cpu1.z, &g.z},
                             std::pair{&cpu1.vx, &g.vx}, std::pair{&cpu1.vy, &g.vy}, std::pair{&cpu1.vz, &g.vz}})
    same = same && u->size() == v->size() && std::memcmp(u->data(), v->data(), bytes) == 0;
  return same;
}

// One scattering record: every system integrated to its end (40 intervals), timed; the rate in
// system-steps per second; energy_error the worst |dE/E| over the systems that did not collide
// (with IAS15: over every system, those that collided included). Verified: that is <= 1e-10, no
// system stopped early (diverged, step limit) and, on the GPU, the worst systems (over all and
// over those that did not collide) have the CPU path's bits.
Record scattering_record(const std::string& rung, Integrator integrator, std::int64_t count, Backend& b, bool gpu) {
  Record r;
  r.suite = "ensemble";
  r.rung = rung;
  r.precision = "fp64";
  r.n = 3;
  r.shape = std::to_string(count) + " scatterings";
  EnsembleStore s = scatterings(0, count);
  const Params p = scattering_params(integrator);
  const auto t0 = Clock::now();
  integrate_scatterings(b, s, p);
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  b.fetch(s);
  const ScatterSummary m = summarize(s, p);
  std::string outcomes;
  for (int o = 1; o < kOutcomes; ++o)
    if (m.outcomes[o] > 0) outcomes += format_line("%s%lld %s", outcomes.empty() ? "" : ", ", static_cast<long long>(m.outcomes[o]), outcome_name(o));
  if (m.outcomes[0] > 0) outcomes += format_line(", %lld running", static_cast<long long>(m.outcomes[0]));
  bool bits = true;
  std::string bits_text;
  if (gpu) {
    for (const std::int64_t k : {m.at_all, m.at_free})
      if (k >= 0) bits = bits && has_cpu_bits(s, k, p);
    bits_text = bits ? "; the worst systems have the CPU path's bits" : "; a worst system DIFFERS from the CPU path";
  }
  r.steps = int(std::min<std::int64_t>(m.steps, 2147483647));
  r.repeats = 1;
  r.median_s = r.mean_s = r.min_s = seconds;
  r.rate = double(m.steps) / seconds / 1e9;
  // IAS15 is held to the bound over every system, the collisions included.
  const bool over_all = integrator == Integrator::ias15;
  r.energy_error = over_all ? m.worst_all : m.worst_free;
  r.ensemble_systems = r.ensemble_measured_systems = count;
  r.verified = r.energy_error <= kEnergyBound && m.early() == 0 && bits;
  const std::string accuracy = over_all ? format_line("epsilon %.3g", p.epsilon) : format_line("eta %.3g", p.eta);
  r.verification = format_line(
      "%s, %s, collision radius %.3g: %s; max |dE/E| %.3g over the %lld that did not collide (%s; %s), "
      "%.3g over all (%s)%s, %.4g systems/s, %.4g steps a system",
      integrator_name(integrator), accuracy.c_str(), p.collision_radius, outcomes.c_str(), m.worst_free,
      static_cast<long long>(count - m.outcomes[int(Outcome::collision)]),
      over_all ? "the bound 1e-10 holds over all" : "bound 1e-10", system_text(s, m.at_free).c_str(), m.worst_all,
      system_text(s, m.at_all).c_str(), bits_text.c_str(), double(count) / seconds, double(m.steps) / double(count));
  return r;
}

}  // namespace

bool system0_has_cpu_bits(const EnsembleStore& gpu, int n) {
  // The GPU's system 0 after its calls (3, 32, then the rest of its steps), against a CPU run of
  // the same sphere through the same calls: each target from the state's own time, as
  // timed_steps computes it.
  const std::int64_t gpu_steps = gpu.state[0].steps;
  const std::int64_t rest = gpu_steps - kWarmSteps - kProbeSteps;
  if (rest < 1) return false;
  EnsembleStore cpu0 = plummer_batch(n, 1);
  auto cpu = make_cpu_backend(1);
  const Params p = bench_params();
  cpu->start(cpu0, p);
  for (const std::int64_t steps : {kWarmSteps, kProbeSteps, rest})
    cpu->advance(cpu0, p, cpu0.state[0].t + double(steps) * p.dt);
  const EnsembleStore again = gpu.single(0);
  const auto bytes = sizeof(double) * std::size_t(n);
  bool same = cpu0.state[0].steps == gpu_steps && std::memcmp(&cpu0.state[0].t, &again.state[0].t, 8) == 0;
  for (const auto& [a, c] : {std::pair{&cpu0.x, &again.x}, std::pair{&cpu0.y, &again.y}, std::pair{&cpu0.z, &again.z},
                             std::pair{&cpu0.vx, &again.vx}, std::pair{&cpu0.vy, &again.vy},
                             std::pair{&cpu0.vz, &again.vz}})
    same = same && std::memcmp(a->data(), c->data(), bytes) == 0;
  return same;
}

void ensemble_suite(const Options& o, const std::function<void(Record)>& add) {
  std::vector<int> sizes = o.quick ? std::vector<int>{3, 16, 64} : std::vector<int>{3, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
  std::vector<std::int64_t> counts = o.quick ? std::vector<std::int64_t>{100, 1000}
                                             : std::vector<std::int64_t>{100, 1000, 10000, 100000, 1000000, 10000000};
  if (!o.ensemble_sizes.empty()) sizes.assign(o.ensemble_sizes.begin(), o.ensemble_sizes.end());
  if (!o.ensemble_counts.empty()) counts = o.ensemble_counts;
  const bool gpu = gpu_backend_available();
  // The scattering records (--ensemble-scatterings): the adaptive Hermite, the symmetric one, IAS15.
  if (o.ensemble_scatterings > 0) {
    for (const Integrator integ : {Integrator::hermite4_adaptive, Integrator::hermite4_symmetric, Integrator::ias15}) {
      auto cpu = make_cpu_backend(0);
      const std::string tag = integ == Integrator::hermite4_symmetric ? "scatter-h4sym"
                              : integ == Integrator::ias15            ? "scatter-ias15"
                                                                      : "scatter-h4";
      add(scattering_record("cpu-" + tag, integ, std::min<std::int64_t>(o.ensemble_scatterings, 256), *cpu, false));
      if (gpu_backend_available()) {
        auto g = make_gpu_backend();
        add(scattering_record("gpu-" + tag, integ, o.ensemble_scatterings, *g, true));
      }
    }
  }
  const std::vector<std::string> shapes = o.ensemble_shapes.empty() ? std::vector<std::string>{"auto"} : o.ensemble_shapes;
  for (const int n : sizes) {
    for (const std::int64_t count : counts) {
      const double bodies = double(n) * double(count);
      Record skipped;
      skipped.suite = "ensemble", skipped.precision = "fp64", skipped.n = n;
      skipped.shape = std::to_string(count) + " systems";
      skipped.ensemble_systems = count;
      EnsembleStore batch;
      if (bodies <= double(o.ensemble_max_bodies)) batch = plummer_batch(n, count);
      // The CPU's systems: the first of the batch, up to its cap.
      const std::int64_t cpu_count =
          std::min<std::int64_t>(count, std::max<std::int64_t>(1, o.ensemble_cpu_max_bodies / n));
      double cpu_rate = 0, one_rate = 0;
      {
        std::vector<std::unique_ptr<Backend>> b;
        b.push_back(make_cpu_backend(0));
        std::vector<EnsembleStore> s{plummer_batch(n, cpu_count)};
        Record r = measure("cpu", n, count, b, s, o.quick);
        r.verification = std::to_string(cpu_count) + " of the systems";
        cpu_rate = r.rate;
        add(r);
      }
      if (!gpu) {
        for (const char* rung : {"gpu-batched", "gpu-one"}) {
          Record r = skipped;
          r.rung = rung;
          r.skipped = "no usable CUDA device";
          add(r);
        }
        continue;
      }
      {
        const std::int64_t m = std::min<std::int64_t>(count, 32);
        std::vector<std::unique_ptr<Backend>> b;
        std::vector<EnsembleStore> s;
        const EnsembleStore some = plummer_batch(n, m);
        for (std::int64_t k = 0; k < m; ++k) b.push_back(make_gpu_backend()), s.push_back(some.single(k));
        Record r = measure("gpu-one", n, count, b, s, o.quick);
        r.verification = std::to_string(m) + " systems, one a launch";
        one_rate = r.rate;
        add(r);
      }
      if (bodies > double(o.ensemble_max_bodies)) {
        Record r = skipped;
        r.rung = "gpu-batched";
        r.skipped = "more than --ensemble-max-bodies bodies in all";
        add(r);
        continue;
      }
      for (const std::string& shape_text : shapes) {
        GpuShape shape;
        (void)gpu_shape_named(shape_text, shape);
        if (o.ensemble_block_bodies > 0 && shape_text != "block") shape.block_bodies = o.ensemble_block_bodies;
        std::vector<std::unique_ptr<Backend>> b;
        b.push_back(make_gpu_backend(shape));
        std::vector<EnsembleStore> s{shapes.size() > 1 ? plummer_batch(n, count) : std::move(batch)};
        Record r = measure("gpu-batched", n, count, b, s, o.quick);
        r.shape += ", " + shape_text;
        if (o.ensemble_block_bodies > 0 && shape_text != "block")
          r.shape += " (block from " + std::to_string(shape.block_bodies) + ")";
        if (cpu_rate > 0) r.speedup_vs_cpu = r.rate / cpu_rate;
        if (one_rate > 0) r.speedup_vs_one = r.rate / one_rate;
        b[0]->fetch(s[0]);  // (the bodies are on the device until fetched; not timed)
        r.verified = system0_has_cpu_bits(s[0], n);
        r.verification = r.verified ? "system 0 has the CPU path's bits" : "system 0 differs from the CPU path";
        add(r);
      }
    }
  }
}

}  // namespace nbody::bench
