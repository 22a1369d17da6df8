// nbody bench --suite pic: source document 004's GPU techniques for the PIC step, measured on its
// setup (examples/pic/hole_boring.toml: dx = lambda/200, dy = lambda/100, 64/32/32 particles per
// cell, TSC, CK), each verified before it is timed.
//
//   1. The setup is loaded and run `warm` steps with float64 atomics, so that the laser is in the
//      target and the particles are no longer in their loading order (--quick: a 1-lambda strip,
//      ny = 100, instead of the document's 8-lambda one).
//   2. The reference: the deterministic mode (float64, the same bits on every run) for V steps
//      from that state.
//   3. Each rung from the same state for V steps, brought back and compared with the reference:
//      every E and B component within 1e-8 of its largest value for the float64 rungs (the
//      GPU-vs-CPU bound of tests/pic/test_pic_gpu.cpp), 1e-3 for float32 accumulation; the change
//      of Gauss's law residual over the V steps, of the largest single-species charge density,
//      within 1e-12 for float64 (charge conserved to rounding), and reported for float32 (its
//      cost; bound 1e-3). A rung that fails is reported and not timed.
//   4. Each verified rung timed: 3 warm-up steps, then T steps, each on CUDA events (the particle
//      kernels alone, and the whole step: sorting, particle kernels, current fold, field solve);
//      medians, in nanoseconds per particle per step.
//      The rungs: cas (document 004's baseline: the fused kernel, float64 atomics by compare-and-
//      swap), separate (gather, push, deposit as three kernels), atomic (native float64 atomics),
//      redundant (the document's dynamic redundancy), float32 (its mixed precision), tiled
//      (tile-sorted shared-memory privatisation), deterministic (the sorted, fixed-order sum).
//      With --pic-precision float32 every rung stores its particles in float32
//      (solver.particle_precision; the start state rounded to the store first): precision p32
//      (mix32 with float32 sums), fields within 1e-3 of the reference, charge within 1e-12; with
//      --pic-precision float32-currents also the warp kernel's window currents in float32
//      arithmetic (p32c; charge within 1e-3).
//   5. Sorting (the tiled rung): every step, every 10 and 100 steps, and empty_ratio in {0, 0.01,
//      0.02, 0.05, 0.1, 0.2} (document 004's Fig. 10), each over S steps; the mean step (sorts
//      included) and the number of sorts.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench.hpp"
#include "measure.hpp"
#include "nbody/error.hpp"
#include "pic/driver/config.hpp"
#include "pic/cuda/pic_gpu.hpp"
#include "pic/cpu/simulation.hpp"
#include "pic_setup.hpp"

namespace nbody::bench {
namespace {

using pic::DepositKernel;
using pic::PicGpu;
using pic::PicGpuOptions;
using pic::PicSimulation;

double max_abs(const std::vector<double>& a) {
  double m = 0;
  for (double v : a) m = std::max(m, std::fabs(v));
  return m;
}

// max over E and B of max|a - b| / max|b|.
double field_error(const PicSimulation& a, const PicSimulation& ref) {
  double e = 0;
  for (int c = pic::kEx; c <= pic::kBz; ++c) {
    const auto& x = a.fields().data[c];
    const auto& y = ref.fields().data[c];
    const double scale = std::max(max_abs(y), 1e-300);
    double d = 0;
    for (std::size_t k = 0; k < x.size(); ++k) d = std::max(d, std::fabs(x[k] - y[k]));
    e = std::max(e, d / scale);
  }
  return e;
}

// A simulation of the same settings and species (no particles) to copy a device state into.
PicSimulation empty_like(const pic::PicConfig& c) { return pic::build_pic_simulation(c, false); }

// The rungs are the deposition table's rows (pic/cuda/deposit_kernels.hpp) in its order, the
// document's: its baseline (fused, CAS atomics) first, then what today's GPUs and the techniques
// give, separate kernels (the unfused form) and the deterministic mode beside them. The row of a
// rung's name (null for the sorting records'):
const pic::DepositKernelInfo* row_named(const std::string& name) {
  for (const pic::DepositKernelInfo& k : pic::deposit_kernels())
    if (k.name == name) return &k;
  return nullptr;
}

std::string fmt(const char* f, double a, double b = 0) {
  char buf[160];
  std::snprintf(buf, sizeof buf, f, a, b);
  return buf;
}

struct Setup {
  explicit Setup(pic::PicConfig c) : config(std::move(c)), start(empty_like(config)) {}
  pic::PicConfig config;
  PicSimulation start;                  // the state every rung starts from
  std::vector<double> gauss_initial;    // its residual field
  double rho_scale = 0;                 // largest single-species |rho|
  double particles = 0;                 // mobile particles
};

}  // namespace

void pic_suite(const Options& o, const std::function<void(Record)>& add) {
  // --pic-precision float32: every rung with the float32 particle store (the reference stays the
  // float64 store's deterministic run, from the same stored state).
  // --pic-precision float32-currents: also the warp window's currents in float32 arithmetic.
  const bool currents32 = o.pic_precision == "float32-currents";
  const bool store32 = o.pic_precision == "float32" || currents32;
  const pic::ParticlePrecision store = store32 ? pic::ParticlePrecision::float32 : pic::ParticlePrecision::float64;
  auto base_record = [&](const std::string& rung) {
    Record r;
    r.suite = "pic";
    r.rung = rung;
    const pic::DepositKernelInfo* row = row_named(rung);
    const bool sums32 = row && row->float32_sums();
    r.precision = store32 ? (sums32 ? "mix32" : currents32 && rung.rfind("warp", 0) == 0 ? "p32c" : "p32")
                          : (sums32 ? "mixed" : "fp64");
    return r;
  };
  std::string why;
  if (!pic::pic_gpu_available(&why)) {
    Record r = base_record("all");
    r.skipped = "the pic suite needs a CUDA device (" + why + ")";
    add(r);
    return;
  }
  const bool quick = o.quick;
  const int warm = quick ? 200 : 600;  // the laser (entering at x = -1) reaches the target at ~1.5 periods
  const int verify_steps = quick ? 10 : 20;
  const int timed_steps = quick ? 5 : 15;
  const int sort_steps = quick ? 20 : 100;
  std::vector<std::string> overrides = {"output.fields_every=0", "output.checkpoint_every=0", "output.diag_every=1000000"};
  if (quick) overrides.push_back("grid.ny=100");
  Setup su(pic::read_pic_config_text(kHoleBoringToml, "examples/pic/hole_boring.toml", overrides));
  std::printf("pic suite: source document 004's setup, %d x %d cells%s; %d warm-up steps with float64 atomics...\n",
              su.config.nx, su.config.ny, quick ? " (--quick: a 1-lambda strip)" : "", warm);
  std::fflush(stdout);
  {
    PicSimulation loaded = pic::build_pic_simulation(su.config);
    PicGpu gpu(loaded, PicGpuOptions{});
    gpu.run(warm);
    gpu.copy_to(su.start);
  }
  // (the float32 store: the state as the store holds it, so that the reference and the Gauss
  // residual's start are the stored plasma's; the upload then changes nothing)
  if (store32)
    for (pic::Species& s : su.start.species()) pic::round_to_float32_store(s, pic::store_cells_of(su.start.settings().geom));
  for (const pic::Species& s : su.start.species())
    if (!s.immobile) su.particles += double(s.size());
  for (int k = 0; k < int(su.start.species().size()); ++k) {
    su.start.compute_rho(k);
    su.rho_scale = std::max(su.rho_scale, su.start.rho_abs_max());
  }
  su.start.compute_rho();
  su.gauss_initial = su.start.gauss_residual_field();
  std::printf("pic suite: %.0f particles at step %lld\n", su.particles, static_cast<long long>(su.start.step_count()));

  auto gauss_change = [&](PicSimulation& s) {
    s.compute_rho();
    const std::vector<double> r = s.gauss_residual_field();
    double m = 0;
    for (std::size_t k = 0; k < r.size(); ++k) m = std::max(m, std::fabs(r[k] - su.gauss_initial[k]));
    return m / su.rho_scale;
  };

  // The reference: the deterministic mode.
  PicSimulation reference = empty_like(su.config);
  {
    PicGpuOptions d;
    d.deposit = DepositKernel::deterministic;
    PicGpu gpu(su.start, d);
    gpu.run(verify_steps);
    gpu.copy_to(reference);
  }

  // Verifies and times one configuration; returns the record (timed or not).
  auto measure = [&](const std::string& name, const PicGpuOptions& opt, int steps, bool use_mean) {
    Record r = base_record(name);
    r.n = static_cast<std::int64_t>(su.particles);
    r.steps = 1;
    try {
      // (the float32 store: the fields within 1e-3 as for float32 sums, docs/pic_optimization.md;
      // charge to float64 rounding, 1e-12, as the float64 store: the deposit ends at the stored
      // position; with float32 currents (warp) charge to their rounding: at most K^2 2K 2^-23 of
      // the charge scale a step, 6e-4 over the 20 steps, bound 1e-3)
      const bool f32 = pic::deposit_kernel_info(opt.deposit).float32_sums() ||
                       (opt.float32_currents && opt.deposit == DepositKernel::warp);
      const double field_bound = f32 || store32 ? 1e-3 : 1e-8, charge_bound = f32 ? 1e-3 : 1e-12;
      PicSimulation back = empty_like(su.config);
      {
        PicGpu gpu(su.start, opt);
        gpu.run(verify_steps);
        gpu.copy_to(back);
      }
      const double fe = field_error(back, reference);
      r.charge_error = gauss_change(back);
      r.verification = fmt("fields vs deterministic after the verification steps: %.3g (bound ", fe) +
                       fmt("%.0e); Gauss residual change %.3g", field_bound, r.charge_error) +
                       fmt(" of the charge scale (bound %.0e)", charge_bound);
      r.verified = fe <= field_bound && r.charge_error <= charge_bound && std::isfinite(fe);
      if (!r.verified) {
        r.error = "verification failed: " + r.verification;
        return r;
      }
      PicGpu gpu(su.start, opt);
      gpu.enable_timing(true);
      for (int k = 0; k < 3; ++k) gpu.step();
      std::vector<double> part, whole;
      for (int k = 0; k < steps; ++k) {
        gpu.step();
        part.push_back(gpu.last_step_times().particles);
        whole.push_back(gpu.last_step_times().step);
      }
      r.repeats = steps;
      r.median_s = median(whole);
      r.mean_s = 0;
      for (double w : whole) r.mean_s += w / double(whole.size());
      r.min_s = *std::min_element(whole.begin(), whole.end());
      const double per_step = use_mean ? r.mean_s : r.median_s;
      r.ns_step = per_step / su.particles * 1e9;
      r.ns_particles = median(part) / su.particles * 1e9;
      r.device_bytes = double(gpu.device_bytes());
      if (pic::deposit_kernel_info(opt.deposit).sorted()) {
        r.sorts = gpu.sorts();
        r.sort_every = opt.sort_every;
        r.empty_ratio = opt.empty_ratio;
      }
    } catch (const Error& e) {
      r.verified = false;
      r.error = e.what();
    }
    return r;
  };

  double baseline = 0, previous = 0;
  for (const pic::DepositKernelInfo& k : pic::deposit_kernels()) {
    const std::string name(k.name);
    if (!o.rungs.empty() && std::find(o.rungs.begin(), o.rungs.end(), name) == o.rungs.end()) continue;
    PicGpuOptions opt;
    opt.deposit = k.kind;
    opt.sort_every = 0;
    opt.empty_ratio = 0.05;
    opt.particle_precision = store;
    opt.float32_currents = currents32;
    Record r = measure(name, opt, timed_steps, false);
    if (r.timed()) {
      if (&k == &pic::deposit_kernels().front()) baseline = r.median_s;
      if (baseline > 0) r.speedup_vs_baseline = baseline / r.median_s;
      if (previous > 0) r.speedup_vs_previous = previous / r.median_s;
      previous = r.median_s;
    }
    add(r);
  }

  // Sorting policies with the rungs that sort (tiled: by tile, warp: by cell; records named
  // warp-..., the tiled rung's without its name, as they always were): mean step over
  // sort_steps, sorts included. --rungs sorting: all of them; <rung>-sorting: one.
  const auto asked = [&](const std::string& name) { return std::find(o.rungs.begin(), o.rungs.end(), name) != o.rungs.end(); };
  bool any_sorting = o.rungs.empty() || asked("sorting");
  for (const pic::DepositKernelInfo& k : pic::deposit_kernels())
    any_sorting = any_sorting || (k.sorted() && asked(std::string(k.name) + "-sorting"));
  if (any_sorting) {
    struct Policy {
      int every;
      double ratio;
    };
    const Policy policies[] = {{1, -1}, {10, -1}, {100, -1}, {0, 0.0}, {0, 0.01}, {0, 0.02}, {0, 0.05}, {0, 0.1}, {0, 0.2}};
    for (const pic::DepositKernelInfo& k : pic::deposit_kernels()) {
      if (!k.sorted()) continue;
      const bool all = o.rungs.empty() || asked("sorting");
      if (!all && !asked(std::string(k.name) + "-sorting")) continue;
      for (const Policy& p : policies) {
        PicGpuOptions opt;
        opt.deposit = k.kind;
        opt.sort_every = p.every;
        opt.empty_ratio = p.ratio;
        opt.particle_precision = store;
        opt.float32_currents = currents32;
        const std::string name = (k.kind == DepositKernel::tiled ? std::string() : std::string(k.name) + "-") +
                                 (p.every > 0 ? "sort-every-" + std::to_string(p.every) : "empty-ratio-" + fmt("%g", p.ratio));
        Record r = measure(name, opt, sort_steps, true);
        r.suite = "pic-sort";
        add(r);
      }
    }
  }
}

std::vector<std::string> pic_rung_names() {
  std::vector<std::string> names;
  for (const pic::DepositKernelInfo& k : pic::deposit_kernels()) names.emplace_back(k.name);
  names.emplace_back("sorting");
  for (const pic::DepositKernelInfo& k : pic::deposit_kernels())
    if (k.sorted()) names.push_back(std::string(k.name) + "-sorting");
  return names;
}

}  // namespace nbody::bench
