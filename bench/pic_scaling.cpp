// nbody bench --suite pic-scaling: the PIC step over several ranks (slabs along x, docs/pic.md),
// run as `mpirun -np P nbody bench --suite pic-scaling` (P = 1 too). Every rank calls it; the
// ranks 1, 2, 4, ..., P take part in turn (a communicator of the first k ranks), the others wait.
//   strong: source document 004's hole-boring setup (examples/pic/hole_boring.toml: dx = lambda/200,
//           dy = lambda/100, 64/32/32 particles per cell, TSC, CK), its 1400 cell columns, ny rows
//           (--pic-ny; default 800 on GPUs as the document, 100 on the CPU), on k ranks.
//   weak:   nx = k * nx0 columns (nx0 = 700: two ranks make the document's width), the plasma a
//           uniform slab of the document's density over the window less 8 columns a side, so that
//           every rank's work is nearly the same (the efficiency is taken per particle).
// --quick: 8 rows, nx = 64 (strong) and 48 per rank (weak), both uniform slabs; fewer steps.
// Each record starts as `nbody pic run` does: rank 0 of its ranks builds the whole plasma, every
// other rank only its block's cells and one around them (pic::block_load_window).
// Device: GPU slabs or blocks (DomainPicGpu, one per rank on GPU rank % devices; --pic-deposit atomic,
// float64 atomics, or warp, the warp-reduced deposit over particles sorted by cell) when a CUDA
// device is usable, else the CPU slabs (DomainPic, deterministic).
// Each configuration runs W warm-up steps, then T timed steps: each step's host-clock time, the
// slowest rank's, and the median over the T steps per particle; the time split (particles,
// fields, communication, migration/sort) summed over the T steps, the slowest rank's, per step;
// beside it the fastest rank's particle phase and the most mobile particles on a rank over the
// mean (how even the work is).
// strong-balanced (P > 1): the strong records on 2, 4, ..., P ranks with the load balance
// (pic/balance.hpp: before the first step and every 5 steps, at 5 % over the mean; its moves in
// the steps' times): the document's target fills 4.5 of the window's 7 wavelengths.
// moving-target (P > 1): a dense slab of plasma a quarter of the window wide drifting at 0.89 c
// through the strong window, on all P ranks, with the even split and with the load balance
// (pic/balance.hpp: every 5 steps, at 5 % over the mean, also before the first step; its moves
// are in the steps' times); the balanced run is checked against the even one.
// blocks (P > 1): the strong window on all P ranks cut into P x 1 slabs and into every
// ranks_x x ranks_y block shape (ranks_y a divisor of P, each block at least 8 x 8 cells), the
// blocks' runs checked against the slabs' (CPU: to the bit; GPU: the energy within the atomics'
// bound) and timed against them (speedup_vs_slabs).
// sorting (GPU): document 004's Fig. 10 on 1, 2 and P ranks: the warp kernel sorting every step,
// every 10 steps and by empty_ratio 0, 0.01, 0.02, 0.05, 0.1, 0.2, each from the same state (the
// strong window after 600 steps, --quick 20, gathered onto every rank), 3 + 50 steps (--quick
// 3 + 10): the mean step, sorts included, and the sorts.
// transfer (GPU, P > 1): document 004's Fig. 9 as the GPU blocks move messages: 1 KiB .. 64 MiB
// (--quick: .. 1 MiB) between ranks 0 and 1, host-staged (parallel.exchange = "host") and GPU to
// GPU (CUDA IPC, "ipc"), and where the MPI library reports CUDA support the device buffers to
// MPI ("mpi"; otherwise a skipped record says why), 20 round trips each
// (pic_transfer_round_trips, pic_transfer.hpp): the one-way median (half a round trip), GB/s, and the
// host-staged median over the GPU-to-GPU ones; the bytes are checked on the host. Two ranks on one GPU measure a copy within its memory, not NVLink.
// Then checked (the times are kept only if it passes): the Gauss's-law residual change over the
// W + T steps within 1e-12 of the largest charge density (charge conserved to rounding), and the
// total energy within 1e-12 (CPU: the slabs give the same bits on any number of ranks) or 1e-9
// (GPU: float64 atomics add in no fixed order) of the 1-rank run of the same grid (for weak
// scaling an untimed 1-rank run of the wider grid). A failed check makes the run exit with 1.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bench.hpp"
#include "measure.hpp"
#include "comm/communicator.hpp"
#include "nbody/error.hpp"
#include "pic/driver/config.hpp"
#include "pic/driver/engine.hpp"
#include "pic/parallel/domain.hpp"
#include "pic/cuda/pic_gpu.hpp"
#include "pic/cuda/gpu_slabs.hpp"
#include "pic/driver/run.hpp"
#include "pic/cpu/simulation.hpp"
#include "pic_setup.hpp"
#include "pic_transfer.hpp"

namespace nbody::bench {
namespace {

struct Split {
  double particles = 0, fields = 0, comm = 0, migration = 0, step = 0;
};

// What one configuration gave (on rank 0 of its part; the times are the slowest rank's).
struct Outcome {
  std::vector<double> steps;  // each timed step's seconds
  Split split;                // summed over the timed steps
  double energy = 0;          // total energy after the W + T steps
  double gauss_change = 0;    // of the charge scale
  double particles = 0;       // mobile, global
  int rebalances = 0;         // the load balance's moves (rank 0's count: the same on every rank)
  long long sorts = 0;        // the warp kernel's sorts by cell over the W + T steps (the most of a rank)
  double particles_fastest = 0;  // the particle phase over the timed steps, the fastest rank's
  double most_share = 0;         // the most mobile particles on a rank after the steps, over the mean
};

// The configuration of a record: the document's setup, nx columns (uniform: the window from
// x = 1 lambda, the plasma a slab of the document's density over it, 8 columns short of each edge).
pic::PicConfig make_config(int nx, int ny, bool uniform) {
  std::vector<std::string> ov = {"output.fields_every=0", "output.checkpoint_every=0", "output.diag_every=1000000",
                                 "grid.ny=" + std::to_string(ny), "grid.nx=" + std::to_string(nx)};
  if (uniform) ov.push_back("grid.x0=1.0");  // (in the document's flat plasma, which the check of the file wants)
  pic::PicConfig c = pic::read_pic_config_text(kHoleBoringToml, "examples/pic/hole_boring.toml", ov);
  if (uniform) {
    const double margin = 8 * c.dx;
    for (pic::SpeciesConfig& s : c.species) {
      const double n0 = s.profile.n0;
      s.profile = pic::DensityProfile{};
      s.profile.kind = pic::ProfileKind::uniform;
      s.profile.n0 = n0;
      s.profile.x_start = c.x0 + margin;
      s.profile.x_end = c.x0 + nx * c.dx - margin;
    }
  }
  return c;
}

// The moving-target records: the uniform window of make_config with the plasma a dense slab a
// quarter of the width wide from 1/8 of it, drifting at u_x = 2 (0.89 c) toward +x.
pic::PicConfig make_moving_config(int nx, int ny) {
  pic::PicConfig c = make_config(nx, ny, true);
  for (pic::SpeciesConfig& s : c.species) {
    s.profile.x_start = c.x0 + nx / 8 * c.dx;
    s.profile.x_end = s.profile.x_start + nx / 4 * c.dx;
    s.drift[0] = 2.0;
  }
  return c;
}

// A state every record of the sorting group starts from (the whole of it on every rank), with
// the charge scale and Gauss residual its checks are measured against (rank 0's).
struct Start {
  const pic::PicSimulation* sim = nullptr;
  double rho_scale = 0;
  std::vector<double> gauss0;
};

// The charge scale (the largest |rho| of a species) and the Gauss residual of `s`.
Start start_of(pic::PicSimulation& s) {
  Start st;
  st.sim = &s;
  for (int k = 0; k < int(s.species().size()); ++k) {
    s.compute_rho(k);
    st.rho_scale = std::max(st.rho_scale, s.rho_abs_max());
  }
  s.compute_rho();
  st.gauss0 = s.gauss_residual_field();
  return st;
}

// Runs `c` on the ranks of `part` (this rank is one of them): warm + timed steps; with `balance`,
// the load balance before the first step and every balance->every steps (in the steps' times).
// With `from`, the run starts from that state (every rank holds all of it) instead of the
// setup's plasma. On GPUs with the options `gpu_options` (the deposit, the sorting policy, the
// guard exchange).
Outcome run_on(comm::Communicator& part, const pic::PicConfig& c, bool gpu, const pic::PicGpuOptions& gpu_options,
               int warm, int timed, const pic::BalanceSettings* balance = nullptr, int ranks_y = 1,
               const Start* from = nullptr) {
  using clock = std::chrono::steady_clock;
  const auto host0 = clock::now();
  // Rank 0 of the part builds the whole plasma (the checks below gather onto it), every other
  // rank its block's cells and one around them, as `nbody pic run` starts (pic::rank_load_window).
  pic::PicSimulation built = from ? pic::build_pic_simulation(c, false) : [&] {
    const pic::CellWindow window = pic::block_load_window(c, part.size(), part.rank(), ranks_y);
    return pic::build_pic_simulation(c, true, part.rank() == 0 ? nullptr : &window);
  }();
  const pic::PicSimulation& initial = from ? *from->sim : built;
  Outcome out;
  for (const pic::Species& s : initial.species())
    if (!s.immobile) out.particles += double(s.size());
  Start own;
  if (!from && part.rank() == 0) own = start_of(built);
  const Start& st = from ? *from : own;
  const auto host1 = clock::now();
  // The engine the run loop uses (pic/driver/engine.hpp), on this part of the ranks.
  std::optional<pic::PicGpuOptions> gpu_opts;
  if (gpu) gpu_opts = gpu_options;
  const std::unique_ptr<pic::PicEngine> engine = pic::make_pic_slab_engine(initial, part, ranks_y, gpu_opts);
  auto split_now = [&] {
    const pic::PicGpu::StepTimes t = engine->times();
    return Split{t.particles, t.fields, t.comm, t.sort, t.step};
  };
  int done = 0;
  auto rebalance = [&] {
    if (balance) (void)engine->balance(*balance);
  };
  const auto host2 = clock::now();
  rebalance();
  auto step = [&] {
    engine->step();
    if (balance && ++done % balance->every == 0) rebalance();
  };
  for (int k = 0; k < warm; ++k) step();
  const Split before = split_now();
  out.steps.resize(timed);
  // Each rank's timed steps, one by one: the step's wall time, then its particles, fields, comm
  // and migration phases (at this rank's slot of every rank's table, summed over the ranks below:
  // the log's per-step lines).
  const int P = part.size(), me = part.rank();
  std::vector<double> each(std::size_t(P) * std::size_t(timed) * 5, 0.0);
  for (int k = 0; k < timed; ++k) {
    const Split s0 = split_now();
    const auto t0 = clock::now();
    step();
    out.steps[k] = std::chrono::duration<double>(clock::now() - t0).count();
    const Split s1 = split_now();
    double* e = &each[(std::size_t(me) * std::size_t(timed) + std::size_t(k)) * 5];
    e[0] = out.steps[k], e[1] = s1.particles - s0.particles, e[2] = s1.fields - s0.fields;
    e[3] = s1.comm - s0.comm, e[4] = s1.migration - s0.migration;
  }
  if (P > 1) each = part.allreduce_sum(std::span<const double>(each));
  const Split after = split_now();
  double split[5] = {after.particles - before.particles, after.fields - before.fields, after.comm - before.comm,
                     after.migration - before.migration, after.step - before.step};
  // (the spread over the ranks: how even the work was, beside the slowest rank's split)
  double spread[2] = {-split[0], double(engine->local_particles(true))};
  const double mine = spread[1];
  const double total_mobile = part.allreduce_sum(mine);
  part.allreduce_max(spread, 2);
  out.particles_fastest = -spread[0];
  out.most_share = total_mobile > 0 ? spread[1] * part.size() / total_mobile : 0.0;
  part.allreduce_max(split, 5);
  part.allreduce_max(out.steps.data(), timed);
  out.split = {split[0], split[1], split[2], split[3], split[4]};
  out.rebalances = engine->rebalances();
  double sorts = double(engine->sorts());
  part.allreduce_max(&sorts, 1);
  out.sorts = static_cast<long long>(sorts);
  const auto host3 = clock::now();
  // (into the state built here, which is not needed any more; a run from `from` leaves it whole)
  engine->to_host(built);
  if (part.rank() == 0) {
    built.compute_rho();
    const std::vector<double> r = built.gauss_residual_field();
    double m = 0;
    for (std::size_t k = 0; k < r.size() && k < st.gauss0.size(); ++k) m = std::max(m, std::fabs(r[k] - st.gauss0[k]));
    out.gauss_change = m / std::max(st.rho_scale, 1e-300);
    out.energy = built.energies().total;
    // (where a record's wall time goes, beside its steps: to the log)
    auto secs = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
    std::fprintf(stderr, "pic-scaling: %d rank%s: built %.3g s, set up %.3g s, %d steps %.3g s, gathered and checked %.3g s\n",
                 part.size(), part.size() > 1 ? "s" : "", secs(host0, host1), secs(host1, host2), warm + timed,
                 secs(host2, host3), secs(host3, clock::now()));
    std::string list;
    for (double t : out.steps) {
      char buf[32];
      std::snprintf(buf, sizeof buf, " %.3f", t * 1e3);
      list += buf;
    }
    std::fprintf(stderr, "pic-scaling: the timed steps (ms, the slowest rank's):%s; sorts %lld\n", list.c_str(), out.sorts);
    // Per step and rank: wall = particles + fields + comm + migration (+ the rest: the load
    // balance's checks and moves, the host's calls around the phases), in ms.
    for (int k = 0; k < timed; ++k) {
      std::string line;
      for (int r = 0; r < P; ++r) {
        const double* e = &each[(std::size_t(r) * std::size_t(timed) + std::size_t(k)) * 5];
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s r%d %.3f = %.3f + %.3f + %.3f + %.3f (+%.3f)", r > 0 ? " |" : "", r,
                      e[0] * 1e3, e[1] * 1e3, e[2] * 1e3, e[3] * 1e3, e[4] * 1e3,
                      (e[0] - e[1] - e[2] - e[3] - e[4]) * 1e3);
        line += buf;
      }
      std::fprintf(stderr, "pic-scaling:   step %d:%s\n", k + 1, line.c_str());
    }
  }
  return out;
}

// A verified record's times from its outcome: the median, mean and least step, per particle, and
// the split per step.
void set_times(Record& r, const Outcome& m, int timed) {
  const double per = 1.0 / timed;
  r.repeats = timed;
  r.median_s = median(m.steps);
  r.min_s = *std::min_element(m.steps.begin(), m.steps.end());
  for (double s : m.steps) r.mean_s += s * per;
  r.ns_step = r.median_s / m.particles * 1e9;
  r.ns_particles = m.split.particles * per / m.particles * 1e9;
  r.force_s = m.split.particles * per;
  r.pic_fields_s = m.split.fields * per;
  r.comm_s = m.split.comm * per;
  r.pic_migration_s = m.split.migration * per;
  r.particles_fastest_s = m.particles_fastest * per;
  r.most_particles_share = m.most_share;
}

std::string fmt(const char* f, double a) {
  char buf[120];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

}  // namespace

void check_pic_scaling_record(Record& r, const PicScalingCheck& c) {
  const double de = std::fabs(c.energy - c.reference_energy) / std::max(std::fabs(c.reference_energy), 1e-300);
  const bool exact = c.energy_bound == 0;  // (the CPU's deterministic runs)
  const bool same = c.reference || (exact ? c.energy == c.reference_energy : de <= c.energy_bound);
  r.charge_error = c.gauss_change;
  r.energy_error = c.reference ? 0.0 : de;
  r.verification = fmt("Gauss residual change %.3g of the charge scale", c.gauss_change) +
                   fmt(" (bound %.0e)", c.gauss_bound) + fmt("; total energy %.17g", c.energy) +
                   (c.reference ? " (" + c.reference_is + ")"
                    : exact     ? (same ? ", " + c.against + " to the bit" : ", not " + c.against)
                                : fmt(", %.3g from ", de) + c.against + fmt(" (bound %.0e)", c.energy_bound));
  r.verified = std::isfinite(c.energy) && c.energy > 0 && c.gauss_change <= c.gauss_bound && same;
  if (!r.verified) r.error = "pic WRONG: " + r.verification;
}

std::vector<std::string> pic_scaling_groups() {
  return {"strong", "strong-balanced", "weak", "moving-target", "blocks", "sorting", "sorting-multi", "transfer"};
}

void pic_scaling(const Options& o, const std::function<void(Record)>& add) {
  // --rungs strong,weak,moving-target: only those groups (none named: all)
  auto wanted = [&](const std::string& group) {
    return o.rungs.empty() || std::find(o.rungs.begin(), o.rungs.end(), group) != o.rungs.end();
  };
  comm::Communicator& world = comm::world();
  const int P = world.size();
  const bool root = world.rank() == 0;
  std::string why;
  const bool gpu = pic::pic_gpu_available(&why);
  const std::string device = gpu ? "cuda" : "cpu";
  // (the GPU slabs' options: the deposit, warp sorted by cell under the default empty_ratio
  // policy; the guard messages staged through the host or GPU to GPU)
  pic::PicGpuOptions gpu_opt;
  gpu_opt.deposit = pic::deposit_kernel(o.pic_deposit);
  gpu_opt.slab.guards = o.pic_exchange == "ipc" ? pic::GuardExchange::ipc : pic::GuardExchange::host;
  if (gpu && gpu_opt.slab.guards == pic::GuardExchange::ipc && world.local_size() != P)
    throw_input_error("--pic-exchange ipc: needs every process on one node (" + std::to_string(world.local_size()) +
                      " of " + std::to_string(P) + " here)");
  const bool quick = o.quick;
  const int ny = o.pic_ny > 0 ? o.pic_ny : quick ? 8 : gpu ? 800 : 100;
  const int strong_nx = quick ? 64 : 1400;
  const int weak_nx0 = quick ? 48 : 700;
  const int warm = quick ? 2 : 3, timed = o.pic_steps > 0 ? o.pic_steps : quick ? 3 : 10;
  const double energy_bound = gpu ? 1e-9 : 1e-12, gauss_bound = 1e-12;
  std::vector<int> ks;
  for (int k = 1; k < P; k *= 2) ks.push_back(k);
  ks.push_back(P);
  std::printf("pic-scaling: %s slabs%s, %d rank%s; strong %d x %d cells%s, weak %d x %d cells per rank; %d warm-up + %d timed steps\n",
              device.c_str(), gpu ? (" (" + o.pic_deposit + " deposition, guards " + o.pic_exchange + ")").c_str() : " (deterministic deposition)", P, P > 1 ? "s" : "", strong_nx, ny, quick ? " (uniform slab)" : "", weak_nx0, ny, warm, timed);
  std::fflush(stdout);

  // A grid the configuration's checks refuse (--pic-ny) is bad input: every rank stops here (exit 2).
  (void)make_config(strong_nx, ny, quick);
  (void)make_config(weak_nx0, ny, true);

  // A record of this suite: its rung, ranks and grid.
  auto new_record = [&](const std::string& rung, int ranks, int nx) {
    Record r;
    r.suite = "pic-scaling";
    r.rung = rung;
    r.precision = "fp64";
    r.shape = device;
    r.pic_deposit = gpu ? o.pic_deposit : "";
    r.pic_exchange = gpu && ranks > 1 ? o.pic_exchange : "";
    r.ranks = ranks;
    r.steps = 1;
    r.pic_cells = std::int64_t(nx) * ny;
    return r;
  };

  std::map<int, Outcome> one_rank;  // by 2 nx + uniform: the 1-rank run (rank 0's), the reference
  auto reference = [&](int key, const pic::PicConfig& c) -> const Outcome& {
    if (!one_rank.count(key)) {
      auto part = world.split(world.rank() == 0);
      Outcome m;
      if (part) m = run_on(*part, c, gpu, gpu_opt, warm, timed);
      world.barrier();
      one_rank[key] = m;
    }
    return one_rank[key];
  };

  // (strong-balanced: the strong records with the load balance, before the first step and every
  // 5 steps at 5 % over the mean: the document's target fills only part of the window's width)
  pic::BalanceSettings strong_balance;
  strong_balance.every = 5, strong_balance.threshold = 0.05, strong_balance.cell_cost = 1.0;
  for (const std::string kind : {"strong", "strong-balanced", "weak"}) {
    if (!wanted(kind)) continue;
    const bool balanced = kind == "strong-balanced";
    for (int k : ks) {
      if (balanced && k == 1) continue;
      const int nx = kind == "weak" ? weak_nx0 * k : strong_nx;
      const bool uniform = kind == "weak" || quick;
      const int key = 2 * nx + (uniform ? 1 : 0);
      Record r = new_record(kind + "-" + std::to_string(k), k, nx);
      r.energy_error = -1;
      if (nx < k * pic::kMinSlabColumns) {
        r.skipped = "skipped: " + std::to_string(nx) + " columns cannot make " + std::to_string(k) + " slabs";
        if (root) add(r);
        continue;
      }
      pic::PicConfig c;
      Outcome m;
      try {
        c = make_config(nx, ny, uniform);
      } catch (const Error& e) {
        r.error = std::string("pic WRONG: ") + e.what();
        if (root) add(r);
        continue;
      }
      // An error inside a run ends every rank (the program's handler aborts): a rank left behind
      // in a collective would wait forever.
      if (k == 1) {
        m = reference(key, c);
      } else {
        auto part = world.split(world.rank() < k);
        if (part) m = run_on(*part, c, gpu, gpu_opt, warm, timed, balanced ? &strong_balance : nullptr);
        world.barrier();
      }
      const Outcome& one = reference(key, c);  // (weak: the untimed 1-rank run of this grid)
      if (!root) continue;
      r.n = static_cast<std::int64_t>(m.particles);
      check_pic_scaling_record(r, {m.gauss_change, m.energy, one.energy, k == 1, "the 1-rank run's",
                                   "the 1-rank reference", gauss_bound, energy_bound});
      if (!r.verified) {
        add(r);
        continue;
      }
      set_times(r, m, timed);
      r.rebalances = m.rebalances;
      // Against the 1-rank run: strong, its median over this one; weak, the nx0 run's time per
      // particle over this one's time per particle per rank (per-rank work fixed: 1 is perfect).
      const auto base = one_rank.find(kind != "weak" ? 2 * strong_nx + (quick ? 1 : 0) : 2 * weak_nx0 + 1);
      if (base != one_rank.end() && k > 1 && !base->second.steps.empty()) {
        const double t1 = median(base->second.steps);
        if (kind != "weak") {
          r.speedup_vs_one_rank = t1 / r.median_s;
          r.efficiency = r.speedup_vs_one_rank / k;
        } else {
          // per particle: the windows' 8-column margins make the particles per rank differ a little
          const double ns1 = t1 / base->second.particles;
          r.efficiency = ns1 / (r.median_s / m.particles * k);
        }
      }
      add(r);
    }
  }

  // The strong window on all P ranks in slabs and in blocks: the same bits (CPU) or the same
  // energy within the atomics' bound (GPU), the times.
  if (P > 1 && wanted("blocks")) {
    const pic::PicConfig bc = make_config(strong_nx, ny, quick);
    Outcome slabs;
    for (int ranks_y = 1; ranks_y <= P; ++ranks_y) {
      if (P % ranks_y != 0) continue;
      const int ranks_x = P / ranks_y;
      Record r = new_record("blocks-" + std::to_string(ranks_x) + "x" + std::to_string(ranks_y), P, strong_nx);
      r.energy_error = -1;
      if (strong_nx < ranks_x * pic::kMinSlabColumns || ny < ranks_y * pic::kMinSlabColumns) {
        r.skipped = "skipped: " + std::to_string(strong_nx) + " x " + std::to_string(ny) + " cells cannot make " +
                    std::to_string(ranks_x) + " x " + std::to_string(ranks_y) + " blocks of 8 x 8 cells";
        if (root) add(r);
        continue;
      }
      Outcome m = run_on(world, bc, gpu, gpu_opt, warm, timed, nullptr, ranks_y);
      if (ranks_y == 1) slabs = m;
      if (!root) continue;
      r.n = static_cast<std::int64_t>(m.particles);
      // (CPU: the slabs' bits; GPU: float64 atomics add in no fixed order)
      check_pic_scaling_record(r, {m.gauss_change, m.energy, slabs.energy, ranks_y == 1, "the slabs'", "the slabs",
                                   gauss_bound, gpu ? energy_bound : 0.0});
      if (!r.verified) {
        add(r);
        continue;
      }
      set_times(r, m, timed);
      if (ranks_y > 1 && !slabs.steps.empty()) r.speedup_vs_slabs = median(slabs.steps) / r.median_s;
      add(r);
    }
  }

  // Sorting (GPU): document 004's Fig. 10 over GPUs. The warp kernel (particles sorted by cell)
  // under each policy (every step, every 10 steps, and when the share of slots out of place
  // passes empty_ratio = 0 .. 0.2) on 1, 2 and P ranks, every run from the same state: the strong
  // window after sort_warm steps on all P ranks (float64 atomics; the laser in the target),
  // gathered onto every rank. The mean step (the sorts included; they come every few steps), the
  // sorts (the most of a rank), checked as the other records against the first run (1 rank,
  // sorting every step): Gauss's law, and the energy within 1e-8 (sort_timed + 3 steps of float64
  // atomics in other orders). The group sorting-multi: the same on 2 and P ranks only (the 1-rank
  // runs left out; its first run, 2 ranks sorting every step, is the reference).
  const bool sort_one = wanted("sorting");
  if (gpu && (sort_one || (P > 1 && wanted("sorting-multi")))) {
    const int sort_warm = quick ? 20 : 600, sort_timed = quick ? 10 : 50;
    const pic::PicConfig sc = make_config(strong_nx, ny, quick);
    pic::PicSimulation state = [&] {
      const pic::CellWindow window = pic::block_load_window(sc, P, world.rank(), 1);
      pic::PicSimulation g = pic::build_pic_simulation(sc, true, world.rank() == 0 ? nullptr : &window);
      pic::DomainPicGpu d(g, world, pic::PicGpuOptions{});
      for (int k = 0; k < sort_warm; ++k) d.step();
      d.gather(g, -1);
      return g;
    }();
    Start from;
    if (root) from = start_of(state);
    from.sim = &state;
    std::vector<int> sk;
    if (sort_one) sk.push_back(1);
    if (P >= 2) sk.push_back(2);
    if (P > 2) sk.push_back(P);
    struct Policy {
      int every;
      double ratio;
    };
    const Policy policies[] = {{1, -1}, {10, -1}, {0, 0.0}, {0, 0.01}, {0, 0.02}, {0, 0.05}, {0, 0.1}, {0, 0.2}};
    double reference_energy = 0;
    for (int k : sk) {
      double every_step = 0;  // the mean step sorting every step, on these k ranks
      auto part = world.split(world.rank() < k);
      for (const Policy& p : policies) {
        const std::string name =
            p.every > 0 ? "sort-every-" + std::to_string(p.every) : "empty-ratio-" + fmt("%g", p.ratio);
        Record r = new_record("sorting-" + name + "-" + std::to_string(k), k, strong_nx);
        pic::PicGpuOptions opt = gpu_opt;
        opt.deposit = pic::DepositKernel::warp;
        r.pic_deposit = std::string(pic::deposit_kernel_info(opt.deposit).name);
        r.sort_every = p.every;
        r.empty_ratio = p.ratio;
        opt.sort_every = p.every;
        opt.empty_ratio = p.ratio;
        Outcome m;
        if (part) m = run_on(*part, sc, gpu, opt, 3, sort_timed, nullptr, 1, &from);
        world.barrier();
        if (!root) continue;
        const bool first = reference_energy == 0;
        if (first) reference_energy = m.energy;
        r.n = static_cast<std::int64_t>(m.particles);
        check_pic_scaling_record(r, {m.gauss_change, m.energy, reference_energy, first,
                                     sk.front() == 1 ? "the 1-rank run sorting every step"
                                                     : "the 2-rank run sorting every step",
                                     "the reference", gauss_bound, 1e-8});
        if (!r.verified) {
          add(r);
          continue;
        }
        set_times(r, m, sort_timed);
        r.ns_step = r.mean_s / m.particles * 1e9;  // (the mean: a sort every few steps)
        r.sorts = m.sorts;
        if (p.every == 1) every_step = r.mean_s;
        if (every_step > 0) r.speedup_vs_every_step = every_step / r.mean_s;
        add(r);
      }
    }
  }

  // Messages of 1 KiB .. 64 MiB between ranks 0 and 1, host-staged and GPU to GPU (GPU, P > 1).
  if (P > 1 && gpu && wanted("transfer")) {
    auto pair = world.split(world.rank() < 2);
    const int repeats = quick ? 3 : 20;
    for (std::size_t bytes = 1024; bytes <= (quick ? std::size_t(1) << 20 : std::size_t(64) << 20); bytes *= 4) {
      TransferRoundTrips t;
      std::string failed;
      if (pair) {
        try {
          t = pic_transfer_round_trips(*pair, bytes, repeats);
        } catch (const Error& e) {
          failed = e.what();
        }
      }
      world.barrier();
      if (!root) continue;
      const double host = t.host_s.empty() ? 0.0 : 0.5 * median(t.host_s);
      // (the third way, device buffers to CUDA-aware MPI, only where the library reports it:
      // otherwise its record says why, with no time)
      for (const std::string way : {"host", "ipc", "mpi"}) {
        const bool direct = way != "host";
        Record r = new_record("transfer-" + way + "-" + std::to_string(bytes), 2, 0);
        r.pic_deposit.clear();
        r.pic_exchange.clear();  // (the way is in the rung's name)
        r.energy_error = -1;
        r.transfer_bytes = double(bytes);
        const std::vector<double>& s = way == "host" ? t.host_s : way == "ipc" ? t.direct_s : t.mpi_s;
        if (way == "mpi" && failed.empty() && !t.mpi_unavailable.empty()) {
          r.skipped = "skipped: CUDA-aware MPI not available (" + t.mpi_unavailable + ")";
          add(r);
          continue;
        }
        if (!failed.empty() || s.empty()) {
          r.error = "transfer failed: " + (failed.empty() ? std::string("no times") : failed);
          add(r);
          continue;
        }
        r.verified = true;
        r.verification = "the message's bytes compared on the host after the last round trip";
        r.repeats = int(s.size());
        r.median_s = 0.5 * median(s);
        r.min_s = 0.5 * *std::min_element(s.begin(), s.end());
        for (double v : s) r.mean_s += 0.5 * v / double(s.size());
        r.rate = double(bytes) / r.median_s * 1e-9;
        if (direct && host > 0) r.speedup_vs_host = host / r.median_s;
        add(r);
      }
    }
  }

  // A dense target drifting through the window on all P ranks, with the even split and with the
  // load balance (every 5 steps, at 5 % over the mean): the same plasma, the same steps; the
  // balanced run's energy equals the even run's (CPU: to the bit; GPU: within the atomics' bound).
  if (P < 2 || !wanted("moving-target")) return;
  const pic::PicConfig mc = make_moving_config(strong_nx, ny);
  pic::BalanceSettings bs;
  bs.every = 5, bs.threshold = 0.05, bs.cell_cost = 1.0;
  Outcome even;
  for (const bool on : {false, true}) {
    Record r = new_record(std::string("moving-target-") + (on ? "balanced" : "even") + "-" + std::to_string(P), P, strong_nx);
    Outcome m = run_on(world, mc, gpu, gpu_opt, warm, timed, on ? &bs : nullptr);
    if (!on) even = m;
    if (!root) continue;
    r.n = static_cast<std::int64_t>(m.particles);
    r.rebalances = m.rebalances;
    check_pic_scaling_record(r, {m.gauss_change, m.energy, even.energy, !on, "the even split's", "the even split",
                                 gauss_bound, gpu ? energy_bound : 0.0});
    if (on) r.verification += fmt("; %.0f rebalances", double(m.rebalances));
    if (!r.verified) {
      add(r);
      continue;
    }
    set_times(r, m, timed);
    if (on && !even.steps.empty()) r.speedup_vs_even_split = median(even.steps) / r.median_s;
    add(r);
  }
}

}  // namespace nbody::bench
