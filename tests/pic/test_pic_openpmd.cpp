// The particles' stable ids on one process, and the openPMD files: author and date from the
// environment, the meshes' layout, timeOffset, the id record, the same state gives the same
// bytes, a write that fails (a file size limit) ends the run with one error line, not a crash.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "nbody/error.hpp"
#include "pic/cpu/simulation.hpp"
#include "pic/output/openpmd.hpp"
#include "pic_test_util.hpp"

#if NBODY_HAVE_HDF5
#include <hdf5.h>
#endif

namespace nbody::pic {
namespace {

namespace fs = std::filesystem;

using test::temp_dir;

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Test particles on a 32 x 8 grid, open along x (absorbing particle boundaries), periodic along y,
// no fields: each particle moves in a straight line, and many of them leave within 60 steps.
// Each particle's weight is its index in the load (its stable id) plus one: a tag that the motion
// keeps (the weights do not enter the motion of test particles).
PicSimulation drifting_test_particles() {
  PicSettings s;
  s.geom.nx = 32, s.geom.ny = 8;
  s.geom.dx = 0.1, s.geom.dy = 0.1;
  s.dt = 0.05;
  s.deposit = false;
  s.solve_fields = false;
  s.field_bc.x = FieldBoundary::open;
  PicSimulation sim(s);
  Species e;
  e.name = "electron";
  e.bc.side[0] = e.bc.side[1] = ParticleBoundary::absorb;
  const int k = sim.add_species(e);
  LoadSpec load;
  load.profile.n0 = 1.0;
  load.ppc_x = 2, load.ppc_y = 2;
  sim.load(k, load);
  Species& sp = sim.species()[0];
  for (std::size_t p = 0; p < sp.size(); ++p) {
    sp.ux[p] = (p % 3 == 0 ? -1.0 : 0.2) * (1 + double(p % 7) / 7);
    sp.uy[p] = 0.1;
    sp.w[p] = double(p + 1);
  }
  return sim;
}

TEST(PicIds, ALoadNumbersTheParticlesInItsOrder) {
  const PicSimulation sim = drifting_test_particles();
  ASSERT_EQ(sim.particle_ids().size(), 1u);
  std::vector<std::uint64_t> want(sim.species()[0].size());
  std::iota(want.begin(), want.end(), std::uint64_t(0));
  EXPECT_EQ(sim.particle_ids()[0], want);
}

// The CPU step removes absorbed particles and keeps the others in order: their ids go with them.
TEST(PicIds, StepKeepsTheIdsOfTheParticlesLeft) {
  PicSimulation sim = drifting_test_particles();
  const std::size_t loaded = sim.species()[0].size();
  sim.run(60);
  const Species& sp = sim.species()[0];
  ASSERT_LT(sp.size(), loaded * 9 / 10) << "the test needs absorbed particles";
  ASSERT_GT(sp.size(), 0u);
  ASSERT_EQ(sim.particle_ids().size(), 1u);
  const std::vector<std::uint64_t>& id = sim.particle_ids()[0];
  ASSERT_EQ(id.size(), sp.size());
  for (std::size_t p = 0; p < sp.size(); ++p) EXPECT_EQ(double(id[p] + 1), sp.w[p]) << "particle " << p;
}

// A state copied in without its ids (as the one-GPU path's copy_to does, which may reorder the
// particles) drops the ids it had; one handed over with its ids (a gather, a checkpoint) keeps them.
// (The ids are read through a const reference: the mutable accessor is the hand-over.)
TEST(PicIds, ACopyWithoutIdsDropsThem) {
  PicSimulation sim = drifting_test_particles();
  const PicSimulation& view = sim;
  ASSERT_EQ(view.particle_ids().size(), 1u);
  Species& sp = sim.species()[0];
  std::reverse(sp.w.begin(), sp.w.end());  // (as a reordering copy would leave them)
  sim.set_time(sim.time() + sim.settings().dt, sim.step_count() + 1);
  EXPECT_TRUE(view.particle_ids().empty());
  sim.run(2);
  EXPECT_TRUE(view.particle_ids().empty()) << "lost ids are not made up";

  PicSimulation handed = drifting_test_particles();
  ASSERT_EQ(handed.particle_ids().size(), 1u);
  std::vector<std::uint64_t> id(handed.species()[0].size());
  std::iota(id.rbegin(), id.rend(), std::uint64_t(0));
  handed.particle_ids()[0] = id;
  handed.set_time(1.0, 20);
  ASSERT_EQ(handed.particle_ids().size(), 1u);
  EXPECT_EQ(handed.particle_ids()[0], id);
}

// author and date come from NBODY_AUTHOR and SOURCE_DATE_EPOCH (seconds since 1970, in UTC),
// never from the clock; a SOURCE_DATE_EPOCH that is not a number of seconds is refused.
TEST(PicOpenPmd, OriginFromTheEnvironment) {
  const char* keep_author = std::getenv("NBODY_AUTHOR");
  const char* keep_epoch = std::getenv("SOURCE_DATE_EPOCH");
  const std::string author = keep_author ? keep_author : "", epoch = keep_epoch ? keep_epoch : "";
  ::unsetenv("NBODY_AUTHOR");
  ::unsetenv("SOURCE_DATE_EPOCH");
  OpenPmdOrigin o = openpmd_origin_from_environment();
  EXPECT_TRUE(o.author.empty());
  EXPECT_TRUE(o.date.empty());
  ::setenv("NBODY_AUTHOR", "A. Tester <a.tester@example.org>", 1);
  ::setenv("SOURCE_DATE_EPOCH", "1449074922", 1);
  o = openpmd_origin_from_environment();
  EXPECT_EQ(o.author, "A. Tester <a.tester@example.org>");
  EXPECT_EQ(o.date, "2015-12-02 16:48:42 +0000");
  EXPECT_TRUE(is_openpmd_date(o.date));
  EXPECT_TRUE(is_openpmd_date("2015-12-02 17:48:42 +0100"));
  EXPECT_FALSE(is_openpmd_date("2015-12-02T17:48:42+01:00"));
  ::setenv("SOURCE_DATE_EPOCH", "yesterday", 1);
  EXPECT_THROW((void)openpmd_origin_from_environment(), Error);
  keep_author ? ::setenv("NBODY_AUTHOR", author.c_str(), 1) : ::unsetenv("NBODY_AUTHOR");
  keep_epoch ? ::setenv("SOURCE_DATE_EPOCH", epoch.c_str(), 1) : ::unsetenv("SOURCE_DATE_EPOCH");
}

#if NBODY_HAVE_HDF5

// Reading back (test code: the statuses asserted where a failure would make the rest meaningless).
std::vector<double> read_doubles(hid_t f, const std::string& path, std::vector<hsize_t>& dims) {
  const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
  EXPECT_GE(d, 0) << path;
  if (d < 0) return {};
  const hid_t space = H5Dget_space(d);
  dims.assign(std::size_t(H5Sget_simple_extent_ndims(space)), 0);
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  std::vector<double> v(std::size_t(H5Sget_simple_extent_npoints(space)));
  if (!v.empty()) EXPECT_GE(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0) << path;
  H5Sclose(space);
  H5Dclose(d);
  return v;
}

std::vector<double> read_double_attr(hid_t f, const std::string& obj, const char* name) {
  const hid_t a = H5Aopen_by_name(f, obj.c_str(), name, H5P_DEFAULT, H5P_DEFAULT);
  EXPECT_GE(a, 0) << obj << " " << name;
  if (a < 0) return {};
  const hid_t space = H5Aget_space(a);
  std::vector<double> v(std::size_t(H5Sget_simple_extent_npoints(space)));
  EXPECT_GE(H5Aread(a, H5T_NATIVE_DOUBLE, v.data()), 0);
  H5Sclose(space);
  H5Aclose(a);
  return v;
}

std::vector<std::string> read_strings_attr(hid_t f, const std::string& obj, const char* name) {
  const hid_t a = H5Aopen_by_name(f, obj.c_str(), name, H5P_DEFAULT, H5P_DEFAULT);
  EXPECT_GE(a, 0) << obj << " " << name;
  if (a < 0) return {};
  const hid_t type = H5Aget_type(a), space = H5Aget_space(a);
  const std::size_t width = H5Tget_size(type), n = std::size_t(H5Sget_simple_extent_npoints(space));
  std::vector<char> raw(width * n);
  EXPECT_GE(H5Aread(a, type, raw.data()), 0);
  std::vector<std::string> out;
  for (std::size_t k = 0; k < n; ++k) {
    std::string s(raw.data() + k * width, width);
    out.push_back(s.substr(0, s.find('\0')));
  }
  H5Sclose(space);
  H5Tclose(type);
  H5Aclose(a);
  return out;
}

// A field that depends on x alone differs from one of y alone: the meshes are stored A[i][j]
// with axisLabels (x, y), every per-axis attribute in that order (yt takes the first array axis
// for x).
TEST(PicOpenPmd, MeshesAreStoredWithXFirst) {
  PicSettings s;
  s.geom.nx = 12, s.geom.ny = 5;
  s.geom.dx = 0.1, s.geom.dy = 0.25;
  s.geom.x0 = -1.0, s.geom.y0 = 2.0;
  s.dt = 0.05;
  PicSimulation sim(s);
  for (int j = 0; j <= s.geom.ny; ++j)
    for (int i = 0; i <= s.geom.nx; ++i) {
      sim.fields().at(kEy, i, j) = i + 1000.0 * j;
      sim.fields().at(kRho, i, j) = -(i + 1000.0 * j);
    }
  const fs::path d = temp_dir("layout");
  const std::string path = write_openpmd(d.string(), sim, 1e-6);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  for (const std::string& mesh : {std::string("/data/0/meshes/E/y"), std::string("/data/0/meshes/rho")}) {
    std::vector<hsize_t> dims;
    const std::vector<double> v = read_doubles(f, mesh, dims);
    ASSERT_EQ(dims, (std::vector<hsize_t>{13, 6})) << mesh;
    const double sign = mesh.back() == 'y' ? 1.0 : -1.0;
    for (int i = 0; i <= 12; ++i)
      for (int j = 0; j <= 5; ++j) EXPECT_EQ(v[std::size_t(i) * 6 + std::size_t(j)], sign * (i + 1000.0 * j)) << mesh;
  }
  for (const std::string& rec : {std::string("/data/0/meshes/E"), std::string("/data/0/meshes/rho")}) {
    EXPECT_EQ(read_strings_attr(f, rec, "axisLabels"), (std::vector<std::string>{"x", "y"})) << rec;
    EXPECT_EQ(read_strings_attr(f, rec, "dataOrder"), (std::vector<std::string>{"C"})) << rec;
    EXPECT_EQ(read_double_attr(f, rec, "gridSpacing"), (std::vector<double>{0.1, 0.25})) << rec;
    EXPECT_EQ(read_double_attr(f, rec, "gridGlobalOffset"), (std::vector<double>{-1.0, 2.0})) << rec;
  }
  // Each component's staggering (x, y): Ex at (i + 1/2, j), Ey at (i, j + 1/2), Bz at (i + 1/2, j + 1/2).
  EXPECT_EQ(read_double_attr(f, "/data/0/meshes/E/x", "position"), (std::vector<double>{0.5, 0.0}));
  EXPECT_EQ(read_double_attr(f, "/data/0/meshes/E/y", "position"), (std::vector<double>{0.0, 0.5}));
  EXPECT_EQ(read_double_attr(f, "/data/0/meshes/B/x", "position"), (std::vector<double>{0.0, 0.5}));
  EXPECT_EQ(read_double_attr(f, "/data/0/meshes/B/z", "position"), (std::vector<double>{0.5, 0.5}));
  H5Fclose(f);
}

std::vector<std::uint64_t> read_ids(hid_t f, const std::string& path) {
  const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
  EXPECT_GE(d, 0) << path;
  if (d < 0) return {};
  const hid_t type = H5Dget_type(d), space = H5Dget_space(d);
  EXPECT_GT(H5Tequal(type, H5T_STD_U64LE), 0) << "uint64";
  std::vector<std::uint64_t> v(std::size_t(H5Sget_simple_extent_npoints(space)));
  if (!v.empty()) EXPECT_GE(H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
  H5Sclose(space);
  H5Tclose(type);
  H5Dclose(d);
  return v;
}

// The id record holds the stable ids (the index in the load) of the particles left after some
// were absorbed, in the order of the other records; a state whose ids were lost has no id record.
TEST(PicOpenPmd, IdsAreTheStableIds) {
  PicSimulation sim = drifting_test_particles();
  const std::size_t loaded = sim.species()[0].size();
  sim.run(60);
  const Species& sp = sim.species()[0];
  ASSERT_LT(sp.size(), loaded * 9 / 10) << "the test needs absorbed particles";
  const fs::path d = temp_dir("ids");
  const std::string path = write_openpmd(d.string(), sim, 1e-6);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const std::vector<std::uint64_t> id = read_ids(f, "/data/60/particles/electron/id");
  ASSERT_EQ(id.size(), sp.size());
  for (std::size_t p = 0; p < sp.size(); ++p) ASSERT_EQ(double(id[p] + 1), sp.w[p]) << "particle " << p;
  EXPECT_EQ(read_double_attr(f, "/data/60/particles/electron/id", "unitSI"), std::vector<double>{1.0});
  EXPECT_EQ(read_double_attr(f, "/data/60/particles/electron/id", "unitDimension"), std::vector<double>(7, 0.0));
  H5Fclose(f);

  sim.set_time(sim.time(), sim.step_count());  // (ids not handed over: dropped)
  const std::string lost = write_openpmd(temp_dir("ids_lost").string(), sim, 1e-6);
  const hid_t g = H5Fopen(lost.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(g, 0);
  EXPECT_EQ(H5Lexists(g, "/data/60/particles/electron/id", H5P_DEFAULT), 0);
  EXPECT_GT(H5Lexists(g, "/data/60/particles/electron/position", H5P_DEFAULT), 0);
  H5Fclose(g);
}

// Each record's timeOffset, in the unit of the iteration's time: after a step the positions, E,
// B and rho are at the time t, the momenta and J half a step behind (the leapfrog).
TEST(PicOpenPmd, TimeOffsetsFollowTheLeapfrog) {
  PicSettings s;
  s.geom.nx = 16, s.geom.ny = 4;
  s.geom.dx = 0.1, s.geom.dy = 0.1;
  s.dt = 0.06;
  PicSimulation sim(s);
  Species e;
  e.name = "electron";
  const int k = sim.add_species(e);
  LoadSpec load;
  load.profile.n0 = 1.0;
  sim.load(k, load);
  sim.run(3);
  sim.compute_rho();
  const fs::path d = temp_dir("time_offset");
  const std::string path = write_openpmd(d.string(), sim, 1e-6);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const std::string it = "/data/3/";
  ASSERT_EQ(read_double_attr(f, it, "dt"), std::vector<double>{0.06});
  ASSERT_EQ(read_double_attr(f, it, "time"), std::vector<double>{3 * 0.06});
  const std::vector<double> now{0.0}, half_back{-0.03};
  for (const char* rec : {"meshes/E", "meshes/B", "meshes/rho", "particles/electron/position",
                          "particles/electron/positionOffset", "particles/electron/weighting",
                          "particles/electron/charge", "particles/electron/mass"})
    EXPECT_EQ(read_double_attr(f, it + rec, "timeOffset"), now) << rec;
  for (const char* rec : {"meshes/J", "particles/electron/momentum"})
    EXPECT_EQ(read_double_attr(f, it + rec, "timeOffset"), half_back) << rec;
  H5Fclose(f);
}

// The state of a short run of test particles, written twice a second apart (HDF5 records
// modification times in seconds): the same bytes.
TEST(PicOpenPmd, TheSameStateGivesTheSameBytes) {
  PicSimulation sim = drifting_test_particles();
  sim.run(3);
  sim.compute_rho();
  const fs::path a = temp_dir("bytes_a"), b = temp_dir("bytes_b");
  const std::string first = write_openpmd(a.string(), sim, 0.8e-6);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  const std::string second = write_openpmd(b.string(), sim, 0.8e-6);
  const std::string x = read_bytes(first), y = read_bytes(second);
  ASSERT_GT(x.size(), 1000u);
  EXPECT_TRUE(x == y) << "the two files differ";
}

// Runs `nbody <args>` in a child process under a file size limit (SIGXFSZ at its default,
// killing disposition, as a shell gives it); returns its exit status (128 + the signal when one
// ended it) and its standard error.
int run_under_file_size_limit(const std::string& args, rlim_t limit, std::string& err) {
  const fs::path dir = temp_dir("limited");
  const std::string err_file = (dir / "stderr").string();
  const std::string cmd = std::string(NBODY_EXE_PATH) + " " + args + " >/dev/null 2>" + err_file + " </dev/null";
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_DFL);
    const rlimit r{limit, limit};
    if (::setrlimit(RLIMIT_FSIZE, &r) != 0) ::_exit(120);
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int raw = 0;
  ::waitpid(pid, &raw, 0);
  err = read_bytes(err_file);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

// A run whose openPMD file cannot be written whole (a full disk, here a file size limit): exit 1
// with one error line naming the file, no crash at exit inside HDF5, no file and no temporary.
TEST(PicOpenPmd, AWriteThatFailsEndsTheRunCleanly) {
  const fs::path dir = temp_dir("limit");
  const fs::path cfg = dir / "pic.toml";
  std::ofstream(cfg) << R"(
[grid]
nx = 200
ny = 40
dx = 0.025
dy = 0.05
boundary_x = "open"
[time]
steps = 2
[output]
fields_every = 1
[[species]]
name = "electron"
ppc = 2
density = 2.0
x_start = 0.5
boundary_xmin = "absorb"
boundary_xmax = "absorb"
)";
  const fs::path out = dir / "out";
  std::string err;
  const int status =
      run_under_file_size_limit("pic run --config " + cfg.string() + " --out " + out.string(), 64 * 1024, err);
  EXPECT_EQ(status, 1) << err;
  std::istringstream lines(err);
  std::vector<std::string> all;
  for (std::string l; std::getline(lines, l);) all.push_back(l);
  ASSERT_EQ(all.size(), 1u) << err;
  EXPECT_NE(all[0].find("cannot write '" + (out / "pic_00000000.h5").string() + "'"), std::string::npos) << err;
  EXPECT_NE(all[0].find("File too large"), std::string::npos) << err;
  for (const auto& e : fs::directory_iterator(out)) {
    const std::string name = e.path().filename().string();
    EXPECT_EQ(name.find(".h5"), std::string::npos) << "left behind: " << name;
  }
}

#endif

}  // namespace
}  // namespace nbody::pic
