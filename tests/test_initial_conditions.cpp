// Initial conditions: reproducible from the seed, and the Plummer model in equilibrium.
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "integrate/system.hpp"
#include "ic/ic.hpp"
#include "ic/setup_log.hpp"
#include "nbody/run.hpp"
#include "nbody/error.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

TEST(InitialConditions, SameSeedSameParticlesOtherSeedOthers) {
  for (const auto& name : ic_names()) {
    // solar-system has exactly ten bodies, in physical units, and draws nothing from the seed.
    const bool fixed = name == "solar-system";
    IcRequest req{name, fixed ? 10 : 500, 9};
    if (fixed) req.model.units = "solar";
    const auto a = make_initial_conditions(req);
    const auto b = make_initial_conditions(req);
    req.seed = 10;
    const auto c = make_initial_conditions(req);
    EXPECT_EQ(a.x, b.x) << name;
    EXPECT_EQ(a.vz, b.vz) << name;
    EXPECT_EQ(a.m, b.m) << name;
    if (fixed) {
      EXPECT_EQ(a.x, c.x) << name;
    } else {
      EXPECT_NE(a.x, c.x) << name;
    }
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a.id[i], i) << name;
  }
}

TEST(InitialConditions, CubeIsTheDocumentsSetUp) {
  const auto p = make_cube({"cube", 4096, 1});
  for (std::size_t i = 0; i < p.size(); ++i) {
    for (const double v : {p.x[i], p.y[i], p.z[i], p.vx[i], p.vy[i], p.vz[i]}) {
      ASSERT_GE(v, -1.0);
      ASSERT_LT(v, 1.0);
    }
    ASSERT_EQ(p.m[i], 1.0);
    ASSERT_EQ(p.id[i], i);
  }
  // Uniform in [-1, 1): mean 0 within 5 standard errors (sigma = 1/sqrt(3 N)).
  double mean = 0;
  for (const double v : p.x) mean += v;
  mean /= double(p.size());
  EXPECT_LT(std::fabs(mean), 5.0 / std::sqrt(3.0 * 4096));
}

TEST(InitialConditions, UnknownNameIsAnInputError) {
  try {
    (void)make_initial_conditions({"nosuch", 10, 1});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_NE(std::string(e.what()).find("nosuch"), std::string::npos);
  }
}

// Plummer at N = 16384 in Henon units. Statistical bounds: for N bodies the virial ratio and
// 4|E| scatter by about 1/sqrt(N) = 0.8 %; the half-mass radius (the median radius) has
// standard error sqrt(1/4N) / (dM/dr at r_h) = 0.0039 / 0.72 = 0.0054. We allow about 5 sigma.
TEST(InitialConditions, PlummerIsInVirialEquilibriumInHenonUnits) {
  const std::size_t n = 16384;
  const auto p = make_plummer({"plummer", static_cast<std::int64_t>(n), 2024});
  auto b = make_system<double>("cpu-reference", n, {1.0, 0.0});
  b->upload(p);
  const Moments m = b->moments();
  const double w = b->potential_energy();
  EXPECT_NEAR(m.mass, 1.0, 1e-12);
  EXPECT_NEAR(2.0 * m.kinetic / std::fabs(w), 1.0, 0.05);
  EXPECT_NEAR(m.kinetic + w, -0.25, 0.25 * 0.05);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(m.momentum[k], 0.0, 1e-12);
    EXPECT_NEAR(m.mass_moment[k], 0.0, 1e-12);
  }
  std::vector<double> r(n);
  for (std::size_t i = 0; i < n; ++i) r[i] = std::sqrt(p.x[i] * p.x[i] + p.y[i] * p.y[i] + p.z[i] * p.z[i]);
  std::nth_element(r.begin(), r.begin() + n / 2, r.end());
  EXPECT_NEAR(r[n / 2], 0.769, 0.03);
}

// A logger that keeps its lines.
class KeptLines final : public Logger {
 public:
  std::vector<std::string> lines;
  void info(std::string_view line) override { lines.emplace_back(line); }
};

// A set-up long enough to be waited for says what it is doing as it does it: the model as a
// whole, then the galaxy's stages (its bodies by component, its energy), each opened with "..."
// and closed with its time; a small one says nothing.
TEST(InitialConditions, ALargeSetUpSaysWhatItIsDoing) {
  KeptLines log;
  IcRequest req{"disk-galaxy", static_cast<std::int64_t>(ic::kSetupReportBodies), 1, {}, &log};
  (void)make_initial_conditions(req);
  const std::vector<std::string> opened = {
      "set-up: drawing the initial conditions: disk-galaxy, 500000 bodies ...",
      "set-up: drawing the galaxy: 500000 bodies (disk 75000, bulge 25000, halo 400000) ...",
      "set-up: the galaxy: its energy for the Henon scaling (pairs of 16384 bodies) ..."};
  ASSERT_EQ(log.lines.size(), 6u) << testing::PrintToString(log.lines);
  EXPECT_EQ(log.lines[0], opened[0]);
  EXPECT_EQ(log.lines[1], opened[1]);
  EXPECT_EQ(log.lines[3], opened[2]);
  // Closed in order, with the time: "<what>: 1.23 s".
  for (const auto& [line, what] : {std::pair{log.lines[2], opened[1]}, std::pair{log.lines[4], opened[2]},
                                   std::pair{log.lines[5], opened[0]}}) {
    const std::string stem = what.substr(0, what.size() - 4) + ": ";
    EXPECT_EQ(line.rfind(stem, 0), 0u) << line;
    EXPECT_EQ(line.substr(line.size() - 2), " s") << line;
  }

  KeptLines quiet;
  IcRequest small{"galaxy-collision", 2000, 1, {}, &quiet};
  (void)make_initial_conditions(small);
  EXPECT_TRUE(quiet.lines.empty()) << testing::PrintToString(quiet.lines);
}

}  // namespace
}  // namespace nbody::test
