// Bad PIC input from the command line: every number of the deck and of --set finite and in
// range, integers read as 64-bit and range-checked, the run length checked, a --set that names no
// value refused. Each gets one error line naming the key (and the deck), exit status 2, nothing
// written.
#include <filesystem>
#include <fstream>
#include <string>

#include "support.hpp"

namespace nbody::test {
namespace {

namespace fs = std::filesystem;

const char* kDeck = R"([grid]
nx = 60
ny = 4
dx = 0.02
dy = 0.04
x0 = -0.2
boundary_x = "open"
[time]
steps = 10
[solver]
field = "ck"
shape = "tsc"
[laser]
a0 = 3.0
duration = 1.0
[[species]]
name = "electron"
ppc = 4
density = 4.0
x_start = -0.15
x_end = 0.9
)";

struct BadCase {
  const char* args;
  const char* expect;  // in the error line
};

class PicBadInput : public testing::TestWithParam<BadCase> {};

TEST_P(PicBadInput, OneLineExitTwoNothingWritten) {
  const fs::path base = temp_dir("pic_bad");
  const fs::path deck = base / "deck.in.toml";
  std::ofstream(deck) << kDeck;
  const fs::path out = base / "run";
  const auto r = run_nbody("pic run --config " + deck.string() + " --out " + out.string() + " " + GetParam().args);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find(GetParam().expect), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out)) << "something was written for " << GetParam().args;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PicBadInput,
    testing::Values(BadCase{"--set grid.x0=nan", "grid.x0: nan is not a finite number"},
                    BadCase{"--set species.0=5", "expected table.key=value or species.N.key=value"},
                    BadCase{"--set species=5", "expected table.key=value"},
                    BadCase{"--set species.x.ppc=4", "no species x"},
                    BadCase{"--set grid.nx=4294967360", "grid.nx: 4294967360 is out of range"},
                    BadCase{"--set grid.ny=4294967300", "grid.ny: 4294967300 is out of range"},
                    BadCase{"--set species.0.ppc_x=4294967297", "ppc_x: 4294967297 is out of range"},
                    BadCase{"--set grid.nx=2147483648", "grid.nx: 2147483648 is out of range"},
                    BadCase{"--set grid.dy=1e300", "grid.dy: 1e+300 must be in"},
                    BadCase{"--set grid.dx=inf", "grid.dx: inf is not a finite number"},
                    BadCase{"--set time.dt=1e-320", "time.dt:"},
                    BadCase{"--set time.dt=nan", "time.dt: nan is not a finite number"},
                    BadCase{"--set species.0.density=1e300", "species[0].density: must be in"},
                    BadCase{"--set species.0.density=inf", "species[0].density: inf"},
                    BadCase{"--set species.0.temperature_keV=inf", "temperature_keV: inf"},
                    BadCase{"--set species.0.temperature_keV=nan", "temperature_keV: nan"},
                    BadCase{"--set species.0.drift_ux=nan", "drift_ux: nan"},
                    BadCase{"--set species.0.x_start=nan", "x_start: nan"},
                    BadCase{"--set laser.a0=inf", "laser.a0: inf"},
                    BadCase{"--set laser.duration=inf", "laser.duration: inf"},
                    BadCase{"--set laser.delay=nan", "laser.delay: nan"},
                    BadCase{"--set units.wavelength_um=inf", "units.wavelength_um: inf"},
                    BadCase{"--set time.t_end=inf", "time.t_end: inf"},
                    BadCase{"--set time.t_end=1e300", "more than 1e12 steps"},
                    BadCase{"--steps -5", "--steps: -5 must be >= 1"},
                    BadCase{"--steps ''", "--steps"},
                    BadCase{"--steps 1e20", "--steps"},
                    BadCase{"--restart ''", "--resume DIR"},
                    BadCase{"--set solver.particle_precision=float16",
                            "solver.particle_precision: 'float16' is not one of float64, float32"},
                    BadCase{"--set solver.particle_precision=float32",
                            "solver.particle_precision: \"float32\" is the GPU path's particle store"}),
    [](const testing::TestParamInfo<BadCase>& i) { return "case" + std::to_string(i.index); });

}  // namespace
}  // namespace nbody::test
