// The PIC run split into slabs or 2D blocks over the MPI ranks (pic/domain.hpp), under mpirun
// -np 1, 2, 3 and 4: the same bits as one process (fields with their guards, particles sorted by
// id), particles conserved across migration, Gauss's law kept across the cuts, a checkpoint of
// the gathered state resumed on fewer ranks with the bits of the uninterrupted run.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "comm/mpi_communicator.hpp"
#include "nbody/error.hpp"
#include "pic/output/checkpoint.hpp"
#include "pic/driver/config.hpp"
#include "pic/parallel/domain.hpp"
#include "pic/driver/run.hpp"
#include "pic_configs.hpp"

namespace nbody::pic {
namespace {

namespace fs = std::filesystem;

comm::Communicator& world() { return comm::world(); }

// A thermal plasma with a Langmuir wave (periodic both ways), electrons and mobile protons.
const char* kLangmuir = R"(
[grid]
nx = 48
ny = 8
dx = 0.02
dy = 0.03
[time]
steps = 40
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

// A small hole-boring setup: a circularly polarised laser through the open left edge onto a
// target of electrons (thermal re-emission at the left, absorbed at the right) and deuterons
// (reflected, absorbed), periodic in y.
const char* kHoleBoring = R"(
[grid]
nx = 64
ny = 6
dx = 0.02
dy = 0.04
x0 = -0.3
boundary_x = "open"
[time]
steps = 60
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

PicConfig config(const std::string& toml, const std::vector<std::string>& overrides) {
  const fs::path p = fs::temp_directory_path() /
                     ("nbody_pic_mpi_" + std::to_string(::getpid()) + "_" + std::to_string(world().rank()) + ".toml");
  std::ofstream(p) << toml;
  std::vector<std::string> o = overrides;
  o.push_back("solver.deposit=\"deterministic\"");
  PicConfig c = read_pic_config(p.string(), o);
  fs::remove(p);
  return c;
}

// The run on one process (the slab code on a communicator of one), then gathered.
PicSimulation run_alone(const PicConfig& c, int steps) {
  PicSimulation sim = build_pic_simulation(c);
  comm::NullCommunicator one;
  DomainPic d(sim, one);
  for (int k = 0; k < steps; ++k) d.step();
  d.gather(sim);
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

// max |(div E - rho) - initial| over the largest single-species |rho|.
double gauss_change(PicSimulation& sim, const std::vector<double>& initial, double scale) {
  sim.compute_rho();
  const std::vector<double> r = sim.gauss_residual_field();
  double m = 0;
  for (std::size_t k = 0; k < r.size(); ++k) m = std::max(m, std::fabs(r[k] - initial[k]));
  return m / scale;
}

struct Case {
  const char* name;
  const char* toml;
  std::vector<std::string> overrides;
};

// The configuration's run on this many ranks in ranks_y block rows against one process: the same
// bits, every particle in exactly one block, ids unique, the particles all there on a periodic
// axis, Gauss's law across the cuts, and particles that crossed them.
void check_against_one_process(const char* name, const PicConfig& c, int ranks_y) {
  const int steps = int(pic_steps(c));
  PicSimulation sim = build_pic_simulation(c);
  double scale = 0;
  for (int k = 0; k < int(sim.species().size()); ++k) {
    sim.compute_rho(k);
    scale = std::max(scale, sim.rho_abs_max());
  }
  sim.compute_rho();
  const std::vector<double> initial = sim.gauss_residual_field();
  std::size_t loaded = 0;
  for (const Species& s : sim.species()) loaded += s.size();

  DomainPic d(sim, world(), ranks_y);
  EXPECT_EQ(d.layout().ranks_x * d.layout().ranks_y, world().size());
  const auto ids_at_start = d.ids();
  for (int k = 0; k < steps; ++k) d.step();
  d.gather(sim);
  // Particles that came into this block from a neighbour: ids now here that were not at the start.
  std::size_t crossed = 0;
  for (std::size_t k = 0; k < ids_at_start.size(); ++k)
    for (std::uint64_t id : d.ids()[k]) crossed += !std::binary_search(ids_at_start[k].begin(), ids_at_start[k].end(), id);

  expect_same_bits(sim, run_alone(c, steps));
  // Periodic plasma: every particle is still there; open edges: only the absorbed are gone.
  std::size_t total = 0;
  for (std::size_t k = 0; k < sim.species().size(); ++k) {
    total += sim.species()[k].size();
    const auto& ids = sim.particle_ids()[k];
    EXPECT_TRUE(std::adjacent_find(ids.begin(), ids.end(), [](auto a, auto b) { return a >= b; }) == ids.end())
        << "ids unique and sorted";
  }
  const auto all = world().allgather_value<std::int64_t>(std::int64_t(d.local_particles()));
  std::int64_t sum = 0;
  for (auto n : all) sum += n;
  EXPECT_EQ(std::size_t(sum), total) << "the blocks together hold every particle once";
  if (c.field_bc.x == FieldBoundary::periodic) EXPECT_EQ(total, loaded);
  const double gauss = gauss_change(sim, initial, scale);
  // (A PML layer is not Gauss-exact: its split derivatives change div E where a particle's charge is.)
  if (!c.pml_x) EXPECT_LT(gauss, 1e-12) << "Gauss's law across the block boundaries";
  // The run must move particles across the cuts for the test to mean anything.
  const double moved = world().allreduce_max(double(crossed));
  if (world().size() > 1) EXPECT_GT(moved, 0.0);
  if (world().rank() == 0)
    std::printf("[ %s on %d x %d blocks: %zu particles, gauss %.2e, most arrivals in a block %.0f ]\n", name,
                world().size() / ranks_y, ranks_y, total, gauss, moved);
}

const std::vector<Case> kCases = {
    Case{"langmuir_cic_yee", kLangmuir, {}},
    Case{"langmuir_tsc_ck_vay", kLangmuir, {"solver.shape=\"tsc\"", "solver.field=\"ck\"", "solver.pusher=\"vay\""}},
    Case{"hole_boring_tsc_ck", kHoleBoring, {}},
    Case{"hole_boring_gaussian_laser", kHoleBoring, {"laser.transverse=\"gaussian\"", "laser.waist=0.2", "laser.y_centre=0.3"}},
    Case{"hole_boring_open_y_hc", kHoleBoring, {"grid.boundary_y=\"open\"", "solver.pusher=\"higuera_cary\"",
                                                "species.0.boundary_ymin=\"reflect\"", "species.0.boundary_ymax=\"absorb\"",
                                                "species.1.boundary_ymin=\"absorb\"", "species.1.boundary_ymax=\"thermal\""}},
    Case{"hole_boring_cic_yee_pml", kHoleBoring, {"solver.shape=\"cic\"", "solver.field=\"yee\"", "grid.boundary_x=\"pml\"", "grid.pml_cells=6"}}};

class PicSlabs : public testing::TestWithParam<Case> {};

TEST_P(PicSlabs, SameBitsAsOneProcessAndConservesParticlesAndCharge) {
  check_against_one_process(GetParam().name, config(GetParam().toml, GetParam().overrides), 1);
}

INSTANTIATE_TEST_SUITE_P(Cases, PicSlabs, testing::ValuesIn(kCases),
                         [](const testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// A checkpoint of the state gathered from every rank, resumed on a communicator of one rank
// fewer (or on one): the bits of the run that never stopped.
TEST(PicSlabs, CheckpointResumesOnAnotherRankCount) {
  const PicConfig c = config(kHoleBoring, {});
  const fs::path ck = fs::temp_directory_path() / ("nbody_pic_mpi_ck_" + std::to_string(world().broadcast_value<long long>(::getpid(), 0)));
  PicSimulation sim = build_pic_simulation(c);
  {
    DomainPic d(sim, world());
    for (int k = 0; k < 25; ++k) d.step();
    d.gather(sim);
  }
  if (world().rank() == 0) save_pic_checkpoint(ck.string(), sim);
  world().barrier();
  // Resumed on ranks 0 .. P-2 (one rank alone when P <= 2).
  const bool member = world().size() == 1 || world().rank() < world().size() - 1;
  const std::shared_ptr<comm::Communicator> fewer = world().split(member);
  if (member) {
    PicSimulation resumed = build_pic_simulation(c, false);
    load_pic_checkpoint(ck.string(), resumed);
    EXPECT_EQ(resumed.step_count(), 25);
    ASSERT_EQ(resumed.particle_ids().size(), resumed.species().size()) << "the ids travel with the checkpoint";
    DomainPic d(resumed, *fewer);
    for (int k = 25; k < 60; ++k) d.step();
    d.gather(resumed);
    expect_same_bits(resumed, run_alone(c, 60));
  }
  world().barrier();
  if (world().rank() == 0) fs::remove(ck);
}

// The slab code and the plain single-process loop (the default CPU deposition) differ only by
// the order of the current sums: the same physics to rounding.
TEST(PicSlabs, AgreesWithThePlainLoopToRounding) {
  // (the PML case without the thermal boundary, whose random numbers the plain loop keys by the
  // particle's index rather than its id)
  const std::vector<std::pair<const char*, PicConfig>> cases = {
      {"langmuir_cic", config(kLangmuir, {"solver.shape=\"cic\""})},
      {"langmuir_tsc", config(kLangmuir, {"solver.shape=\"tsc\""})},
      {"hole_boring_pml", config(kHoleBoring, {"grid.boundary_x=\"pml\"", "grid.pml_cells=6", "species.0.boundary_xmin=\"reflect\""})}};
  for (const auto& [shape, c] : cases) {
    const int steps = int(pic_steps(c));
    PicSimulation plain = build_pic_simulation(c);
    plain.run(steps);
    PicSimulation slabs = build_pic_simulation(c);
    DomainPic d(slabs, world());
    for (int k = 0; k < steps; ++k) d.step();
    d.gather(slabs);
    double top = 0, diff = 0;
    const GridGeometry& g = plain.settings().geom;
    for (int comp = kEx; comp <= kBz; ++comp)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          top = std::max(top, std::fabs(plain.fields().at(comp, i, j)));
          diff = std::max(diff, std::fabs(plain.fields().at(comp, i, j) - slabs.fields().at(comp, i, j)));
        }
    EXPECT_GT(top, 1e-3) << "a wave to compare";
    EXPECT_LT(diff / top, 1e-10) << shape;
    EXPECT_GT(diff, 0.0) << "(the summation order does differ)";
    double dx = 0;
    for (std::size_t k = 0; k < plain.species().size(); ++k) {
      ASSERT_EQ(plain.species()[k].size(), slabs.species()[k].size());
      for (std::size_t p = 0; p < plain.species()[k].size(); ++p)
        dx = std::max(dx, std::fabs(plain.species()[k].ux[p] - slabs.species()[k].ux[p]));
    }
    EXPECT_LT(dx, 1e-11) << shape;
    if (world().rank() == 0) std::printf("[ %s: fields within %.1e, u_x within %.1e of the plain loop ]\n", shape, diff / top, dx);
  }
}

// The slabs move with the target (every 5 steps, when the costliest slab is 5 % over the mean)
// and the run keeps one process's bits; particles and their ids are all there.
TEST(PicSlabsBalance, MovingTargetKeepsTheBitsAndEvensTheLoad) {
  const PicConfig c = config(testcfg::kMovingTarget, {});
  const int steps = int(pic_steps(c));
  BalanceSettings b;
  b.every = 5, b.threshold = 0.05, b.cell_cost = 1.0;
  PicSimulation sim = build_pic_simulation(c);
  std::size_t loaded = 0;
  for (const Species& s : sim.species()) loaded += s.size();
  DomainPic d(sim, world());
  const std::vector<int> even = d.layout().starts;
  for (int k = 1; k <= steps; ++k) {
    d.step();
    if (k % b.every == 0) d.balance(b);
  }
  const std::vector<double> cost = world().allgatherv(std::span<const double>(d.column_costs(b.cell_cost)));
  const double now = slab_imbalance(cost, d.layout().starts), before = slab_imbalance(cost, even);
  d.gather(sim);
  expect_same_bits(sim, run_alone(c, steps));
  std::size_t total = 0;
  for (std::size_t k = 0; k < sim.species().size(); ++k) {
    total += sim.species()[k].size();
    const auto& id = sim.particle_ids()[k];
    EXPECT_TRUE(std::adjacent_find(id.begin(), id.end()) == id.end()) << "each id once";
  }
  EXPECT_EQ(total, loaded);
  if (world().size() > 1) {
    EXPECT_GT(d.rebalances(), 1) << "the boundaries follow the target";
    EXPECT_LT(now, before) << "more even than the even split";
    // (64 columns: on 4 ranks a slab of the dense target holds few, heavy columns, and whole
    // columns cannot split it finer)
    EXPECT_LT(now, world().size() <= 3 ? 1.35 : 1.5);
  } else {
    EXPECT_EQ(d.rebalances(), 0);
  }
  if (world().rank() == 0)
    std::printf("[ moving target on %d ranks: %d rebalances, imbalance %.3f (even split %.3f) ]\n", world().size(),
                d.rebalances(), now, before);
}

// Redistribution to any layout (here every slab's start moved, some a long way) keeps the state:
// the gathered state is the same before and after, and the run goes on with one process's bits.
TEST(PicSlabsBalance, RedistributeToAnyLayoutKeepsTheState) {
  if (world().size() < 2) GTEST_SKIP() << "needs several ranks";
  for (const char* toml : {kHoleBoring, kLangmuir}) {
    const PicConfig c = config(toml, {});
    PicSimulation sim = build_pic_simulation(c);
    DomainPic d(sim, world());
    for (int k = 0; k < 7; ++k) d.step();
    PicSimulation before = build_pic_simulation(c);
    d.gather(before);
    const int P = world().size(), nx = c.nx;
    std::vector<int> starts(std::size_t(P) + 1);
    for (int r = 0; r < P; ++r) starts[std::size_t(r)] = r * kMinSlabColumns;  // all but the last squeezed left
    starts.back() = nx;
    d.redistribute(starts);
    PicSimulation after = build_pic_simulation(c);
    d.gather(after);
    expect_same_bits(after, before);
    for (int k = 0; k < 5; ++k) d.step();
    d.redistribute(slab_layout(nx, c.field_bc.x == FieldBoundary::periodic, P, 0).starts);
    for (int k = 0; k < 5; ++k) d.step();
    d.gather(sim);
    expect_same_bits(sim, run_alone(c, 17));
    EXPECT_EQ(d.rebalances(), 2);
  }
}

// The block layout: ranks row by row, neighbours along x within the block row and along y
// within the block column, wrapped on periodic axes.
TEST(PicBlocks, LayoutNeighboursAndCuts) {
  const SlabLayout l = block_layout(40, 30, true, false, 6, 3, 4);  // 2 x 3 blocks, rank 4: bx 0, by 2
  EXPECT_EQ(l.ranks_x, 2);
  EXPECT_EQ(l.ranks_y, 3);
  EXPECT_EQ(l.bx, 0);
  EXPECT_EQ(l.by, 2);
  EXPECT_EQ(l.i0, 0);
  EXPECT_EQ(l.i1, 20);
  EXPECT_EQ(l.j0, 20);
  EXPECT_EQ(l.j1, 30);
  EXPECT_EQ(l.left, 5);  // periodic x: the block row's other block
  EXPECT_EQ(l.right, 5);
  EXPECT_EQ(l.down, 2);
  EXPECT_EQ(l.up, -1);  // open y: the global edge
  const SlabLayout p = block_layout(40, 30, false, true, 6, 3, 1);  // bx 1, by 0
  EXPECT_EQ(p.left, 0);
  EXPECT_EQ(p.right, -1);
  EXPECT_EQ(p.down, 5);  // periodic y: the top block row
  EXPECT_EQ(p.up, 3);
  const SlabLayout one = block_layout(40, 30, true, true, 3, 1, 2);  // slabs: one block row
  EXPECT_EQ(one.j0, 0);
  EXPECT_EQ(one.j1, 30);
  EXPECT_EQ(one.down, -1);
  EXPECT_EQ(one.up, -1);
  EXPECT_EQ(one.left, 1);
  EXPECT_EQ(one.right, 0);
  EXPECT_THROW((void)block_layout(40, 30, true, true, 6, 4, 0), Error);
}

// Every way to cut the grid into blocks on this many ranks (ranks_y = each divisor > 1 of the
// rank count): the bits of one process, every particle once, Gauss's law across the cuts, and
// particles that crossed the cuts.
class PicBlocks : public testing::TestWithParam<Case> {};

TEST_P(PicBlocks, SameBitsAsOneProcessOnEveryBlockShape) {
  const int P = world().size();
  if (P < 2) GTEST_SKIP() << "needs several ranks";
  for (int ranks_y = 2; ranks_y <= P; ++ranks_y) {
    if (P % ranks_y != 0) continue;
    std::vector<std::string> o = GetParam().overrides;
    o.push_back("grid.ny=" + std::to_string(8 * ranks_y + 3));  // (uneven rows)
    check_against_one_process(GetParam().name, config(GetParam().toml, o), ranks_y);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, PicBlocks, testing::ValuesIn(kCases),
                         [](const testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// A windowed load is the whole load's part: a partition of the grid into windows gives every
// particle of the whole load once, with its id and the same bits.
TEST(PicBlocks, WindowedLoadIsThePartOfTheWholeLoad) {
  const PicConfig c = config(kHoleBoring, {"grid.ny=13"});
  const PicSimulation whole = build_pic_simulation(c);
  for (const std::array<int, 2>& cut : {std::array<int, 2>{0, 0}, std::array<int, 2>{17, 5}, std::array<int, 2>{40, 9}}) {
    std::vector<std::vector<int>> seen(whole.species().size());
    for (std::size_t k = 0; k < seen.size(); ++k) seen[k].assign(whole.species()[k].size(), 0);
    for (int q = 0; q < 4; ++q) {
      const CellWindow w{q % 2 ? cut[0] : 0, q % 2 ? c.nx : cut[0], q / 2 ? cut[1] : 0, q / 2 ? c.ny : cut[1]};
      const PicSimulation part = build_pic_simulation(c, true, &w);
      ASSERT_EQ(part.particle_ids().size(), whole.species().size());
      for (std::size_t k = 0; k < seen.size(); ++k) {
        const Species& a = part.species()[k];
        const Species& b = whole.species()[k];
        const auto& id = part.particle_ids()[k];
        ASSERT_EQ(id.size(), a.size());
        EXPECT_TRUE(std::is_sorted(id.begin(), id.end()));
        for (std::size_t p = 0; p < a.size(); ++p) {
          ASSERT_LT(id[p], b.size());
          ++seen[k][std::size_t(id[p])];
          EXPECT_TRUE(a.x[p] == b.x[id[p]] && a.y[p] == b.y[id[p]] && a.ux[p] == b.ux[id[p]] && a.w[p] == b.w[id[p]])
              << a.name << " particle " << id[p];
        }
      }
    }
    for (std::size_t k = 0; k < seen.size(); ++k)
      EXPECT_TRUE(std::all_of(seen[k].begin(), seen[k].end(), [](int n) { return n == 1; })) << "every particle once";
  }
}

// The program's start under mpirun: rank 0 loads the whole plasma, every other rank its block's
// cells and one around them (rank_load_window); the run keeps one process's bits, in slabs and
// in blocks.
TEST(PicBlocks, RankLocalLoadKeepsTheBits) {
  const int P = world().size();
  for (int ranks_y = 1; ranks_y <= P; ++ranks_y) {
    if (P % ranks_y != 0) continue;
    const PicConfig c = config(kLangmuir, {"grid.ny=" + std::to_string(8 * ranks_y + 1), "parallel.ranks_y=" + std::to_string(ranks_y)});
    const std::optional<CellWindow> w = rank_load_window(c);
    EXPECT_EQ(w.has_value(), world().rank() > 0);
    PicSimulation sim = build_pic_simulation(c, true, w ? &*w : nullptr);
    DomainPic d(sim, world(), ranks_y);
    for (int k = 0; k < 20; ++k) d.step();
    d.gather(sim);
    const PicSimulation alone = run_alone(c, 20);
    expect_same_bits(sim, alone);
  }
}

// The load balance over blocks moves the block columns' starts (the same in every block row,
// the costs summed over the rows) and keeps one process's bits.
TEST(PicBlocksBalance, MovingTargetKeepsTheBits) {
  const int P = world().size();
  if (P < 4 || P % 2 != 0) GTEST_SKIP() << "needs two block rows of at least two blocks";
  const PicConfig c = config(testcfg::kMovingTarget, {"grid.ny=16"});
  const int steps = int(pic_steps(c));
  BalanceSettings b;
  b.every = 5, b.threshold = 0.05, b.cell_cost = 1.0;
  PicSimulation sim = build_pic_simulation(c);
  DomainPic d(sim, world(), 2);
  for (int k = 1; k <= steps; ++k) {
    d.step();
    if (k % b.every == 0) d.balance(b);
  }
  d.gather(sim);
  expect_same_bits(sim, run_alone(c, steps));
  EXPECT_GT(d.rebalances(), 1) << "the boundaries follow the target";
  // Every block row has the same column starts.
  const std::vector<int> starts = d.layout().starts;
  const std::vector<int> all = world().allgatherv(std::span<const int>(starts));
  for (std::size_t k = 0; k < all.size(); ++k) EXPECT_EQ(all[k], starts[k % starts.size()]);
  if (world().rank() == 0)
    std::printf("[ moving target on %d x 2 blocks: %d rebalances ]\n", P / 2, d.rebalances());
}

// Bad layouts are refused with one clear line (exit status 2 from the program).
TEST(PicSlabs, TooNarrowSlabsAreRefused) {
  if (world().size() < 2) GTEST_SKIP() << "needs several ranks";
  try {
    (void)config(kLangmuir, {"grid.nx=" + std::to_string(8 * world().size() - 1)});
    ADD_FAILURE() << "not refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_status(), 2);
    EXPECT_NE(std::string(e.what()).find("grid.nx"), std::string::npos) << e.what();
  }
  // Block rows that do not divide the ranks, or too few cell rows for them.
  for (const std::vector<std::string>& o :
       {std::vector<std::string>{"parallel.ranks_y=" + std::to_string(world().size() + 1)},
        std::vector<std::string>{"parallel.ranks_y=" + std::to_string(world().size()), "grid.ny=" + std::to_string(8 * world().size() - 1)}}) {
    try {
      (void)config(kLangmuir, o);
      ADD_FAILURE() << "not refused: " << o.back();
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_status(), 2);
      EXPECT_NE(std::string(e.what()).find(o.size() == 1 ? "parallel.ranks_y" : "grid.ny"), std::string::npos) << e.what();
    }
  }
}

// parallel.exchange = "mpi" hands GPU buffers to MPI: refused with one clear line where the MPI
// library does not report CUDA support (Debian's Open MPI is built without it) or
// NBODY_MPI_CUDA_AWARE=0 says so; NBODY_MPI_CUDA_AWARE=1 passes that check (a machine without a
// CUDA device then refuses solver.device).
TEST(PicSlabs, MpiExchangeNeedsACudaAwareLibrary) {
  auto refusal = [](const char* env) {
    if (env) ::setenv("NBODY_MPI_CUDA_AWARE", env, 1);
    else ::unsetenv("NBODY_MPI_CUDA_AWARE");
    std::string what;
    try {
      (void)config(kLangmuir, {"solver.device=\"cuda\"", "parallel.exchange=\"mpi\""});
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_status(), 2) << e.what();
      what = e.what();
    }
    ::unsetenv("NBODY_MPI_CUDA_AWARE");
    return what;
  };
  const std::string key = "parallel.exchange: \"mpi\" hands GPU buffers to MPI";
  const std::string off = refusal("0");
  EXPECT_NE(off.find(key), std::string::npos) << off;
  EXPECT_NE(off.find("NBODY_MPI_CUDA_AWARE=0"), std::string::npos) << off;
  EXPECT_NE(off.find("\"auto\""), std::string::npos) << "the way out named: " << off;
  if (!world().device_buffers_supported()) {
    const std::string asked = refusal(nullptr);
    EXPECT_NE(asked.find(key), std::string::npos) << asked;
    EXPECT_NE(asked.find(world().device_buffer_support().how), std::string::npos) << asked;
  }
  const std::string on = refusal("1");
  EXPECT_EQ(on.find("parallel.exchange"), std::string::npos) << on;
  // "auto" is never refused: it falls back to the host.
  EXPECT_EQ(config(kLangmuir, {"parallel.exchange=\"auto\""}).exchange, GuardExchange::automatic);
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
