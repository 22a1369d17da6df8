// The PIC run over several GPUs (pic/gpu_slabs.hpp) under mpirun -np 1, 2, 4 (ranks may share a
// GPU: rank r runs on GPU r % devices): the deterministic deposition gives the same bits on N
// ranks, in slabs or 2D blocks, as on one (fields with their guards, particles sorted by id, ids,
// the Poynting integrals), particles are
// conserved across the migration and Gauss's law holds across the cuts; both modes agree with
// the CPU slab path (pic/domain.hpp) to the GPU-vs-CPU rounding bound of tests/pic/
// test_pic_gpu.cpp (1e-8 relative: another summation order of the currents and the device's
// fused multiply-adds). Every test skips without a CUDA device.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "comm/mpi_communicator.hpp"
#include "nbody/error.hpp"
#include "pic/driver/config.hpp"
#include "pic/parallel/domain.hpp"
#include "pic/cuda/pic_gpu.hpp"
#include "pic/cuda/gpu_slabs.hpp"
#include "pic_configs.hpp"

namespace nbody::pic {
namespace {

namespace fs = std::filesystem;

comm::Communicator& world() { return comm::world(); }

#define REQUIRE_GPU()                                                   \
  do {                                                                  \
    std::string why;                                                    \
    if (!pic_gpu_available(&why)) GTEST_SKIP() << "no CUDA device: " << why; \
  } while (0)

// A thermal plasma with a drift (periodic both ways), electrons and mobile protons.
const char* kLangmuir = R"(
[grid]
nx = 48
ny = 8
dx = 0.02
dy = 0.03
[time]
steps = 30
courant = 0.9
[[species]]
name = "electron"
ppc = 4
density = 2.0
temperature_keV = 20.0
drift_ux = 0.1
[[species]]
name = "proton"
ppc = 2
density = 2.0
temperature_keV = 1.0
)";

// A small hole-boring setup: a laser through the open left edge onto electrons (thermal
// re-emission at the left, absorbed at the right) and deuterons (reflected, absorbed).
const char* kHoleBoring = R"(
[grid]
nx = 64
ny = 6
dx = 0.02
dy = 0.04
x0 = -0.3
boundary_x = "open"
[time]
steps = 40
courant = 0.95
[solver]
field = "ck"
shape = "tsc"
[laser]
a0 = 3.0
polarisation = "circular"
envelope = "sin2"
duration = 1.0
[[species]]
name = "electron"
ppc = 4
density = 4.0
x_start = -0.28
x_end = 0.9
temperature_keV = 10.0
boundary_xmin = "thermal"
boundary_xmax = "absorb"
[[species]]
name = "deuteron"
ppc = 2
density = 4.0
x_start = -0.28
x_end = 0.9
temperature_keV = 1.0
boundary_xmin = "reflect"
boundary_xmax = "absorb"
)";

PicConfig config(const std::string& toml, const std::vector<std::string>& overrides, const char* deposit) {
  const fs::path p = fs::temp_directory_path() /
                     ("nbody_pic_gpu_mpi_" + std::to_string(::getpid()) + "_" + std::to_string(world().rank()) + ".toml");
  std::ofstream(p) << toml;
  std::vector<std::string> o = overrides;
  o.push_back(std::string("solver.deposit=\"") + deposit + "\"");
  PicConfig c = read_pic_config(p.string(), o);
  fs::remove(p);
  return c;
}

PicGpuOptions options(const PicConfig& c) {
  PicGpuOptions o;
  o.deposit = deposit_kernel(c.deposit);
  o.sort_every = c.sort_every;
  o.empty_ratio = c.empty_ratio;
  o.particle_precision = c.particle_precision;
  return o;
}

// The GPU slabs (or ranks_y block rows) on `comm` for `steps` steps, gathered on every rank;
// the Poynting fluxes through columns 10 and nx - 12 into *track.
PicSimulation run_gpu(const PicConfig& c, comm::Communicator& comm, int steps, std::size_t* crossed = nullptr,
                      std::int64_t* sorts = nullptr, int ranks_y = 1, PoyntingTrack* track = nullptr, bool direct = false) {
  PicSimulation sim = build_pic_simulation(c);
  PicGpuOptions o = options(c);
  o.slab.guards = direct && comm.size() > 1 ? GuardExchange::ipc : GuardExchange::host;
  DomainPicGpu d(sim, comm, o, ranks_y);
  if (track) d.track_poynting(10, c.nx - 12);
  for (int k = 0; k < steps; ++k) d.step();
  if (sorts) *sorts = d.sorts();
  if (track) *track = d.poynting();
  d.gather(sim);
  if (crossed) {
    // Ids in this slab now that were not at the start: particles that came from a neighbour.
    PicSimulation start = build_pic_simulation(c);
    DomainPic h(start, comm);
    std::vector<std::uint64_t> now;
    *crossed = 0;
    const SlabLayout& l = d.layout();
    const SlabOwner own{sim.settings().geom.x0, sim.settings().geom.dx, sim.settings().geom.nx, l.size, l.starts.data()};
    for (std::size_t k = 0; k < sim.species().size(); ++k) {
      const auto& ids0 = h.ids()[k];
      for (std::size_t p = 0; p < sim.species()[k].size(); ++p)
        if (own(sim.species()[k].x[p]) == l.rank &&
            !std::binary_search(ids0.begin(), ids0.end(), sim.particle_ids()[k][p]))
          ++*crossed;
    }
  }
  return sim;
}

void expect_same_bits(const PicSimulation& a, const PicSimulation& b) {
  ASSERT_EQ(a.step_count(), b.step_count());
  EXPECT_EQ(a.time(), b.time());
  for (int c = 0; c < kComponents; ++c) {
    if (c == kRho) continue;
    ASSERT_EQ(a.fields().data[c].size(), b.fields().data[c].size());
    std::size_t differ = 0;
    for (std::size_t k = 0; k < a.fields().data[c].size(); ++k)
      differ += std::memcmp(&a.fields().data[c][k], &b.fields().data[c][k], sizeof(double)) != 0;
    EXPECT_EQ(differ, 0u) << kComponentNames[c] << " differs at " << differ << " points on rank " << world().rank();
  }
  ASSERT_EQ(a.species().size(), b.species().size());
  for (std::size_t k = 0; k < a.species().size(); ++k) {
    const Species& s = a.species()[k];
    const Species& t = b.species()[k];
    ASSERT_EQ(s.size(), t.size()) << s.name;
    EXPECT_EQ(a.particle_ids()[k], b.particle_ids()[k]) << s.name;
    for (auto m : {&Species::x, &Species::y, &Species::ux, &Species::uy, &Species::uz, &Species::w})
      EXPECT_TRUE(std::memcmp((s.*m).data(), (t.*m).data(), s.size() * sizeof(double)) == 0) << s.name;
  }
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

// Fields (the slab's own points and guards as gathered) and particles (in id order, the same
// particles) within `bound` of their scale.
void expect_close(const PicSimulation& a, const PicSimulation& b, double bound, const std::string& label) {
  for (int c = kEx; c <= kBz; ++c) {
    const auto& x = a.fields().data[c];
    const auto& y = b.fields().data[c];
    ASSERT_EQ(x.size(), y.size());
    double d = 0;
    for (std::size_t k = 0; k < x.size(); ++k) d = std::max(d, std::fabs(x[k] - y[k]));
    EXPECT_LE(d / std::max(max_abs(x), 1e-3), bound) << label << ' ' << kComponentNames[c];
  }
  for (std::size_t k = 0; k < a.species().size(); ++k) {
    const Species& s = a.species()[k];
    const Species& t = b.species()[k];
    ASSERT_EQ(s.size(), t.size()) << label << ' ' << s.name;
    EXPECT_EQ(a.particle_ids()[k], b.particle_ids()[k]) << label << ' ' << s.name;
    double dx = 0, du = 0;
    for (std::size_t p = 0; p < s.size(); ++p) {
      dx = std::max({dx, std::fabs(s.x[p] - t.x[p]), std::fabs(s.y[p] - t.y[p])});
      du = std::max({du, std::fabs(s.ux[p] - t.ux[p]), std::fabs(s.uy[p] - t.uy[p]), std::fabs(s.uz[p] - t.uz[p])});
    }
    const double umax = std::max({max_abs(s.ux), max_abs(s.uy), max_abs(s.uz), 1e-6});
    EXPECT_LE(dx / a.settings().geom.dx, bound) << label << ' ' << s.name;
    EXPECT_LE(du / umax, bound) << label << ' ' << s.name;
  }
}

double gauss_change(PicSimulation& sim, const std::vector<double>& initial, double scale) {
  sim.compute_rho();
  const std::vector<double> r = sim.gauss_residual_field();
  double m = 0;
  for (std::size_t k = 0; k < r.size(); ++k) m = std::max(m, std::fabs(r[k] - initial[k]));
  return m / scale;
}

// The initial Gauss residual of `start` (the reference of gauss_change), and the charge scale:
// the largest single-species |rho|.
std::vector<double> gauss_reference(PicSimulation& start, double& scale) {
  scale = 0;
  for (int k = 0; k < int(start.species().size()); ++k) {
    start.compute_rho(k);
    scale = std::max(scale, start.rho_abs_max());
  }
  start.compute_rho();
  return start.gauss_residual_field();
}

struct Case {
  const char* name;
  const char* toml;
  std::vector<std::string> overrides;
};

class PicGpuSlabsMpi : public testing::TestWithParam<Case> {};

TEST_P(PicGpuSlabsMpi, DeterministicSameBitsOnAnyRankCount) {
  REQUIRE_GPU();
  const Case& tc = GetParam();
  const PicConfig c = config(tc.toml, tc.overrides, "deterministic");
  const int steps = int(pic_steps(c));
  PicSimulation start = build_pic_simulation(c);
  double scale = 0;
  const std::vector<double> initial = gauss_reference(start, scale);
  std::size_t loaded = 0;
  for (const Species& s : start.species()) loaded += s.size();

  std::size_t crossed = 0;
  PicSimulation slabs = run_gpu(c, world(), steps, &crossed);
  comm::NullCommunicator one;
  const PicSimulation alone = run_gpu(c, one, steps);
  expect_same_bits(slabs, alone);
  // The guard messages GPU to GPU (parallel.exchange = "ipc"): the same bits.
  if (world().size() > 1) expect_same_bits(run_gpu(c, world(), steps, nullptr, nullptr, 1, nullptr, true), alone);
  // The same run again: the same bits (no atomics anywhere in this mode).
  expect_same_bits(run_gpu(c, one, steps), alone);
  std::size_t total = 0;
  for (const Species& s : slabs.species()) total += s.size();
  if (c.field_bc.x == FieldBoundary::periodic) EXPECT_EQ(total, loaded) << "every particle still there";
  const double gauss = gauss_change(slabs, initial, scale);
  if (!c.pml_x) EXPECT_LT(gauss, 1e-12) << "Gauss's law across the slab boundaries";
  const double moved = world().allreduce_max(double(crossed));
  if (world().size() > 1) EXPECT_GT(moved, 0.0) << "particles must cross the cuts for the test to mean anything";
  if (world().rank() == 0)
    std::printf("[ %s on %d ranks (GPU slabs, deterministic): %zu particles, gauss %.2e, most arrivals in a slab %.0f ]\n",
                tc.name, world().size(), total, gauss, moved);
}

// The float32 particle store (solver.particle_precision) over GPU slabs and 2D blocks: the
// migration's records carry the store's values as float64 bits that encode back to the same store
// (pic/physics/particle_precision.hpp), so the deterministic mode keeps one GPU's bits on any
// number and shape of blocks, and charge stays conserved to float64 rounding across the cuts
// (the Gauss reference taken on the stored, rounded plasma).
TEST(PicGpuSlabsMpiFloat32, DeterministicSameBitsOnAnyRankCount) {
  REQUIRE_GPU();
  const int P = world().size();
  const PicConfig c = config(kLangmuir,
                             {"solver.device=cuda", "solver.particle_precision=float32",
                              "grid.ny=" + std::to_string(std::max(8, 2 * kGuard * P))},
                             "deterministic");
  ASSERT_EQ(c.particle_precision, ParticlePrecision::float32);
  const int steps = int(pic_steps(c));
  PicSimulation start = build_pic_simulation(c);
  for (Species& s : start.species()) round_to_float32_store(s, store_cells_of(start.settings().geom));
  double scale = 0;
  const std::vector<double> initial = gauss_reference(start, scale);
  comm::NullCommunicator one;
  PicSimulation alone = run_gpu(c, one, steps);
  expect_same_bits(run_gpu(c, one, steps), alone);
  EXPECT_LT(gauss_change(alone, initial, scale), 1e-12) << "one GPU";
  for (int rows = 1; rows <= P && P > 1; ++rows) {
    if (P % rows != 0) continue;
    PicSimulation blocks = run_gpu(c, world(), steps, nullptr, nullptr, rows);
    expect_same_bits(blocks, alone);
    EXPECT_LT(gauss_change(blocks, initial, scale), 1e-12) << P / rows << " x " << rows << " blocks";
  }
}

// 2D blocks on GPUs (ranks_y block rows, every shape of the ranks with more than one): the
// deterministic mode gives one GPU's bits (fields, particles, ids, the Poynting integrals), with
// particles crossing the y cuts; the atomic and warp kernels agree with it to rounding.
TEST_P(PicGpuSlabsMpi, BlocksKeepOneGpusBits) {
  REQUIRE_GPU();
  const int P = world().size();
  if (P < 2) GTEST_SKIP() << "needs several ranks";
  const Case& tc = GetParam();
  std::vector<std::string> o = tc.overrides;
  o.push_back("grid.ny=" + std::to_string(2 * kGuard * P));  // (room for P block rows)
  const PicConfig c = config(tc.toml, o, "deterministic");
  const int steps = int(pic_steps(c));
  PicSimulation start = build_pic_simulation(c);
  double scale = 0;
  const std::vector<double> initial = gauss_reference(start, scale);
  comm::NullCommunicator one;
  PoyntingTrack t_one;
  const PicSimulation alone = run_gpu(c, one, steps, nullptr, nullptr, 1, &t_one);
  for (int rows = 2; rows <= P; ++rows) {
    if (P % rows != 0) continue;
    PoyntingTrack t_blocks;
    PicSimulation blocks = run_gpu(c, world(), steps, nullptr, nullptr, rows, &t_blocks);
    expect_same_bits(blocks, alone);
    EXPECT_EQ(std::memcmp(&t_blocks, &t_one, sizeof t_one), 0) << "the Poynting fluxes and integrals on " << P / rows
                                                                << " x " << rows << " blocks";
    if (!c.pml_x) EXPECT_LT(gauss_change(blocks, initial, scale), 1e-12) << "Gauss's law across the block boundaries";
    // Particles crossed the y cuts: some particle's block row changed since the start.
    const SlabLayout l = block_layout(c.nx, c.ny, c.field_bc.x == FieldBoundary::periodic,
                                      c.field_bc.y == FieldBoundary::periodic, P, rows, 0);
    const SlabOwner rown{c.y0, c.dy, c.ny, rows, l.rows.data()};
    std::size_t moved = 0;
    for (std::size_t k = 0; k < blocks.species().size(); ++k) {
      if (start.species()[k].immobile) continue;
      for (std::size_t p = 0; p < blocks.species()[k].size(); ++p) {
        const std::uint64_t id = blocks.particle_ids()[k][p];
        moved += rown(blocks.species()[k].y[p]) != rown(start.species()[k].y[std::size_t(id)]);
      }
    }
    EXPECT_GT(moved, 0u) << "particles must cross the y cuts for the test to mean anything";
    for (const char* dep : {"atomic", "warp"})
      expect_close(alone, run_gpu(config(tc.toml, o, dep), world(), steps, nullptr, nullptr, rows), 1e-8,
                   std::string(tc.name) + " " + dep + " on blocks");
    // The guard messages GPU to GPU (CUDA IPC): the same bits.
    PoyntingTrack t_direct;
    expect_same_bits(run_gpu(c, world(), steps, nullptr, nullptr, rows, &t_direct, true), alone);
    EXPECT_EQ(std::memcmp(&t_direct, &t_one, sizeof t_one), 0) << "the Poynting integrals, direct exchanges";
    if (world().rank() == 0)
      std::printf("[ %s on %d x %d GPU blocks: one GPU's bits, %zu particles changed block row ]\n", tc.name, P / rows, rows,
                  moved);
  }
}

// Deterministic and atomic GPU slabs against the CPU slab path (deterministic, one process's
// bits) on the same number of ranks: the GPU-vs-CPU rounding bound.
TEST_P(PicGpuSlabsMpi, AgreesWithTheCpuSlabsToRounding) {
  REQUIRE_GPU();
  const Case& tc = GetParam();
  const PicConfig c = config(tc.toml, tc.overrides, "deterministic");
  const int steps = int(pic_steps(c));
  PicSimulation cpu = build_pic_simulation(c);
  {
    DomainPic d(cpu, world());
    for (int k = 0; k < steps; ++k) d.step();
    d.gather(cpu);
  }
  expect_close(cpu, run_gpu(c, world(), steps), 1e-8, std::string(tc.name) + " deterministic");
  const PicConfig ca = config(tc.toml, tc.overrides, "atomic");
  expect_close(cpu, run_gpu(ca, world(), steps), 1e-8, std::string(tc.name) + " atomic");
  // The warp kernel over slabs: particles sorted by cell (every 4 steps, and by the empty_ratio
  // policy), the ids carried through the sorts and the migrations.
  std::vector<std::string> every4 = tc.overrides;
  every4.push_back("solver.sort_every=4");
  const PicConfig cw = config(tc.toml, every4, "warp");
  expect_close(cpu, run_gpu(cw, world(), steps), 1e-8, std::string(tc.name) + " warp");
}

// The warp kernel over slabs sorts by cell as on one GPU (every 3 steps, and by the empty_ratio
// policy), keeps every particle and its id through the sorts and the migrations, and conserves
// charge across the cuts.
TEST(PicGpuSlabsMpiWarp, SortsKeepParticlesIdsAndCharge) {
  REQUIRE_GPU();
  const PicConfig c = config(kLangmuir, {"solver.empty_ratio=0", "solver.sort_every=3"}, "warp");
  const int steps = int(pic_steps(c));
  PicSimulation start = build_pic_simulation(c);
  double scale = 0;
  const std::vector<double> initial = gauss_reference(start, scale);
  std::size_t crossed = 0;
  std::int64_t sorts = 0;
  PicSimulation sim = run_gpu(c, world(), steps, &crossed, &sorts);
  for (std::size_t k = 0; k < sim.species().size(); ++k) {
    ASSERT_EQ(sim.species()[k].size(), start.species()[k].size()) << "every particle still there";
    std::vector<std::uint64_t> want(start.species()[k].size());
    for (std::size_t p = 0; p < want.size(); ++p) want[p] = p;
    EXPECT_EQ(sim.particle_ids()[k], want) << "each id once";
  }
  EXPECT_LT(gauss_change(sim, initial, scale), 1e-12) << "Gauss's law across the slab boundaries";
  EXPECT_GE(sorts, steps / 3) << "sorted again and again between the migrations";
  if (world().size() > 1) EXPECT_GT(world().allreduce_max(double(crossed)), 0.0) << "particles must cross the cuts";
  // The deterministic slabs' state after the same steps, to the GPU's rounding.
  const PicConfig cd = config(kLangmuir, {}, "deterministic");
  expect_close(run_gpu(cd, world(), steps), sim, 1e-8, "warp against deterministic");
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PicGpuSlabsMpi,
    testing::Values(Case{"langmuir_cic_yee", kLangmuir, {}},
                    Case{"langmuir_tsc_ck", kLangmuir, {"solver.shape=\"tsc\"", "solver.field=\"ck\""}},
                    Case{"hole_boring_tsc_ck", kHoleBoring, {}},
                    Case{"hole_boring_cic_yee_pml", kHoleBoring,
                         {"solver.shape=\"cic\"", "solver.field=\"yee\"", "grid.boundary_x=\"pml\"", "grid.pml_cells=6"}}),
    [](const testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// The time split is recorded: every part measured, their sum within the step.
TEST(PicGpuSlabsMpiTiming, StepTimesAreSplit) {
  REQUIRE_GPU();
  const PicConfig c = config(kLangmuir, {}, "atomic");
  PicSimulation sim = build_pic_simulation(c);
  DomainPicGpu d(sim, world(), options(c));
  for (int k = 0; k < 5; ++k) d.step();
  const PicGpu::StepTimes t = d.total_times();
  EXPECT_GT(t.particles, 0.0);
  EXPECT_GT(t.fields, 0.0);
  EXPECT_GE(t.sort, 0.0);
  if (world().size() > 1) EXPECT_GT(t.comm, 0.0);
  EXPECT_LE(t.particles + t.fields + t.comm + t.sort, t.step * (1 + 1e-9));
}

// The GPU slabs rebalanced every 5 steps: the deterministic mode keeps one GPU's bits (the state
// moves through the host to a new device object of the new slab), the warp kernel agrees with it
// to rounding, and the Poynting integrals carry on across the rebuilds.
TEST(PicGpuSlabsMpiBalance, MovingTargetKeepsTheBits) {
  REQUIRE_GPU();
  BalanceSettings b;
  b.every = 5, b.threshold = 0.05, b.cell_cost = 1.0;
  auto run = [&](const PicConfig& c, comm::Communicator& comm, int& rebalances, PoyntingTrack& track, int ranks_y = 1,
                 bool direct = false) {
    PicSimulation sim = build_pic_simulation(c);
    PicGpuOptions o = options(c);
    o.slab.guards = direct && comm.size() > 1 ? GuardExchange::ipc : GuardExchange::host;
    DomainPicGpu d(sim, comm, o, ranks_y);
    d.track_poynting(10, 50);
    for (int k = 1; k <= int(pic_steps(c)); ++k) {
      d.step();
      if (k % b.every == 0) d.balance(b);
    }
    rebalances = d.rebalances();
    track = d.poynting();
    d.gather(sim);
    return sim;
  };
  comm::NullCommunicator one;
  int moved = 0, none = 0;
  PoyntingTrack t_slabs, t_one;
  // (pic_configs.hpp's moving target, 40 steps)
  const PicConfig c = config(testcfg::kMovingTarget, {"time.steps=40"}, "deterministic");
  const PicSimulation slabs = run(c, world(), moved, t_slabs);
  const PicSimulation alone = run(c, one, none, t_one);
  expect_same_bits(slabs, alone);
  EXPECT_EQ(std::memcmp(&t_slabs, &t_one, sizeof t_one), 0) << "the Poynting integrals";
  EXPECT_EQ(none, 0);
  if (world().size() > 1) EXPECT_GT(moved, 1) << "the boundaries follow the target";
  int moved_warp = 0;
  PoyntingTrack t_warp;
  const PicSimulation warp = run(config(testcfg::kMovingTarget, {"time.steps=40"}, "warp"), world(), moved_warp, t_warp);
  expect_close(alone, warp, 1e-8, "warp with the load balance");
  // GPU to GPU guard messages (parallel.exchange = "ipc": CUDA IPC between the ranks'
  // processes): one GPU's bits too, across the rebuilds of the load balance (the neighbours'
  // buffers unmapped, new ones exported).
  if (world().size() > 1) {
    int moved_direct = 0;
    PoyntingTrack t_direct;
    const PicSimulation direct = run(c, world(), moved_direct, t_direct, 1, true);
    expect_same_bits(direct, alone);
    EXPECT_EQ(std::memcmp(&t_direct, &t_one, sizeof t_one), 0) << "the Poynting integrals, direct exchanges";
    EXPECT_EQ(moved_direct, moved) << "the same rebalances";
  }
  // 2 block rows (4 ranks and more): the block columns move, the bits stay one GPU's.
  if (world().size() >= 4 && world().size() % 2 == 0) {
    const PicConfig tall = config(testcfg::kMovingTarget, {"time.steps=40", "grid.ny=16"}, "deterministic");
    int moved_blocks = 0, none_tall = 0;
    PoyntingTrack t_blocks, t_tall;
    const PicSimulation blocks = run(tall, world(), moved_blocks, t_blocks, 2);
    const PicSimulation tall_one = run(tall, one, none_tall, t_tall);
    expect_same_bits(blocks, tall_one);
    EXPECT_EQ(std::memcmp(&t_blocks, &t_tall, sizeof t_tall), 0) << "the Poynting integrals on blocks";
    EXPECT_GT(moved_blocks, 1) << "the block columns follow the target";
    int moved_direct = 0;
    PoyntingTrack t_direct;
    expect_same_bits(run(tall, world(), moved_direct, t_direct, 2, true), tall_one);
    EXPECT_EQ(std::memcmp(&t_direct, &t_tall, sizeof t_tall), 0) << "the Poynting integrals on blocks, direct exchanges";
    if (world().rank() == 0)
      std::printf("[ moving target on %d x 2 GPU blocks: %d rebalances, one GPU's bits ]\n", world().size() / 2, moved_blocks);
  }
  if (world().rank() == 0)
    std::printf("[ moving target on %d ranks (GPU slabs): %d rebalances deterministic, %d warp ]\n", world().size(), moved,
                moved_warp);
}

// Deposition kernels that do not run over slabs are refused with one clear line (exit status 2).
// The devices' column counts (a shared-memory histogram a block) against the host's: from one
// state (the moving target before its first step, every particle where the setup put it) the GPU
// slabs plan the same new starts as the CPU slabs, by the warp and the atomic kernels' layouts.
TEST(PicGpuSlabsMpiBalance, DeviceColumnCountsPlanTheHostsStarts) {
  REQUIRE_GPU();
  if (world().size() < 2) GTEST_SKIP() << "needs several ranks";
  BalanceSettings b;
  b.every = 1, b.threshold = 0.01, b.cell_cost = 1.0;
  for (const char* deposit : {"atomic", "warp"}) {
    const PicConfig c = config(testcfg::kMovingTarget, {"time.steps=4"}, deposit);
    const PicSimulation sim = build_pic_simulation(c);
    DomainPic cpu(sim, world());
    DomainPicGpu gpu(sim, world(), options(c));
    const bool cpu_moved = cpu.balance(b), gpu_moved = gpu.balance(b);
    EXPECT_TRUE(cpu_moved) << deposit << ": the target makes the even split uneven";
    EXPECT_EQ(gpu_moved, cpu_moved) << deposit;
    EXPECT_EQ(gpu.layout().starts, cpu.layout().starts) << deposit;
    EXPECT_EQ(gpu.local_particles(), cpu.local_particles()) << deposit;
  }
}

TEST(PicGpuSlabsMpiTiming, OtherDepositKernelsAreRefused) {
  REQUIRE_GPU();
  if (world().size() < 2) GTEST_SKIP() << "needs several ranks";
  try {
    (void)config(kLangmuir, {"solver.device=\"cuda\""}, "tiled");
    ADD_FAILURE() << "not refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_status(), 2);
    EXPECT_NE(std::string(e.what()).find("solver.deposit"), std::string::npos) << e.what();
  }
}

// parallel.exchange = "auto": GPU buffers to MPI where the library reports CUDA support, the
// host's way otherwise; the same values move either way, so the deterministic run keeps the bits
// of "host" (and of one GPU), in slabs and, on 4 ranks and more, in 2 block rows. Where the
// library reports CUDA support "mpi" is asked for by name too.
TEST(PicGpuSlabsMpiExchange, AutoKeepsTheHostBits) {
  REQUIRE_GPU();
  const int P = world().size();
  if (P < 2) GTEST_SKIP() << "needs several ranks";
  const PicConfig c = config(kLangmuir, {"grid.ny=" + std::to_string(2 * kGuard * P)}, "deterministic");
  const int steps = int(pic_steps(c));
  auto run = [&](comm::Communicator& comm, GuardExchange guards, int ranks_y) {
    PicSimulation sim = build_pic_simulation(c);
    PicGpuOptions o = options(c);
    o.slab.guards = guards;
    DomainPicGpu d(sim, comm, o, ranks_y);
    for (int k = 0; k < steps; ++k) d.step();
    d.gather(sim);
    return sim;
  };
  comm::NullCommunicator one;
  const PicSimulation alone = run(one, GuardExchange::host, 1);
  const bool device_mpi = world().device_buffers_supported();
  for (int rows : {1, 2}) {
    if (P % rows != 0 || (rows > 1 && P < 4)) continue;
    const PicSimulation host = run(world(), GuardExchange::host, rows);
    expect_same_bits(host, alone);
    expect_same_bits(run(world(), GuardExchange::automatic, rows), host);
    if (device_mpi) expect_same_bits(run(world(), GuardExchange::mpi, rows), host);
  }
  const GuardExchange settled = resolve_guard_exchange(GuardExchange::automatic, world());  // (collective)
  if (world().rank() == 0)
    std::printf("[ parallel.exchange = \"auto\" on %d ranks: %s (%s) ]\n", P, guard_exchange_name(settled),
                world().device_buffer_support().how.c_str());
}

// "mpi" handed to the GPU blocks where the library does not take device buffers (here forced by
// NBODY_MPI_CUDA_AWARE=0) is refused before any device work, with the reason: device pointers
// to such a library would crash inside it. Needs no GPU.
TEST(PicGpuSlabsMpiExchange, MpiWithoutCudaAwareLibraryIsRefused) {
  if (world().size() < 2) GTEST_SKIP() << "needs several ranks";
  const PicConfig c = config(kLangmuir, {}, "deterministic");
  PicSimulation sim = build_pic_simulation(c);
  PicGpuOptions o = options(c);
  o.slab.guards = GuardExchange::mpi;
  ::setenv("NBODY_MPI_CUDA_AWARE", "0", 1);
  try {
    DomainPicGpu d(sim, world(), o, 1);
    ADD_FAILURE() << "not refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_status(), 2);
    EXPECT_NE(std::string(e.what()).find("parallel.exchange = \"mpi\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("NBODY_MPI_CUDA_AWARE=0"), std::string::npos) << e.what();
  }
  ::unsetenv("NBODY_MPI_CUDA_AWARE");
}

}  // namespace
}  // namespace nbody::pic

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  std::unique_ptr<nbody::comm::MpiSession> mpi;
  if (nbody::comm::launched_by_mpi()) mpi = std::make_unique<nbody::comm::MpiSession>(&argc, &argv);
  int status = RUN_ALL_TESTS();
  status = static_cast<int>(nbody::comm::world().allreduce_max(double(status)));
  return status;
}
