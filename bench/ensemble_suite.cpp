// nbody bench --suite ensemble: system-steps per second of many small systems (docs/ensembles.md,
// "Measuring"). For each system size (3 ... 1024 bodies, Plummer spheres, leapfrog, float64) and
// each count of systems (1e2 ... 1e7; above --ensemble-max-bodies bodies in all a record says it
// was skipped):
//   gpu-batched   every system in one launch, one warp a system (the production path)
//   gpu-one       the same systems one at a time on the GPU (a batch of one per launch), up to 32
//                 of them, as a program that integrates one system per call would
//   cpu           the OpenMP path over every core, on at most --ensemble-cpu-max-bodies bodies
// Each record: a warm-up call, then a call of S steps, S chosen from the warm-up so that it takes
// about 0.3 s (0.05 s with --quick); the time includes the states' copy back (what a run pays per
// interval). The batched GPU result of system 0 is compared bit for bit with the CPU path's.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench.hpp"
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

// One record: warm-up (3 steps), then S steps sized from it.
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
  const double warm = timed_steps(b, s, p, 3) / 3;
  const double target = quick ? 0.05 : 0.3;
  const auto steps = std::clamp<std::int64_t>(std::int64_t(target / std::max(warm, 1e-9)), 1, 100000);
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

}  // namespace

void ensemble_suite(const Options& o, const std::function<void(Record)>& add) {
  std::vector<int> sizes = o.quick ? std::vector<int>{3, 16, 64} : std::vector<int>{3, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
  std::vector<std::int64_t> counts = o.quick ? std::vector<std::int64_t>{100, 1000}
                                             : std::vector<std::int64_t>{100, 1000, 10000, 100000, 1000000, 10000000};
  if (!o.ensemble_sizes.empty()) sizes.assign(o.ensemble_sizes.begin(), o.ensemble_sizes.end());
  if (!o.ensemble_counts.empty()) counts = o.ensemble_counts;
  const bool gpu = gpu_backend_available();
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
      std::vector<std::unique_ptr<Backend>> b;
      b.push_back(make_gpu_backend());
      std::vector<EnsembleStore> s{std::move(batch)};
      Record r = measure("gpu-batched", n, count, b, s, o.quick);
      if (cpu_rate > 0) r.speedup_vs_cpu = r.rate / cpu_rate;
      if (one_rate > 0) r.speedup_vs_one = r.rate / one_rate;
      // System 0 against the CPU's after as many steps (its own run on the CPU).
      EnsembleStore again = s[0].single(0);
      const std::int64_t gpu_steps = again.state[0].steps;
      EnsembleStore cpu0 = plummer_batch(n, 1);
      auto cpu = make_cpu_backend(1);
      const Params p = bench_params();
      // The same calls as measure() made: to the state's time plus 3 steps, then plus the rest
      // (each target from the time the state has, as timed_steps computes it).
      cpu->start(cpu0, p);
      cpu->advance(cpu0, p, cpu0.state[0].t + 3.0 * p.dt);
      cpu->advance(cpu0, p, cpu0.state[0].t + double(gpu_steps - 3) * p.dt);
      r.verified = cpu0.state[0].steps == gpu_steps &&
                   std::memcmp(cpu0.x.data(), again.x.data(), sizeof(double) * std::size_t(n)) == 0 &&
                   std::memcmp(cpu0.vx.data(), again.vx.data(), sizeof(double) * std::size_t(n)) == 0;
      r.verification = r.verified ? "system 0 has the CPU path's bits" : "system 0 differs from the CPU path";
      add(r);
    }
  }
}

}  // namespace nbody::bench
