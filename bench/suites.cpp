// The benchmark suites: the optimization ladder, the block-size sweeps, scaling over N, the
// production kernel's shape sweep, precision, and a single pass for the profiler.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>

#include "bench.hpp"
#include "environment.hpp"
#include "ladder/gpu_rungs.hpp"
#include "ladder/rung.hpp"
#include "measure.hpp"
#include "nbody/error.hpp"
#include "nbody/simulation.hpp"
#include "report.hpp"
#include "tune.hpp"
#include "verify.hpp"

namespace nbody::bench {
namespace {

// A step estimated to take longer than this is not measured (recorded as skipped).
constexpr double kMaxStepSeconds = 12.0;

class Context {
 public:
  Context(const Options& o, const Environment& e) : options(o), env_(e) {}

  const Verifier& verifier(std::int64_t n, Precision p) {
    auto key = std::make_pair(n, int(p));
    auto it = verifiers_.find(key);
    if (it == verifiers_.end()) it = verifiers_.emplace(key, std::make_unique<Verifier>(n, p)).first;
    return *it->second;
  }

  Record& add(Record r) {
    std::printf("%s\n", table_row(r).c_str());
    std::fflush(stdout);
    records.push_back(std::move(r));
    save_partial();
    return records.back();
  }

  const Options& options;
  std::vector<Record> records;

 private:
  // The results so far, written (atomically) after every record and marked incomplete, so that a
  // run stopped by a time limit or a fault keeps what it measured; run()'s caller writes the
  // complete report at the end.
  void save_partial() const {
    if (options.json_path.empty() && options.csv_path.empty()) return;
    Report partial;
    partial.env = env_;
    partial.options = options;
    partial.records = records;
    partial.complete = false;
    if (!options.json_path.empty()) write_json(partial, options.json_path);
    if (!options.csv_path.empty()) write_csv(partial, options.csv_path);
  }

  const Environment& env_;
  std::map<std::pair<std::int64_t, int>, std::unique_ptr<Verifier>> verifiers_;
};

bool is_skip(const Error& e) { return std::string(e.what()).rfind("skipped", 0) == 0; }

// Makes, verifies and times one rung; records whatever happened. `estimate` (seconds per step,
// 0 if unknown) lets a long step be skipped before it is run.
Record run_rung(Context& ctx, const std::string& suite, const std::string& name, Precision p, std::int64_t n,
                const GpuRungOptions& options = {}, double estimate = 0) {
  const auto& only = ctx.options.rungs;
  if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) return {};
  Record r;
  r.suite = suite;
  r.rung = name;
  r.precision = std::string(to_string(p));
  r.n = n;
  if (estimate > kMaxStepSeconds) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "skipped: a step would take about %.3g s (over the %.0f s budget)", estimate,
                  kMaxStepSeconds);
    r.skipped = buf;
    return ctx.add(r);
  }
  std::unique_ptr<Rung> rung;
  try {
    rung = make_rung(name, p, static_cast<std::size_t>(n), options);
    r.shape = rung->shape();
  } catch (const Error& e) {
    (is_skip(e) ? r.skipped : r.error) = e.what();
    return ctx.add(r);
  }
  try {
    const Verifier& v = ctx.verifier(n, p);
    const double est = v.verify(*rung, r);
    if (r.verified) {
      Budget budget = budget_for(rung->on_gpu(), ctx.options.quick);
      if (est > 0.25) budget = {3, 3, 0.0, 0.0};  // long steps: the verification run was the warm-up
      measure(*rung, v.initial(), steps_per_repeat(est), budget, r);
    }
  } catch (const Error& e) {
    r.verified = false;
    r.error = e.what();
  }
  return ctx.add(r);
}

void ladder(Context& ctx) {
  for (const Precision p : ctx.options.precisions) {
    const Record* serial = nullptr;
    const Record* previous = nullptr;
    const std::size_t first = ctx.records.size();
    for (const auto& name : ladder_rung_names()) run_rung(ctx, "ladder", name, p, ctx.options.n);
    for (std::size_t k = first; k < ctx.records.size(); ++k) {
      Record& r = ctx.records[k];
      if (!r.timed()) continue;
      if (serial != nullptr) r.speedup_vs_serial = serial->median_s / r.median_s;
      if (previous != nullptr) r.speedup_vs_previous = previous->median_s / r.median_s;
      if (r.rung == "cpu-serial") serial = &r;
      previous = &r;
    }
    std::printf("\nladder, %s, N = %lld: speedups over cpu-serial and over the rung before\n", std::string(to_string(p)).c_str(),
                static_cast<long long>(ctx.options.n));
    for (std::size_t k = first; k < ctx.records.size(); ++k) std::printf("%s\n", table_row(ctx.records[k]).c_str());
    std::printf("\n");
  }
}

void blocksize(Context& ctx) {
  const std::int64_t n = ctx.options.n;
  for (const int block : {1, 2, 3, 4, 8, 16, 30, 31, 32, 64, 128, 256, 512, 1023, 1024, 1025}) {
    run_rung(ctx, "blocksize", "gpu-naive", Precision::fp32, n, {block, 0, {}});
  }
  for (const int block : split_block_sizes()) {
    for (const int stride : {4, 8, 16, 32, 64, 128}) {
      run_rung(ctx, "blocksize", "gpu-split", Precision::fp32, n, {block, stride, {}});
    }
  }
}

std::vector<std::int64_t> powers_of_two(std::int64_t from, std::int64_t to) {
  std::vector<std::int64_t> out;
  for (std::int64_t n = from; n <= to; n *= 2) out.push_back(n);
  return out;
}

void scaling(Context& ctx) {
  const std::int64_t top = ctx.options.quick ? std::min<std::int64_t>(ctx.options.max_n, 4096) : ctx.options.max_n;
  const std::vector<std::string> rungs = {"cpu-serial", "cpu", "gpu-naive", "gpu-shared", "gpu-split", "gpu-best"};
  for (const Precision p : {Precision::fp32, Precision::fp64, Precision::mixed}) {
    std::map<std::string, std::size_t> last;  // each rung's record at the previous (smaller) N
    for (const std::int64_t n : powers_of_two(1024, top)) {
      for (const auto& name : rungs) {
        const bool cpu = name.rfind("cpu", 0) == 0;
        if (cpu && (p != Precision::fp32 || n > kTrajectoryCheckMaxN)) continue;  // the documents' table
        if (p == Precision::mixed && name != "gpu-best") continue;
        if (name != "gpu-best" && n > 1048576) continue;
        if (name == "gpu-best" && p != Precision::fp32 && n > 1048576) continue;
        double estimate = 0;
        if (const auto it = last.find(name); it != last.end()) {
          const Record& prev = ctx.records[it->second];
          const double ratio = double(n) / double(prev.n);
          // Pairs grow as N^2; a rung skipped for time at a smaller N stays skipped.
          estimate = prev.timed() ? prev.median_s * ratio * ratio : (prev.skipped.empty() ? 0 : 1e9);
        }
        const std::size_t before = ctx.records.size();
        run_rung(ctx, "scaling", name, p, n, {}, estimate);
        if (ctx.records.size() > before) last[name] = ctx.records.size() - 1;
      }
    }
  }
}

// The documents' whole program with each candidate shape of the production kernel (tune.hpp),
// and how the policy's choice compares with the best measured.
void tune_program(Context& ctx) {
  const std::vector<ProgramCandidate> candidates = program_candidates(ctx.options);
  if (candidates.empty()) {
    Record r;
    r.suite = "tune-program";
    r.rung = "gpu-best";
    r.skipped = "skipped: no CUDA device";
    ctx.add(r);
    return;
  }
  std::map<std::int64_t, std::vector<std::size_t>> by_n;
  for (const ProgramCandidate& c : candidates) {
    GpuRungOptions o;
    o.kernel_shape = c.shape;
    const std::size_t before = ctx.records.size();
    run_rung(ctx, "tune-program", "gpu-best", Precision::fp32, c.n, o);
    if (ctx.records.size() == before) continue;
    ctx.records.back().policy_choice = c.policy_choice;
    by_n[c.n].push_back(ctx.records.size() - 1);
  }
  for (const auto& [n, index] : by_n) {
    std::vector<const Record*> sweep;
    for (const std::size_t k : index) sweep.push_back(&ctx.records[k]);
    const std::string summary = policy_summary(sweep);
    if (!summary.empty()) std::printf("           tune-program fp32 N=%lld: %s\n", static_cast<long long>(n), summary.c_str());
  }
}

void precision_suite(Context& ctx) {
  // Energy conservation of a leapfrog run of a Plummer sphere in each precision, on the GPU, with
  // the speed of the same kernel from a documents'-program run at the same N.
  const std::int64_t n = ctx.options.quick ? 2048 : 32768;
  const int steps = ctx.options.quick ? 16 : 512;
  for (const Precision p : {Precision::fp32, Precision::mixed, Precision::fp64}) {
    Record r = run_rung(ctx, "precision", "gpu-best", p, n);
    if (!r.timed()) continue;
    RunConfig cfg;
    cfg.ic = "plummer";
    cfg.n = n;
    cfg.seed = 7;
    cfg.device = "cuda";
    cfg.precision = std::string(to_string(p));
    cfg.integrator = "leapfrog";
    cfg.softening = 1.0 / 256;
    cfg.dt = 1.0 / 512;
    try {
      auto sim = Simulation::create(cfg);
      const double e0 = sim->diagnostics().total;
      sim->advance(steps);
      const double err = relative_energy_error(sim->diagnostics(), e0);
      Record& rec = ctx.records.back();
      rec.energy_error = err;
      char buf[200];
      std::snprintf(buf, sizeof buf, "; energy: Plummer N=%lld, leapfrog dt=1/512, %d steps: |dE/E0| = %.3g",
                    static_cast<long long>(n), steps, err);
      rec.verification += buf;
      std::printf("           %s\n", buf + 2);
    } catch (const Error& e) {
      ctx.records.back().error = e.what();
    }
  }
}

void profile(Context& ctx) {
  // One step of each GPU rung, for a profiler wrapped around this process (no repeats).
  const auto& only = ctx.options.rungs;
  for (const auto& name : ladder_rung_names()) {
    if (name.rfind("gpu", 0) != 0) continue;
    if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) continue;
    Record r;
    r.suite = "profile";
    r.rung = name;
    r.precision = "fp32";
    r.n = ctx.options.n;
    try {
      auto rung = make_rung(name, Precision::fp32, static_cast<std::size_t>(r.n));
      r.shape = rung->shape();
      rung->reset(ctx.verifier(r.n, Precision::fp32).initial());
      (void)rung->run_timed(1);
      r.skipped = "profiled: one step, not timed";
    } catch (const Error& e) {
      (is_skip(e) ? r.skipped : r.error) = e.what();
    }
    ctx.add(r);
  }
}

}  // namespace

const std::vector<std::string>& suite_names() {
  static const std::vector<std::string> names = {"ladder", "blocksize", "scaling", "tune", "tune-program", "precision",
                                                 "profile", "multi-gpu", "pic", "pic-scaling", "tree", "tree-scaling",
                                                 "render", "hermite", "ensemble"};
  return names;
}

Report run(const Options& options) {
  Report rep;
  rep.options = options;
  rep.env = describe_environment();
  std::printf("%s\n\n%s\n", describe(rep.env).c_str(), table_header().c_str());
  std::fflush(stdout);
  Context ctx(options, rep.env);
  for (const auto& suite : options.suites) {
    if (suite == "ladder") {
      ladder(ctx);
    } else if (suite == "blocksize") {
      blocksize(ctx);
    } else if (suite == "scaling") {
      scaling(ctx);
    } else if (suite == "tune") {
      tune(options, [&](Record r) { ctx.add(std::move(r)); });
      tune_program(ctx);
    } else if (suite == "tune-program") {
      tune_program(ctx);
    } else if (suite == "precision") {
      precision_suite(ctx);
    } else if (suite == "profile") {
      profile(ctx);
    } else if (suite == "multi-gpu") {
      multi_gpu(options, [&](Record r) { ctx.add(std::move(r)); });
    } else if (suite == "pic-scaling") {
      pic_scaling(options, [&](Record r) { ctx.add(std::move(r)); });
    } else if (suite == "pic") {
      pic_suite(options, [&](Record r) { ctx.add(std::move(r)); });
    } else if (suite == "tree") {
      tree_suite(options, [&](Record r) { ctx.add(std::move(r)); });
    } else if (suite == "tree-scaling") {
      tree_scaling(options, [&](Record r) { ctx.add(std::move(r)); });
    } else if (suite == "render") {
      render_suite(options, [&](Record r) { ctx.add(std::move(r)); });
    } else if (suite == "hermite") {
      hermite_suite(options, [&](Record r) { ctx.add(std::move(r)); });
    } else if (suite == "ensemble") {
      ensemble_suite(options, [&](Record r) { ctx.add(std::move(r)); });
    } else {
      throw_input_error("suite: unknown suite '" + suite + "'");  // cmd_bench checks the names
    }
  }
  // The clock right after the work, while the GPU is still at its loaded clock.
  rep.env.sm_clock_measured_mhz = measure_sm_clock_mhz();
  rep.records = std::move(ctx.records);
  if (rep.env.sm_clock_measured_mhz > 0) {
    for (Record& r : rep.records) {
      if (!r.timed() || (r.rung != "gpu-best" && r.suite != "tune")) continue;
      const Precision p = parse_precision(r.precision);
      r.fraction_of_ceiling = r.rate / issue_ceiling(p, rep.env.sm_count, rep.env.sm_clock_measured_mhz);
    }
    std::printf("\nSM clock measured under load: %.0f MHz; issue-slot ceiling fp32 %.0f, fp64 %.0f billion/s\n",
                rep.env.sm_clock_measured_mhz,
                issue_ceiling(Precision::fp32, rep.env.sm_count, rep.env.sm_clock_measured_mhz),
                issue_ceiling(Precision::fp64, rep.env.sm_count, rep.env.sm_clock_measured_mhz));
  }
  return rep;
}

}  // namespace nbody::bench
