// A state read back from its openPMD dump (pic/output/openpmd_read.hpp), what `nbody render` of a
// PIC run draws from: fields, positions and momenta with the same bits, weights whose stored
// product is the stored one, the step and the time; a dump that does not fit the deck refused.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "nbody/error.hpp"
#include "pic/driver/config.hpp"
#include "pic/output/openpmd.hpp"
#include "pic/output/openpmd_read.hpp"
#include "pic/physics/units.hpp"
#include "pic_test_util.hpp"

namespace nbody::pic {
namespace {

namespace fs = std::filesystem;

const char* kDeck = R"(
[grid]
nx = 24
ny = 8
dx = 0.05
dy = 0.05
boundary_x = "open"
[time]
steps = 4
courant = 0.9
[laser]
a0 = 0.5
duration = 10.0
[[species]]
name = "electron"
ppc = 4
density = 3.0
temperature_keV = 2.0
boundary_xmin = "absorb"
boundary_xmax = "absorb"
[[species]]
name = "proton"
ppc = 2
density = 3.0
boundary_xmin = "absorb"
boundary_xmax = "absorb"
)";

#if NBODY_HAVE_HDF5
TEST(PicOpenPmdRead, AStateComesBackFromItsDump) {
  const fs::path d = test::temp_dir("openpmd_read");
  const PicConfig c = read_pic_config_text(kDeck, "deck", {});
  PicSimulation sim = build_pic_simulation(c, true);
  sim.run(4);
  sim.compute_rho();
  const double wavelength = 0.8e-6;
  const std::string file = write_openpmd(d.string(), sim, wavelength);
  EXPECT_EQ(fs::path(file).filename(), "pic_00000004.h5");

  PicSimulation back = build_pic_simulation(c, false);
  read_openpmd(file, back);
  EXPECT_EQ(back.step_count(), 4);
  EXPECT_EQ(back.time(), sim.time());
  const GridGeometry& g = sim.settings().geom;
  for (int comp : {int(kEx), int(kEy), int(kEz), int(kBx), int(kBy), int(kBz)})
    for (int j = 0; j <= g.ny; ++j)
      for (int i = 0; i <= g.nx; ++i)
        ASSERT_EQ(back.fields().at(comp, i, j), sim.fields().at(comp, i, j)) << comp << " " << i << " " << j;
  const SiUnits u = si_units(wavelength);
  const double per_metre = u.density_m3 * u.length_m * u.length_m;
  ASSERT_EQ(back.species().size(), 2u);
  std::size_t exact = 0, total = 0;
  for (std::size_t k = 0; k < 2; ++k) {
    const Species &a = sim.species()[k], &b = back.species()[k];
    ASSERT_EQ(b.size(), a.size());
    ASSERT_GT(a.size(), 0u);
    for (std::size_t p = 0; p < a.size(); ++p) {
      ASSERT_EQ(b.x[p], a.x[p]);
      ASSERT_EQ(b.y[p], a.y[p]);
      ASSERT_EQ(b.ux[p], a.ux[p]);
      ASSERT_EQ(b.uy[p], a.uy[p]);
      ASSERT_EQ(b.uz[p], a.uz[p]);
      // The stored number of real particles comes back: the weight itself or one within an ulp.
      ASSERT_EQ(b.w[p] * per_metre, a.w[p] * per_metre);
      ASSERT_LE(std::fabs(b.w[p] - a.w[p]), std::fabs(std::nextafter(a.w[p], HUGE_VAL) - a.w[p]));
      exact += b.w[p] == a.w[p];
      ++total;
    }
  }
  EXPECT_GT(exact, total / 2);
  // The densities drawn from it (rho per species from the particles) agree to rounding.
  sim.compute_rho(0);
  back.compute_rho(0);
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i)
      EXPECT_NEAR(back.fields().at(kRho, i, j), sim.fields().at(kRho, i, j), 1e-12 * 3.0);

  // A deck of another grid, or without one of the dump's species, is refused (input errors).
  PicSimulation wider = build_pic_simulation(read_pic_config_text(kDeck, "deck", {"grid.nx=32"}), false);
  EXPECT_THROW(read_openpmd(file, wider), Error);
  try {
    read_openpmd(file, wider);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_NE(std::string(e.what()).find("meshes/E/x has 25 x 9 nodes, the deck's grid (deck.toml) 33 x 9"), std::string::npos) << e.what();
  }
  std::string one_species = kDeck;
  one_species = one_species.substr(0, one_species.rfind("[[species]]"));
  PicSimulation fewer = build_pic_simulation(read_pic_config_text(one_species, "deck", {}), false);
  try {
    read_openpmd(file, fewer);
    ADD_FAILURE() << "a species the deck has not was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("species 'proton' is not in the deck"), std::string::npos) << e.what();
  }
  // Not an HDF5 file: one error naming it.
  std::ofstream(d / "pic_00000009.h5") << "not hdf5";
  try {
    read_openpmd((d / "pic_00000009.h5").string(), back);
    ADD_FAILURE() << "a text file was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a readable HDF5 file"), std::string::npos) << e.what();
  }
  fs::remove_all(d);
}
#else
TEST(PicOpenPmdRead, NeedsHdf5) {
  const PicConfig c = read_pic_config_text(kDeck, "deck", {});
  PicSimulation sim = build_pic_simulation(c, false);
  EXPECT_THROW(read_openpmd("pic_00000000.h5", sim), Error);
}
#endif

}  // namespace
}  // namespace nbody::pic
