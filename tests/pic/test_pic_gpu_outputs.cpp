// The named outputs on the GPU path (label gpu; skipped without a CUDA device): the GPU run's
// dumps and probes come from its host copy of the state, so a probe reads what the CPU run's
// reads (to the bound of test_pic_gpu_laser.cpp) and a particle dump selects the same ids.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "pic/cuda/pic_gpu.hpp"
#include "pic/driver/config.hpp"
#include "pic/driver/run.hpp"
#include "pic/output/openpmd_read.hpp"
#include "pic_test_util.hpp"

namespace nbody::pic {
namespace {

namespace fs = std::filesystem;

// A flat-top plane wave (a0 = 0.01) into a tenuous plasma 8 wavelengths in; a probe in vacuum,
// one in the plasma, and half the particles dumped by a seeded draw.
const char* kDeck = R"(
[grid]
nx = 200
ny = 8
dx = 0.05
dy = 0.05
boundary_x = "open"
[time]
steps = 300
courant = 0.95
[laser]
a0 = 0.01
envelope = "flattop"
rise = 1.0
duration = 100.0
[[species]]
name = "electron"
ppc = 2
density = 0.01
x_start = 8.0
boundary_xmin = "absorb"
boundary_xmax = "absorb"
[[output.probe]]
name = "vacuum"
x = 2.0
y = 0.2
every = 5
[[output.probe]]
name = "plasma"
x = 9.0
y = 0.2
every = 5
[[output.particles]]
name = "half"
every = 100
fraction = 0.5
seed = 11
)";

std::vector<std::vector<double>> rows(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::vector<std::vector<double>> out;
  for (int n = 0; std::getline(in, line); ++n) {
    if (n < 2) continue;
    std::vector<double> v;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) v.push_back(std::stod(x));
    out.push_back(v);
  }
  return out;
}

TEST(GpuPicOutputs, ProbesAndSelectedDumpsMatchTheCpu) {
  std::string why;
  if (!pic_gpu_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  const fs::path d = test::temp_dir("gpu_outputs");
  std::string deck = kDeck;
#if !NBODY_HAVE_HDF5
  deck.erase(deck.find("[[output.particles]]"));  // openPMD dumps need HDF5; the probes do not
#endif
  for (const char* device : {"cpu", "cuda"}) {
    PicFlags f;
    f.out = (d / device).string();
    const PicConfig c = read_pic_config_text(deck, "gpu_outputs.toml",
                                             {std::string("solver.device=\"") + device + "\"", "solver.deposit=\"deterministic\""}, f);
    PicSimulation sim = build_pic_simulation(c);
    (void)run_pic(c, sim);
  }
  for (const char* probe : {"vacuum", "plasma"}) {
    const auto a = rows(d / "cpu/probes" / (std::string(probe) + ".csv"));
    const auto b = rows(d / "cuda/probes" / (std::string(probe) + ".csv"));
    ASSERT_EQ(a.size(), 61u) << probe;
    ASSERT_EQ(a.size(), b.size()) << probe;
    double worst = 0, peak = 0;
    for (std::size_t r = 0; r < a.size(); ++r)
      for (std::size_t k = 2; k < a[r].size(); ++k) {
        worst = std::max(worst, std::fabs(a[r][k] - b[r][k]));
        peak = std::max(peak, std::fabs(a[r][k]));
      }
    EXPECT_GT(peak, 0.005) << probe << ": the wave has reached it";
    EXPECT_LE(worst, 1e-8 * peak) << probe;
  }
#if NBODY_HAVE_HDF5
  for (const char* step : {"pic_00000000.h5", "pic_00000300.h5"}) {
    OpenPmdContents a = read_openpmd_contents((d / "cpu/dumps/half" / step).string());
    OpenPmdContents b = read_openpmd_contents((d / "cuda/dumps/half" / step).string());
    std::vector<std::uint64_t> ia = a.species.at("electron").ids, ib = b.species.at("electron").ids;
    std::sort(ia.begin(), ia.end());
    std::sort(ib.begin(), ib.end());
    EXPECT_GT(ia.size(), 100u) << step;
    EXPECT_EQ(ia, ib) << step;
  }
#endif
}

}  // namespace
}  // namespace nbody::pic
