// The PIC memory plan (pic/driver/memory_plan.hpp): it counts the particles the loader puts
// without loading them, it covers the peak a run really reaches (measured: the child's maximum
// resident set), and a grid that does not fit is refused before anything is allocated, in one
// line naming the grid, its keys and the deck, with nothing written.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "pic/driver/config.hpp"
#include "pic/driver/memory_plan.hpp"
#include "pic/driver/run.hpp"
#include "pic_test_util.hpp"

namespace nbody::pic {
namespace {

namespace fs = std::filesystem;

using test::temp_dir;

const std::string kWalls = "boundary_xmin = \"absorb\"\nboundary_xmax = \"absorb\"\n";

// A thin foil in a vacuum box with open x: the grid NX x NY, two species over a third of x.
std::string deck(int nx, int ny) {
  return "[grid]\nnx = " + std::to_string(nx) + "\nny = " + std::to_string(ny) +
         "\ndx = 0.02\ndy = 0.02\nx0 = 0.0\nboundary_x = \"open\"\n[time]\nsteps = 2\n[solver]\nshape = \"cic\"\n"
         "[[species]]\nname = \"electron\"\nppc = 4\ndensity = 2.0\ntemperature_keV = 1.0\n" + kWalls + "x_start = " +
         std::to_string(nx * 0.02 / 3) + "\nx_end = " + std::to_string(nx * 0.02 * 2 / 3) +
         "\n[[species]]\nname = \"proton\"\nppc = 2\ndensity = 2.0\nimmobile = true\n" + kWalls + "x_start = " +
         std::to_string(nx * 0.02 / 3) + "\nx_end = " + std::to_string(nx * 0.02 * 2 / 3) + "\n";
}

fs::path write(const fs::path& dir, const std::string& text) {
  const fs::path p = dir / "deck.toml";
  std::ofstream(p) << text;
  return p;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), {}};
}

struct Child {
  int status = -1;
  long max_rss_bytes = 0;
  std::string err;
};

// The program run directly (no shell between, so that the rusage is its own), optionally under
// an address-space limit.
Child run(const std::vector<std::string>& args, rlim_t address_space = RLIM_INFINITY) {
  const fs::path err = fs::temp_directory_path() / ("nbody_pic_plan_err_" + std::to_string(::getpid()));
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (address_space != RLIM_INFINITY) {
      const rlimit r{address_space, address_space};
      if (::setrlimit(RLIMIT_AS, &r) != 0) ::_exit(120);
    }
    if (!std::freopen(err.c_str(), "w", stderr) || !std::freopen("/dev/null", "w", stdout)) ::_exit(121);
    std::vector<char*> argv;
    std::string exe = NBODY_EXE_PATH;
    argv.push_back(exe.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(exe.c_str(), argv.data());
    ::_exit(127);
  }
  int raw = 0;
  rusage use{};
  ::wait4(pid, &raw, 0, &use);
  Child c;
  c.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  c.max_rss_bytes = use.ru_maxrss * 1024L;
  c.err = read_text(err);
  fs::remove(err);
  return c;
}

TEST(PicMemoryPlan, CountsTheParticlesTheLoaderPuts) {
  const fs::path d = temp_dir("count");
  const PicConfig c = read_pic_config(write(d, deck(120, 30)).string(), {});
  const PicMemoryPlan p = plan_pic_memory(c, 1, 0);
  const PicSimulation sim = build_pic_simulation(c);
  std::uint64_t loaded = 0;
  for (const Species& s : sim.species()) loaded += s.size();
  EXPECT_GT(loaded, 0u);
  EXPECT_EQ(p.particles, loaded);
  EXPECT_EQ(p.points, sim.settings().geom.size());
  // A window's count is what the loader keeps there.
  const CellWindow w{30, 70, 5, 17};
  const PicSimulation part = build_pic_simulation(c, true, &w);
  const std::vector<SpeciesLoad> loads = pic_species_loads(c);
  for (std::size_t k = 0; k < loads.size(); ++k)
    EXPECT_EQ(count_load(sim.settings().geom, loads[k].load, &w), part.species()[k].size()) << k;
}

// A run with its outputs and a checkpoint, then its resume: the plan of each is at least what the
// process held at its peak beyond the program's own start-up (a run of an 8 x 8 grid), and not
// wildly more (a plan that refuses runs that fit is a fault too).
TEST(PicMemoryPlan, CoversTheMeasuredPeak) {
  const fs::path d = temp_dir("peak");
  const fs::path small = write(d, deck(8, 8));
  const Child base = run({"pic", "run", "--config", small.string(), "--steps", "1"});
  ASSERT_EQ(base.status, 0) << base.err;
  fs::create_directories(d / "big");
  const fs::path big = write(d / "big", deck(1000, 400));
  const fs::path out = d / "run";
  const Child r = run({"pic", "run", "--config", big.string(), "--steps", "2", "--out", out.string(), "--set",
                       "output.checkpoint_every=1", "--set", "output.fields_every=2"});
  ASSERT_EQ(r.status, 0) << r.err;
  PicFlags f;
  f.out = out.string();
  const PicConfig c = read_pic_config(big.string(), {"output.checkpoint_every=1", "output.fields_every=2"}, f);
  const PicMemoryPlan plan = plan_pic_memory(c, 1, 0);
  const long used = r.max_rss_bytes - base.max_rss_bytes;
  EXPECT_GE(double(plan.host_bytes), double(used)) << "measured " << r.max_rss_bytes << ", start-up " << base.max_rss_bytes;
  EXPECT_LE(double(plan.host_bytes), 2.5 * double(r.max_rss_bytes)) << "measured " << r.max_rss_bytes;

  const Child again = run({"pic", "run", "--resume", out.string(), "--steps", "3"});
  ASSERT_EQ(again.status, 0) << again.err;
  std::uintmax_t newest = 0;
  for (const auto& e : fs::directory_iterator(out))
    if (e.path().extension() == ".ckpt") newest = std::max(newest, fs::file_size(e.path()));
  const PicMemoryPlan resumed = plan_pic_memory(c, 1, 0, newest);
  const long used_again = again.max_rss_bytes - base.max_rss_bytes;
  EXPECT_GE(double(resumed.host_bytes), double(used_again)) << "measured " << again.max_rss_bytes;
  EXPECT_LE(double(resumed.host_bytes), 2.5 * double(again.max_rss_bytes)) << "measured " << again.max_rss_bytes;
}

// 8000 x 8000 cells: 5 GB of fields alone, under a 3 GiB address space. Refused before the grid
// is allocated (under the limit an allocation would fail with a bad_alloc the plan never names);
// a grid that fits runs under the same limit.
TEST(PicMemoryPlan, AGridThatDoesNotFitIsRefusedBeforeAllocating) {
  const fs::path d = temp_dir("refuse");
  const fs::path file = write(d, deck(8000, 8000));
  const fs::path out = d / "run";
  const Child r = run({"pic", "run", "--config", file.string(), "--out", out.string()}, rlim_t(3) << 30);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("pic: grid 8000 x 8000 cells (grid.nx, grid.ny in '" + file.string() + "')"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("of host memory, but this machine has"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));

  const fs::path fits = write(d, deck(1500, 800));
  const Child ok = run({"pic", "run", "--config", fits.string(), "--steps", "1"}, rlim_t(3) << 30);
  EXPECT_EQ(ok.status, 0) << ok.err;
}

}  // namespace
}  // namespace nbody::pic
