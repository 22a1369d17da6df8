// nbody bench --suite hermite: the 4th-order Hermite integrator with individual block steps
// against shared adaptive steps and leapfrog, on Plummer spheres (Henon units, G = 1), float64,
// on the GPU where there is one (else the CPU; --quick: tiny N, for CI).
//
// For each N = 2^12, 2^13, ... up to --max-n (at most 2^20; --quick: 2^9 on the CPU, 2^12 on a
// GPU), the all-pairs rate: one acceleration-and-jerk pass of all N bodies (median of 5,
// timed on the device's clock). Then for eps in {4/N, 1e-3}:
//   block, shared  (eta in {0.01, 0.02}, Aarseth's criterion, dt_max = 1/16): one interval of
//                  1/16 time unit as the start-up (the first steps, untimed), then one interval
//                  timed; the wall time per time unit, |dE/E| from t = 0 to the end, the block
//                  steps of the timed interval and their active sets (mean, histogram by powers
//                  of two), and the effective rate sum(active x N) / wall;
//   block-mixed    the same as block with --precision mixed (the acceleration-and-jerk pass's
//                  pair terms in float32 from hi + lo float32 coordinates, summed in float32 a
//                  tile and in float64 over the tiles);
//   block-host     (GPU only) the same as block with the host driving every block step instead
//                  of the device loop (IntegratorOptions::device_loop = false): the same bits,
//                  the loop's gain measured in the same call;
//   leapfrog       (dt = 1/1024): the same two intervals, 64 untimed steps then 64 timed ones;
//                  the wall time per time unit and |dE/E| from t = 0 to 1/8, as the block steps'.
//   pass, pass-mixed  (GPU only) the device loop's acceleration-and-jerk pass (the count read on
//                  the device) for 64, 256, 1024, ... < N and N active bodies spread over the N,
//                  float64 and mixed (median of 5): the rate a block step of that size can reach.
// Shared steps at N > 2^15 and leapfrog at N > 2^17 are skipped (minutes a record).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench.hpp"
#include "gravity/names.hpp"
#include "nbody/precision.hpp"
#include "ic/ic.hpp"
#include "integrate/integrator.hpp"
#include "integrate/system.hpp"
#include "nbody/error.hpp"

namespace nbody::bench {
namespace {

constexpr double kInterval = 1.0 / 16;     // the start-up interval and the timed one (dt_max)
constexpr double kLeapfrogDt = 1.0 / 1024;
constexpr int kLeapfrogSteps = 64;  // an interval of kInterval
static_assert(kLeapfrogSteps * kLeapfrogDt == kInterval, "leapfrog covers the block steps' interval");
constexpr std::int64_t kMaxN = std::int64_t(1) << 20;
constexpr std::int64_t kMaxSharedN = std::int64_t(1) << 15;
constexpr std::int64_t kMaxLeapfrogN = std::int64_t(1) << 17;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::unique_ptr<System<double>> make(const std::string& device, std::size_t n, double eps,
                                     Precision precision = Precision::fp64) {
  SolverRequest r;
  r.choice = {device, "direct"};
  r.precision = precision;
  r.n = n;
  r.gravity = {1.0, eps, SofteningLaw::plummer};
  return std::make_unique<System<double>>(r);
}

double energy(System<double>& s) { return s.moments().kinetic + s.potential_energy(); }

Record base(const std::string& rung, std::int64_t n, const std::string& device) {
  Record r;
  r.suite = "hermite";
  r.rung = rung;
  r.precision = "fp64";
  r.n = n;
  r.shape = device;
  return r;
}

// `pass` once untimed, then five times on the device's clock: the record's median and least.
void time_pass(System<double>& s, const std::function<void()>& pass, Record& r) {
  pass();
  std::vector<double> t;
  for (int k = 0; k < 5; ++k) t.push_back(s.ops().measure_seconds(pass));
  std::sort(t.begin(), t.end());
  r.steps = 1;
  r.repeats = 5;
  r.median_s = r.mean_s = t[2];
  r.min_s = t[0];
}

// One acceleration-and-jerk pass of every body (median of 5 after one untimed), as a rate.
Record all_pairs(const Particles<double>& p, const std::string& device) {
  Record r = base("all-pairs", std::int64_t(p.size()), device);
  auto s = make(device, p.size(), 4.0 / double(p.size()));
  s->upload(p);
  const Location at = s->store().location();
  const std::size_t n = p.size();
  Array<std::int32_t> index(at, n);
  std::vector<std::int32_t> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i] = static_cast<std::int32_t>(i);
  copy_bytes(index.data(), at, all.data(), Location::host(), n * sizeof(std::int32_t), s->store().stream());
  std::vector<Array<double>> out;
  for (int k = 0; k < 6; ++k) out.emplace_back(at, n);
  auto pass = [&] {
    s->solver().acc_jerk({index.data(), static_cast<int>(n)}, s->view().motion(),
                         {out[0].data(), out[1].data(), out[2].data()}, {out[3].data(), out[4].data(), out[5].data()});
  };
  time_pass(*s, pass, r);
  r.rate = double(n) * double(n) / r.median_s / 1e9;
  r.hermite.all_pairs_rate = r.rate;
  r.hermite.softening = 4.0 / double(n);
  r.verification = "rate only";
  return r;
}

// The pass the device loop runs (acc_jerk_counted: the count read on the device, the fixed
// grid) for `count` active bodies spread evenly over the N (median of 5 after one untimed), as
// a rate of count x N: what a block step of that many active bodies can reach.
Record counted_pass(const Particles<double>& p, const std::string& device, std::int64_t count, Precision precision,
                    double all_pairs_rate) {
  const std::size_t n = p.size();
  Record r = base(precision == Precision::mixed ? "pass-mixed" : "pass", std::int64_t(n), device);
  r.precision = to_string(precision);
  auto s = make(device, n, 4.0 / double(n), precision);
  s->upload(p);
  if (!s->solver().capabilities().counted_jerk) throw_runtime_error("no counted acceleration-and-jerk pass here");
  s->solver().reserve_counted_jerk(std::int64_t(n));
  const Location at = s->store().location();
  std::vector<std::int32_t> targets(static_cast<std::size_t>(count));
  for (std::int64_t k = 0; k < count; ++k) targets[std::size_t(k)] = static_cast<std::int32_t>(k * std::int64_t(n) / count);
  Array<std::int32_t> index(at, n), counter(at, 1);
  copy_bytes(index.data(), at, targets.data(), Location::host(), targets.size() * sizeof(std::int32_t),
             s->store().stream());
  const auto c = static_cast<std::int32_t>(count);
  copy_bytes(counter.data(), at, &c, Location::host(), sizeof c, s->store().stream());
  std::vector<Array<double>> out;
  for (int k = 0; k < 6; ++k) out.emplace_back(at, n);
  auto pass = [&] {
    s->solver().acc_jerk_counted(index.data(), counter.data(), static_cast<int>(n), s->view().motion(),
                                 {out[0].data(), out[1].data(), out[2].data()},
                                 {out[3].data(), out[4].data(), out[5].data()});
  };
  time_pass(*s, pass, r);
  r.rate = double(count) * double(n) / r.median_s / 1e9;
  r.hermite.softening = 4.0 / double(n);
  r.hermite.mean_active = double(count);
  r.hermite.effective_rate = r.rate;
  r.hermite.all_pairs_rate = all_pairs_rate;
  r.verification = "rate only";
  return r;
}

Record integrate(const Particles<double>& p, const std::string& device, const std::string& rung, double eps,
                 double eta, double all_pairs_rate) {
  const std::int64_t n = std::int64_t(p.size());
  Record r = base(rung, n, device);
  HermiteBenchFields& h = r.hermite;
  h.softening = eps;
  h.all_pairs_rate = all_pairs_rate;
  const bool leapfrog = rung == "leapfrog";
  h.eta = leapfrog ? kLeapfrogDt : eta;
  IntegratorOptions o;
  const bool mixed = rung == "block-mixed";
  const bool host_loop = rung == "block-host";
  if (mixed) r.precision = "mixed";
  o.device_loop = !host_loop;
  o.mode = rung == "block" || mixed || host_loop ? StepMode::block : rung == "shared" ? StepMode::automatic : StepMode::fixed;
  o.eta = eta;
  o.softening = eps;
  auto s = make(device, p.size(), eps, mixed ? Precision::mixed : Precision::fp64);
  auto integ = make_integrator<double>(leapfrog ? "leapfrog" : "hermite4", o);
  s->upload(p);
  integ->prepare(*s);
  const double e0 = energy(*s);
  const double dt = leapfrog ? kLeapfrogDt : kInterval;
  const int steps = leapfrog ? kLeapfrogSteps : 1;
  for (int k = 0; k < steps; ++k) integ->step(*s, dt);  // the start-up interval
  s->ops().synchronize();
  const BlockStepStats before = integ->block_stats();
  const std::uint64_t pairs_before = s->interactions();
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < steps; ++k) integ->step(*s, dt);
  s->ops().synchronize();
  const double wall = seconds_since(t0);
  const BlockStepStats after = integ->block_stats();
  h.interval = dt * steps;
  h.wall_per_time_unit_s = wall / h.interval;
  h.energy_error = std::fabs((energy(*s) - e0) / e0);
  h.block_steps = leapfrog ? std::uint64_t(steps) : after.block_steps - before.block_steps;
  const double active = leapfrog ? double(steps) * double(n) : double(after.active - before.active);
  h.mean_active = h.block_steps > 0 ? active / double(h.block_steps) : 0;
  if (!leapfrog) {
    std::size_t top = 0;
    for (std::size_t b = 0; b < after.histogram.size(); ++b) {
      if (after.histogram[b] != before.histogram[b]) top = b + 1;
    }
    for (std::size_t b = 0; b < top; ++b) h.active_histogram.push_back(after.histogram[b] - before.histogram[b]);
  }
  h.effective_rate = double(s->interactions() - pairs_before) / wall / 1e9;
  r.steps = static_cast<int>(h.block_steps);
  r.repeats = 1;
  r.median_s = r.mean_s = r.min_s = h.block_steps > 0 ? wall / double(h.block_steps) : wall;
  r.rate = h.effective_rate;
  r.energy_error = h.energy_error;
  char text[96];
  std::snprintf(text, sizeof text, "|dE/E| %.3e (sanity bound 1e-3)", h.energy_error);
  r.verification = text;
  r.verified = std::isfinite(h.energy_error) && h.energy_error < 1e-3;
  return r;
}

}  // namespace

void hermite_suite(const Options& options, const std::function<void(Record)>& add) {
  const std::string device = cuda_device_available() ? "cuda" : "cpu";
  std::vector<std::int64_t> sizes;
  if (options.quick) {
    sizes.push_back(device == "cuda" ? 4096 : 512);
  } else {
    for (std::int64_t n = 4096; n <= std::min(options.max_n, kMaxN); n *= 2) sizes.push_back(n);
  }
  for (const std::int64_t n : sizes) {
    const Particles<double> p = make_plummer({"plummer", n, 1});
    double rate = -1;
    try {
      Record r = all_pairs(p, device);
      rate = r.rate;
      add(std::move(r));
    } catch (const Error& e) {
      Record r = base("all-pairs", n, device);
      r.error = e.what();
      add(std::move(r));
    }
    if (device == "cuda") {
      // the device loop's pass at a few active counts (powers of four from 64, and N)
      std::vector<std::int64_t> counts;
      for (std::int64_t c = 64; c < n; c *= 4) counts.push_back(c);
      counts.push_back(n);
      for (const Precision precision : {Precision::fp64, Precision::mixed}) {
        for (const std::int64_t c : counts) {
          try {
            add(counted_pass(p, device, c, precision, rate));
          } catch (const Error& e) {
            Record r = base(precision == Precision::mixed ? "pass-mixed" : "pass", n, device);
            r.hermite.mean_active = double(c);
            r.error = e.what();
            add(std::move(r));
          }
        }
      }
    }
    for (const double eps : {4.0 / double(n), 1e-3}) {
      for (const std::string rung : {"block", "block-host", "block-mixed", "shared", "leapfrog"}) {
        if (rung == "block-host" && device != "cuda") continue;  // the CPU's loop is the host's
        for (const double eta : {0.01, 0.02}) {
          if (rung == "leapfrog" && eta != 0.01) continue;  // no eta: one record per eps
          const bool too_long = (rung == "shared" && n > kMaxSharedN) || (rung == "leapfrog" && n > kMaxLeapfrogN);
          if (too_long) {
            Record r = base(rung, n, device);
            r.hermite.softening = eps;
            r.hermite.eta = eta;
            r.skipped = rung == "shared" ? "skipped: shared steps above N = 2^15 (every body active at every step)"
                                         : "skipped: leapfrog above N = 2^17 (128 all-pairs steps)";
            add(std::move(r));
            continue;
          }
          try {
            add(integrate(p, device, rung, eps, eta, rate));
          } catch (const Error& e) {
            Record r = base(rung, n, device);
            r.hermite.softening = eps;
            r.hermite.eta = eta;
            r.error = e.what();
            add(std::move(r));
          }
        }
      }
    }
  }
}

}  // namespace nbody::bench
