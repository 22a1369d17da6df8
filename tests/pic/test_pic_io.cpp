// The PIC configuration (validation errors), the CLI's exit statuses, openPMD files read back,
// and bit-exact restart.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <sys/wait.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "nbody/error.hpp"
#include "pic/output/checkpoint.hpp"
#include "pic/driver/config.hpp"
#include "pic/parallel/domain.hpp"
#include "pic/cuda/pic_gpu.hpp"
#include "pic/output/openpmd.hpp"
#include "pic/output/reduced_output.hpp"
#include "pic/driver/run.hpp"
#include "pic_test_util.hpp"

#if NBODY_HAVE_HDF5
#include <hdf5.h>
#endif

namespace nbody::pic {
namespace {

namespace fs = std::filesystem;

const char* kBase = R"(
[grid]
nx = 64
ny = 4
dx = 0.02
dy = 0.04
x0 = -0.5
boundary_x = "open"
[time]
t_end = 0.5
courant = 0.95
[solver]
field = "yee"
shape = "tsc"
[laser]
a0 = 2.0
polarisation = "circular"
envelope = "sin2"
duration = 2.0
[[species]]
name = "electron"
ppc = 4
density = 4.0
x_start = 0.1
temperature_keV = 2.0
boundary_xmin = "thermal"
boundary_xmax = "absorb"
[[species]]
name = "deuteron"
ppc = 2
density = 4.0
x_start = 0.1
boundary_xmin = "reflect"
boundary_xmax = "absorb"
)";

using test::temp_dir;

fs::path write(const fs::path& dir, const std::string& text) {
  const fs::path p = dir / "pic.toml";
  std::ofstream(p) << text;
  return p;
}

std::string input_error(const std::string& toml, const std::vector<std::string>& overrides = {}) {
  const fs::path d = temp_dir("cfg");
  try {
    (void)read_pic_config(write(d, toml).string(), overrides);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_status(), 2);
    return e.what();
  }
  return "";
}

TEST(PicConfig, ReadsTheBaseConfiguration) {
  const fs::path d = temp_dir("base");
  const PicConfig c = read_pic_config(write(d, kBase).string(), {});
  EXPECT_EQ(c.nx, 64);
  EXPECT_EQ(c.species.size(), 2u);
  EXPECT_TRUE(c.laser.enabled);
  EXPECT_EQ(c.species[0].ppc_x * c.species[0].ppc_y, 4);
  PicSimulation sim = build_pic_simulation(c);
  EXPECT_DOUBLE_EQ(sim.species()[1].mass, 3670.48);
  EXPECT_GT(sim.species()[0].size(), 0u);
}

TEST(PicConfig, ErrorsNameTheProblem) {
  EXPECT_NE(input_error(kBase, {"time.dt=0.02"}).find("time.dt"), std::string::npos);  // Yee Courant
  EXPECT_NE(input_error(kBase, {"time.dt=0.02"}).find("stability limit"), std::string::npos);
  EXPECT_NE(input_error(kBase, {"species.0.x_start=5.0"}).find("has no particles"), std::string::npos);
  EXPECT_NE(input_error(kBase, {"laser.a0=0"}).find("give a0 or intensity"), std::string::npos);
  EXPECT_NE(input_error(kBase, {"grid.nxx=3"}).find("grid.nxx: unknown key"), std::string::npos);
  EXPECT_NE(input_error(kBase, {"solver.field=fdtd"}).find("solver.field"), std::string::npos);
  EXPECT_NE(input_error(kBase, {"species.1.boundary_xmax=periodic"}).find("boundary_xmax"), std::string::npos);
  EXPECT_NE(input_error(std::string(kBase) + "[[species]]\nname = \"muon\"\ndensity = 1.0\n").find("no predefined species"),
            std::string::npos);
  // c dt = dx is the CK limit in vacuum, but this plasma (omega_p = 2) makes it unstable.
  EXPECT_NE(input_error(kBase, {"solver.field=ck", "time.dt=0.02"}).find("unstable with the plasma"), std::string::npos);
  EXPECT_EQ(input_error(kBase, {"solver.field=ck", "time.dt=0.0195"}), "");
  EXPECT_EQ(input_error(kBase, {"grid.boundary_x=pml"}), "");
  EXPECT_NE(input_error(kBase, {"grid.boundary_x=pml", "grid.pml_cells=40"}).find("grid.pml_cells"), std::string::npos);
  EXPECT_NE(input_error(kBase, {"solver.deposit=scatter"}).find("solver.deposit"), std::string::npos);
  EXPECT_NE(input_error(kBase, {"solver.sort_every=-1"}).find("solver.sort_every"), std::string::npos);
  EXPECT_NE(input_error(kBase, {"solver.empty_ratio=1.5"}).find("solver.empty_ratio"), std::string::npos);
  EXPECT_NE(input_error(kBase, {"solver.empty_ratio=\"x\""}).find("solver.empty_ratio"), std::string::npos);
  EXPECT_NE(input_error(kBase, {"balance.every=-1"}).find("balance.every"), std::string::npos);
  EXPECT_NE(input_error(kBase, {"balance.threshold=-0.1"}).find("balance.threshold"), std::string::npos);
  EXPECT_NE(input_error(kBase, {"balance.cell_cost=\"x\""}).find("balance.cell_cost"), std::string::npos);
  EXPECT_NE(input_error(kBase, {"balance.often=3"}).find("balance.often: unknown key"), std::string::npos);
  EXPECT_NE(input_error(kBase, {"parallel.ranks_y=0"}).find("parallel.ranks_y"), std::string::npos);
  EXPECT_NE(input_error(kBase, {"parallel.ranks_y=\"two\""}).find("parallel.ranks_y"), std::string::npos);
  EXPECT_NE(input_error(kBase, {"parallel.ranks_x=2"}).find("parallel.ranks_x: unknown key"), std::string::npos);
}

TEST(PicConfig, ReadsTheLoadBalance) {
  const fs::path d = temp_dir("balance");
  const PicConfig none = read_pic_config(write(d, kBase).string(), {});
  EXPECT_EQ(none.balance.every, 0) << "off unless asked for";
  const PicConfig c = read_pic_config(write(d, std::string(kBase) + "[balance]\nevery = 50\nthreshold = 0.2\ncell_cost = 0.5\n").string(), {});
  EXPECT_EQ(c.balance.every, 50);
  EXPECT_DOUBLE_EQ(c.balance.threshold, 0.2);
  EXPECT_DOUBLE_EQ(c.balance.cell_cost, 0.5);
  EXPECT_EQ(read_pic_config(write(d, kBase).string(), {"balance.every=7"}).balance.every, 7);
}

TEST(PicConfig, ReadsTheBlockRows) {
  const fs::path d = temp_dir("parallel");
  EXPECT_EQ(read_pic_config(write(d, kBase).string(), {}).ranks_y, 0) << "\"auto\" unless asked for";
  EXPECT_EQ(read_pic_config(write(d, kBase).string(), {"parallel.ranks_y=1"}).ranks_y, 1);
  EXPECT_EQ(read_pic_config(write(d, std::string(kBase) + "[parallel]\nranks_y = 4\n").string(), {}).ranks_y, 4);
  // (one process: nothing to cut, the key is kept for the run under mpirun)
  EXPECT_EQ(read_pic_config(write(d, kBase).string(), {"parallel.ranks_y=3"}).ranks_y, 3);
  EXPECT_EQ(block_shape_problem(64, 16, 4, 2).first, "");
  EXPECT_EQ(block_shape_problem(64, 16, 4, 3).first, "parallel.ranks_y");
  EXPECT_EQ(block_shape_problem(15, 16, 4, 2).first, "grid.nx");
  EXPECT_EQ(block_shape_problem(64, 15, 4, 2).first, "grid.ny");
}

// parallel.exchange: "host" (the default), "ipc" (GPU to GPU, CUDA IPC), "mpi" (GPU buffers to
// CUDA-aware MPI) or "auto"; "ipc" and "mpi" need the GPU, "mpi" an MPI library that reports CUDA
// support (never this process's: no MPI here, whatever NBODY_MPI_CUDA_AWARE says).
TEST(PicConfig, ReadsTheExchange) {
  const fs::path d = temp_dir("exchange");
  EXPECT_EQ(read_pic_config(write(d, kBase).string(), {}).exchange, GuardExchange::host);
  EXPECT_EQ(read_pic_config(write(d, kBase).string(), {"parallel.exchange=\"host\""}).exchange, GuardExchange::host);
  // (on the CPU "auto" is the host's exchange: nothing to refuse)
  EXPECT_EQ(read_pic_config(write(d, kBase).string(), {"parallel.exchange=\"auto\""}).exchange, GuardExchange::automatic);
  comm::NullCommunicator one;
  EXPECT_EQ(resolve_guard_exchange(GuardExchange::automatic, one), GuardExchange::host);
  EXPECT_EQ(resolve_guard_exchange(GuardExchange::ipc, one), GuardExchange::ipc);
  EXPECT_STREQ(guard_exchange_name(GuardExchange::automatic), "auto");
  auto refusal = [&](const std::vector<std::string>& o) {
    try {
      (void)read_pic_config(write(d, kBase).string(), o);
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_status(), 2) << o.back();
      return std::string(e.what());
    }
    ADD_FAILURE() << o.back() << " not refused";
    return std::string();
  };
  for (const char* bad : {"parallel.exchange=\"nccl\"", "parallel.exchange=\"ipc\"", "parallel.exchange=\"mpi\"",
                          "parallel.exchange=2"})
    EXPECT_NE(refusal({bad}).find("parallel.exchange"), std::string::npos) << bad;
  const std::string unknown = refusal({"parallel.exchange=\"gpudirect\""});
  for (const char* choice : {"\"host\"", "\"ipc\"", "\"mpi\"", "\"auto\""})
    EXPECT_NE(unknown.find(choice), std::string::npos) << unknown;
  EXPECT_NE(refusal({"parallel.exchange=\"mpi\""}).find("solver.device"), std::string::npos) << "on the CPU path";
  // On the GPU path: refused before the device is looked for, with the reason (no MPI here).
  const std::vector<std::string> gpu_mpi = {"solver.device=\"cuda\"", "parallel.exchange=\"mpi\""};
  const std::string no_mpi = refusal(gpu_mpi);
  EXPECT_NE(no_mpi.find("parallel.exchange: \"mpi\" hands GPU buffers to MPI"), std::string::npos) << no_mpi;
  EXPECT_NE(no_mpi.find("there is no MPI"), std::string::npos) << no_mpi;
  ::setenv("NBODY_MPI_CUDA_AWARE", "1", 1);
  EXPECT_FALSE(comm::NullCommunicator{}.device_buffers_supported()) << "one process sends nothing";
  EXPECT_NE(refusal(gpu_mpi).find("parallel.exchange"), std::string::npos);
  ::unsetenv("NBODY_MPI_CUDA_AWARE");
}

// "auto": the shape whose costliest block carries the least work (particles and cells), then the
// shortest cuts.
TEST(PicConfig, AutoBlockRowsFollowTheLoad) {
  const fs::path d = temp_dir("auto");
  const PicConfig uniform = read_pic_config(write(d, kBase).string(), {"parallel.ranks_y=\"auto\""});  // (the default)
  EXPECT_EQ(uniform.ranks_y, 0);
  EXPECT_EQ(block_rows(uniform, 1), 1) << "one process: no blocks";
  EXPECT_EQ(block_rows(read_pic_config(write(d, kBase).string(), {"parallel.ranks_y=3"}), 4), 3) << "as asked";
  // A plasma filling the grid: every shape carries the same work, the slabs' cuts are the shortest
  // (the base grid is wider than it is tall).
  PicConfig c = uniform;
  c.ny = 32;
  for (SpeciesConfig& s : c.species) s.profile.x_start = c.x0 - 1.0, s.ppc_x = 8, s.ppc_y = 8;
  EXPECT_EQ(block_rows(c, 2), 1);
  // A plasma in the left quarter of the window: cuts along y share it (1 x 4 blocks).
  for (SpeciesConfig& s : c.species) s.profile.x_end = c.x0 + 0.25 * c.nx * c.dx;
  EXPECT_EQ(block_rows(c, 4), 4);
  // With the load balance on, the slabs' boundaries follow the plasma along x: in the left half of
  // the window (32 columns, four slabs of 8 can share it) the slabs carry as little as any shape,
  // with the shortest cuts.
  c.balance.every = 10;
  for (SpeciesConfig& s : c.species) s.profile.x_end = c.x0 + 0.5 * c.nx * c.dx;
  EXPECT_EQ(block_rows(c, 4), 1);
  // A foil 8 columns thick across every row: the load balance cannot cut a slab thinner than 8
  // columns, y cuts share the foil (1 x 4 blocks).
  for (SpeciesConfig& s : c.species) s.profile.x_start = c.x0 + 10 * c.dx, s.profile.x_end = c.x0 + 18 * c.dx;
  EXPECT_EQ(block_rows(c, 4), 4);
  c.balance.every = 0;
  EXPECT_EQ(block_rows(c, 4), 4);
  // No shape fits: 0.
  c.ny = 7, c.nx = 7;
  EXPECT_EQ(block_rows(c, 2), 0);
  EXPECT_NE(input_error(kBase, {"parallel.ranks_y=\"many\""}).find("parallel.ranks_y"), std::string::npos);
}

TEST(PicConfig, ReadsTheDepositionKernelsAndTheSortingPolicy) {
  const fs::path d = temp_dir("deposit");
  const PicConfig c = read_pic_config(write(d, kBase).string(), {"solver.deposit=tiled", "solver.sort_every=20",
                                                                 "solver.empty_ratio=0.1"});
  EXPECT_EQ(c.deposit, "tiled");
  EXPECT_FALSE(c.deterministic);
  EXPECT_EQ(c.sort_every, 20);
  EXPECT_DOUBLE_EQ(c.empty_ratio, 0.1);
  EXPECT_EQ(deposit_kernel(c.deposit), DepositKernel::tiled);
  EXPECT_TRUE(read_pic_config(write(d, kBase).string(), {"solver.deposit=deterministic"}).deterministic);
}

// Every row of the deposition table (pic/cuda/deposit_kernels.hpp) through the configuration by
// its name: read back as that name, the row's kernel, with its help; a name of no row is refused
// with every row's name.
TEST(PicConfig, EveryDepositionKernelRoundTripsByName) {
  const fs::path d = temp_dir("deposit_table");
  ASSERT_FALSE(deposit_kernels().empty());
  for (const DepositKernelInfo& row : deposit_kernels()) {
    const std::string name(row.name);
    const PicConfig c = read_pic_config(write(d, kBase).string(), {"solver.deposit=" + name});
    EXPECT_EQ(c.deposit, name);
    EXPECT_EQ(deposit_kernel(c.deposit), row.kind) << name;
    EXPECT_EQ(deposit_kernel_info(row.kind).name, row.name);
    EXPECT_EQ(c.deterministic, row.kind == DepositKernel::deterministic) << name;
    EXPECT_FALSE(row.help.empty()) << name;
  }
  const std::string e = input_error(kBase, {"solver.deposit=nonesuch"});
  for (const DepositKernelInfo& row : deposit_kernels())
    EXPECT_NE(e.find(std::string(row.name)), std::string::npos) << e;
  EXPECT_THROW((void)deposit_kernel("nonesuch"), Error);
}

// Runs `command`, returns its exit status; stderr to `err`.
int shell(const std::string& command, const fs::path& err) {
  const int s = std::system((command + " >/dev/null 2>" + err.string()).c_str());
  return WIFEXITED(s) ? WEXITSTATUS(s) : -1;
}

TEST(PicCli, BadInputIsOneLineAndExitTwo) {
  const fs::path d = temp_dir("cli");
  const fs::path cfg = write(d, kBase);
  const std::string exe = NBODY_EXE_PATH;
  EXPECT_EQ(shell(exe + " pic run --config " + cfg.string() + " --set time.dt=0.5 --out " + (d / "o").string(), d / "e"), 2);
  std::ifstream in(d / "e");
  std::string line, more;
  std::getline(in, line);
  EXPECT_NE(line.find("time.dt"), std::string::npos) << line;
  EXPECT_FALSE(std::getline(in, more)) << "one line only";
  EXPECT_FALSE(fs::exists(d / "o")) << "nothing written for bad input";
  EXPECT_EQ(shell(exe + " pic run --config " + (d / "missing.toml").string(), d / "e"), 2);
  EXPECT_EQ(shell(exe + " pic run --config " + cfg.string() + " --out " + (d / "ok").string() + " --steps 5", d / "e"), 0);
  EXPECT_TRUE(fs::exists(d / "ok" / "diagnostics.csv"));
}

TEST(PicCli, CheckPassesAndPrintsTheMeasuredNumbers) {
  const fs::path d = temp_dir("check");
  const std::string exe = NBODY_EXE_PATH;
  const int s = std::system((exe + " pic check >" + (d / "out").string() + " 2>&1").c_str());
  ASSERT_TRUE(WIFEXITED(s));
  EXPECT_EQ(WEXITSTATUS(s), 0);
  std::ifstream in(d / "out");
  std::string line;
  int passes = 0;
  while (std::getline(in, line)) passes += line.rfind("pass ", 0) == 0;
  EXPECT_GE(passes, 9);
}

// A run of 30 steps resumed through the library to 60 (the same directory, so the same run id)
// ends with the checkpoint and diagnostics of the run that never stopped, byte for byte.
TEST(PicRestart, BitExactAcrossACheckpoint) {
  for (const std::string boundary : {"open", "pml"}) {
    const fs::path d = temp_dir("restart_" + boundary);
    const fs::path cfg = write(d, kBase);
    const std::vector<std::string> set = {"time.steps=60", "grid.boundary_x=" + boundary, "grid.pml_cells=8"};
    PicFlags into;
    into.out = (d / "run").string();
    const PicConfig c = read_pic_config(cfg.string(), set, into);
    PicSimulation a = build_pic_simulation(c);
    (void)run_pic(c, a);
    fs::rename(d / "run", d / "straight");
    PicFlags half = into;
    half.steps = 30;
    const PicConfig h = read_pic_config(cfg.string(), set, half);
    PicSimulation b = build_pic_simulation(h);
    (void)run_pic(h, b);
    PicFlags more;
    more.steps = 60;
    const PicRunResult r = resume_pic(d / "run", {}, more);
    EXPECT_EQ(r.first_step, 30);
    EXPECT_EQ(r.last_step, 60);
    for (const char* f : {"checkpoint_0000000060.ckpt", "diagnostics.csv"}) {
      std::ifstream x(d / "straight" / f, std::ios::binary), y(d / "run" / f, std::ios::binary);
      const std::string bx((std::istreambuf_iterator<char>(x)), {}), by((std::istreambuf_iterator<char>(y)), {});
      EXPECT_FALSE(bx.empty()) << f;
      EXPECT_TRUE(bx == by) << boundary << ": " << f << " differs";
    }
    // The final state the caller holds is the checkpoint's.
    PicSimulation back = build_pic_simulation(c, false);
    (void)load_pic_checkpoint((d / "straight" / "checkpoint_0000000060.ckpt").string(), back);
    for (int k = 0; k < kComponents; ++k) EXPECT_EQ(a.fields().data[k], back.fields().data[k]) << kComponentNames[k];
    for (int k = 0; k < kPsiCount; ++k) EXPECT_EQ(a.fields().psi[k], back.fields().psi[k]) << boundary;
  }
}

TEST(PicCheckpoint, RejectsAnotherConfiguration) {
  const fs::path d = temp_dir("ckbad");
  PicConfig c = read_pic_config(write(d, kBase).string(), {"time.steps=2"});
  PicSimulation a = build_pic_simulation(c);
  save_pic_checkpoint((d / "ck.bin").string(), a);
  PicConfig other = read_pic_config(write(d, kBase).string(), {"grid.nx=80"});
  PicSimulation b = build_pic_simulation(other, false);
  try {
    load_pic_checkpoint((d / "ck.bin").string(), b);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("grid"), std::string::npos);
  }
}

// A checkpoint whose state the step cannot take (written so, with a valid checksum) is refused,
// naming the file, the species, the particle, the value and why: a NaN position, a position
// outside the grid, an infinite momentum, a negative weight, a NaN field value. A resume of a run
// whose only checkpoint is such says why it found none usable.
TEST(PicCheckpoint, RefusesAStateTheStepCannotTake) {
  const fs::path d = temp_dir("ckstate");
  const PicConfig c = read_pic_config(write(d, kBase).string(), {"time.steps=2"});
  struct Case {
    const char* expect;
    void (*spoil)(PicSimulation&);
  };
  const Case cases[] = {
      {"particle 3: x = nan is not inside the grid", [](PicSimulation& s) { s.species()[0].x[3] = std::nan(""); }},
      {"particle 5: y = 1e+300 is not inside the grid", [](PicSimulation& s) { s.species()[0].y[5] = 1e300; }},
      {"particle 0: uz = inf is not finite", [](PicSimulation& s) { s.species()[0].uz[0] = INFINITY; }},
      {"particle 2: w = -1 is not a finite weight", [](PicSimulation& s) { s.species()[0].w[2] = -1; }},
      {"Ey[7] = nan is not finite", [](PicSimulation& s) { s.fields().data[kEy][7] = std::nan(""); }},
  };
  for (const Case& k : cases) {
    PicSimulation a = build_pic_simulation(c);
    ASSERT_GT(a.species()[0].size(), 5u);
    k.spoil(a);
    const std::string file = (d / "ck.bin").string();
    save_pic_checkpoint(file, a);
    PicSimulation b = build_pic_simulation(c, false);
    try {
      (void)load_pic_checkpoint(file, b);
      ADD_FAILURE() << "accepted: " << k.expect;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::input);
      const std::string what = e.what();
      EXPECT_NE(what.find(k.expect), std::string::npos) << what;
      EXPECT_NE(what.find(file), std::string::npos) << what;
      if (std::string(k.expect).find("particle") != std::string::npos)
        EXPECT_NE(what.find("species '" + a.species()[0].name + "'"), std::string::npos) << what;
    }
  }
  // Through a resume: the run's one checkpoint spoilt; the error says which file and why.
  PicFlags into;
  into.out = (d / "run").string();
  const PicConfig r = read_pic_config(write(d, kBase).string(), {"time.steps=4", "output.checkpoint_every=0"}, into);
  PicSimulation run = build_pic_simulation(r);
  (void)run_pic(r, run);
  fs::path only;
  for (const auto& e : fs::directory_iterator(d / "run"))
    if (e.path().extension() == ".ckpt") only = e.path();
  ASSERT_FALSE(only.empty());
  PicSimulation spoilt = build_pic_simulation(r, false);
  const std::optional<PicRunRecord> rec = load_pic_checkpoint(only.string(), spoilt);
  spoilt.species()[0].x[1] = std::nan("");
  save_pic_checkpoint(only.string(), spoilt, rec ? &*rec : nullptr);
  PicFlags more;
  more.steps = 8;
  try {
    (void)resume_pic(d / "run", {}, more);
    ADD_FAILURE() << "resumed from a NaN position";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    const std::string what = e.what();
    EXPECT_NE(what.find("no usable checkpoint"), std::string::npos) << what;
    EXPECT_NE(what.find("x = nan"), std::string::npos) << what;
  }
}


// The reduced CSV outputs (written with or without HDF5): the profile's weights add up to every
// particle's weight inside the grid, each species' spectrum to its whole weight, the fields on
// the middle row are the grid's, and the phase space holds every particle's weight.
TEST(PicReducedOutputs, ProfilesSpectraAndPhaseSpaceHoldEveryParticle) {
  const fs::path d = temp_dir("reduced");
  PicConfig c = read_pic_config(write(d, kBase).string(), {"time.steps=40"});
  PicSimulation sim = build_pic_simulation(c);
  sim.run(40);
  write_reduced_outputs(d.string(), sim);
  auto rows = [](const fs::path& p) {
    std::ifstream in(p);
    std::vector<std::vector<std::string>> out;
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::vector<std::string> cells;
      std::stringstream ss(line);
      std::string cell;
      while (std::getline(ss, cell, ',')) cells.push_back(cell);
      out.push_back(cells);
    }
    return out;
  };
  const auto profile = rows(d / "profile_00000040.csv");
  ASSERT_EQ(profile.size(), std::size_t(c.nx));
  const GridGeometry& g = sim.settings().geom;
  const int mid = g.ny / 2;
  for (std::size_t s = 0; s < sim.species().size(); ++s) {
    const Species& sp = sim.species()[s];
    double inside = 0, whole = 0;
    for (std::size_t k = 0; k < sp.size(); ++k) {
      whole += sp.w[k];
      if (sp.x[k] >= g.x0 && sp.x[k] < g.x0 + g.lx()) inside += sp.w[k];
    }
    double profile_sum = 0;
    for (const auto& r : profile) profile_sum += std::stod(r[1 + s]);
    EXPECT_NEAR(profile_sum, inside, 1e-9 * whole) << sp.name;
    double spectrum_sum = 0, phase_sum = 0;
    for (const auto& r : rows(d / "spectrum_00000040.csv"))
      if (r[0] == sp.name) spectrum_sum += std::stod(r[3]);
    for (const auto& r : rows(d / "phase_00000040.csv"))
      if (r[0] == sp.name) phase_sum += std::stod(r[3]);
    EXPECT_NEAR(spectrum_sum, whole, 1e-9 * whole) << sp.name;
    EXPECT_NEAR(phase_sum, whole, 1e-9 * whole) << sp.name;
  }
  const std::size_t ey_col = 1 + sim.species().size();
  double peak = 0;
  for (int i = 0; i < g.nx; ++i) {
    EXPECT_NEAR(std::stod(profile[std::size_t(i)][ey_col]), sim.fields().at(kEy, i, mid), 1e-8 * (1 + std::fabs(sim.fields().at(kEy, i, mid))));
    peak = std::max(peak, std::fabs(sim.fields().at(kEy, i, mid)));
  }
  EXPECT_GT(peak, 0.1);  // the laser is in
}

#if NBODY_HAVE_HDF5
std::string read_string_attr(hid_t obj, const char* name) {
  const hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  const hid_t t = H5Aget_type(a);
  std::string s(H5Tget_size(t), '\0');
  H5Aread(a, t, s.data());
  H5Tclose(t);
  H5Aclose(a);
  return s;
}

TEST(PicOpenPmd, FileReadsBackWithTheStandardLayout) {
  const fs::path d = temp_dir("openpmd");
  PicConfig c = read_pic_config(write(d, kBase).string(), {"time.steps=40"});
  PicSimulation sim = build_pic_simulation(c);
  sim.run(40);
  sim.compute_rho();
  const std::string path = write_openpmd(d.string(), sim, 1e-6);
  EXPECT_EQ(fs::path(path).filename().string(), "pic_00000040.h5");
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  EXPECT_EQ(read_string_attr(f, "openPMD"), "1.1.0");
  EXPECT_EQ(read_string_attr(f, "basePath"), "/data/%T/");
  const hid_t ds = H5Dopen2(f, "/data/40/meshes/E/y", H5P_DEFAULT);
  ASSERT_GE(ds, 0);
  const hid_t space = H5Dget_space(ds);
  hsize_t dims[2];
  H5Sget_simple_extent_dims(space, dims, nullptr);
  EXPECT_EQ(dims[0], hsize_t(c.nx + 1));  // E[i][j]: x first (axisLabels x, y)
  EXPECT_EQ(dims[1], hsize_t(c.ny + 1));
  std::vector<double> ey(dims[0] * dims[1]);
  H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, ey.data());
  double worst = 0, peak = 0;
  for (int j = 0; j <= c.ny; ++j)
    for (int i = 0; i <= c.nx; ++i) {
      worst = std::max(worst, std::fabs(ey[std::size_t(i) * dims[1] + std::size_t(j)] - sim.fields().at(kEy, i, j)));
      peak = std::max(peak, std::fabs(sim.fields().at(kEy, i, j)));
    }
  EXPECT_EQ(worst, 0.0);
  EXPECT_GT(peak, 0.1);  // the laser is in
  H5Sclose(space);
  H5Dclose(ds);
  const hid_t px = H5Dopen2(f, "/data/40/particles/electron/position/x", H5P_DEFAULT);
  ASSERT_GE(px, 0);
  const hid_t ps = H5Dget_space(px);
  hsize_t n = 0;
  H5Sget_simple_extent_dims(ps, &n, nullptr);
  EXPECT_EQ(n, sim.species()[0].size());
  H5Sclose(ps);
  H5Dclose(px);
  H5Fclose(f);
}
#endif

}  // namespace
}  // namespace nbody::pic
