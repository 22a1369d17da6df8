// The example decks of examples/pic/ that no other test runs, in CI-size versions through the
// program: they read, validate and run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "pic_test_util.hpp"

namespace nbody::pic {
namespace {

// The focused laser on a foil with coarser cells (lambda/8: the foil keeps its place and density
// expression), one particle per cell and 40 steps: the laser enters (energy in > 0), both species
// are loaded, and Gauss's law holds.
TEST(ExampleDecks, FocusedLaserFoilRuns) {
  const auto dir = test::temp_dir("example_foil");
  const std::string cmd = std::string(NBODY_EXE_PATH) + " pic run --config " + NBODY_EXAMPLES +
                          "/pic/focused_laser_foil.toml --out " + (dir / "run").string() +
                          " --steps 40 --set grid.nx=80 --set grid.ny=96 --set grid.dx=0.125 --set grid.dy=0.125"
                          " --set species.0.ppc=1 --set species.1.ppc=1 --set output.diag_every=40 > " +
                          (dir / "out.txt").string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(dir / "run" / "diagnostics.csv");
  ASSERT_TRUE(in) << "no diagnostics.csv";
  std::string header, line, last;
  std::getline(in, header);
  while (std::getline(in, line)) last = line;
  // The columns by name: the energy that came in through the left plane, the Gauss residual.
  auto column = [&](const std::string& name) {
    std::stringstream h(header), v(last);
    std::string hn, vv;
    while (std::getline(h, hn, ',') && std::getline(v, vv, ','))
      if (hn == name) return std::stod(vv);
    ADD_FAILURE() << "no column " << name << " in " << header;
    return 0.0;
  };
  EXPECT_GT(column("energy_in_left"), 0.0);
  EXPECT_GT(column("count_electron"), 0.0);
  EXPECT_GT(column("count_proton"), 0.0);
  EXPECT_LT(column("gauss_residual"), 1e-10);
}

}  // namespace
}  // namespace nbody::pic
