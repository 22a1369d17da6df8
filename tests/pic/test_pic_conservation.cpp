// Charge conservation: Esirkepov's deposition with the Yee divergence keeps div E - rho at its
// initial value to rounding, for every shape, field solver and pusher.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "comm/communicator.hpp"
#include "pic/parallel/domain.hpp"
#include "pic_test_util.hpp"

namespace nbody::pic {
namespace {

using Param = std::tuple<ShapeOrder, SolverKind, PusherKind>;

class ChargeConservation : public ::testing::TestWithParam<Param> {};

TEST_P(ChargeConservation, GaussLawHoldsToRoundingFor1000Steps) {
  const auto [shape, solver, pusher] = GetParam();
  const double dx = 0.2, dy = 0.3;
  PicSettings s = test::periodic_settings(12, 10, dx, dy, 0.0);
  s.dt = 0.95 * max_stable_dt(solver, dx, dy);
  s.shape = shape;
  s.solver = solver;
  s.pusher = pusher;
  s.external_b = {0.1, 0.2, 0.5};  // rotation mixes every component of the current
  PicSimulation sim(s);
  LoadSpec load;
  load.profile.n0 = 1.0;
  load.ppc_x = 2;
  load.ppc_y = 2;
  load.u_thermal[0] = load.u_thermal[1] = load.u_thermal[2] = 0.3;  // fast: many cell crossings
  load.seed = 7;
  sim.load(sim.add_species(test::electrons()), load);
  Species ions;
  ions.name = "ion";
  ions.charge = 1;
  ions.mass = 25;  // light ions, so that they move too
  const int ii = sim.add_species(ions);
  load.seed = 8;
  load.u_thermal[0] = load.u_thermal[1] = load.u_thermal[2] = 0.05;
  sim.load(ii, load);

  sim.compute_rho(0);
  const double rho_e = sim.rho_abs_max();
  sim.compute_rho();
  const std::vector<double> r0 = sim.gauss_residual_field();
  sim.run(1000);
  sim.compute_rho();
  const std::vector<double> r1 = sim.gauss_residual_field();
  double worst = 0;
  for (std::size_t k = 0; k < r0.size(); ++k) worst = std::max(worst, std::fabs(r1[k] - r0[k]));
  const double e_max = *std::max_element(sim.fields().data[kEx].begin(), sim.fields().data[kEx].end());
  EXPECT_GT(e_max, 1e-3) << "the plasma should have made fields";
  EXPECT_LE(worst / rho_e, 1e-12) << "max|div E - rho| change / max|rho_e| = " << worst / rho_e;
  RecordProperty("gauss_residual", std::to_string(worst / rho_e));
}

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  const ShapeOrder shape = std::get<0>(info.param);
  const SolverKind solver = std::get<1>(info.param);
  const PusherKind pusher = std::get<2>(info.param);
  std::string n = shape == ShapeOrder::cic ? "cic_" : "tsc_";
  n += solver_name(solver);
  n += pusher == PusherKind::boris ? "_boris" : pusher == PusherKind::vay ? "_vay" : "_hc";
  return n;
}

INSTANTIATE_TEST_SUITE_P(
    AllShapesSolversPushers, ChargeConservation,
    ::testing::Combine(::testing::Values(ShapeOrder::cic, ShapeOrder::tsc),
                       ::testing::Values(SolverKind::yee, SolverKind::ck),
                       ::testing::Values(PusherKind::boris, PusherKind::vay, PusherKind::higuera_cary)),
    param_name);

// A periodic axis of fewer cells than guard cells (kGuard = 4): a guard's periodic image is then
// another guard, and the fold passes the deposits on from the outermost guard in
// (fold_periodic_column, fold_periodic_row), so the current of every shape reaches the cell it
// belongs to and Gauss's law holds as on a large grid: in the plain loop and in the deterministic
// slab code on one process. (Folded from the innermost guard out, a one-row grid with TSC lost
// the deposits of the second guard row: a Gauss change of order 1e-2.)
TEST(ChargeConservation, AxesOfFewerCellsThanGuardsFoldEveryDeposit) {
  struct Case {
    int nx, ny;
  };
  for (const ShapeOrder shape : {ShapeOrder::cic, ShapeOrder::tsc}) {
    for (const Case c : {Case{12, 1}, Case{12, 2}, Case{12, 3}, Case{2, 10}, Case{3, 10}}) {
      const double dx = 0.2, dy = 0.3;
      PicSettings s = test::periodic_settings(c.nx, c.ny, dx, dy, 0.0);
      s.dt = 0.95 * max_stable_dt(SolverKind::yee, dx, dy);
      s.shape = shape;
      s.external_b = {0.1, 0.2, 0.5};
      auto make = [&] {
        PicSimulation sim(s);
        LoadSpec load;
        load.profile.n0 = 1.0;
        load.ppc_x = 2;
        load.ppc_y = 3;
        load.u_thermal[0] = load.u_thermal[1] = load.u_thermal[2] = 0.3;  // many crossings of the short axis
        load.seed = 11;
        sim.load(sim.add_species(test::electrons()), load);
        return sim;
      };
      const std::string what = std::string(shape == ShapeOrder::tsc ? "TSC " : "CIC ") + std::to_string(c.nx) + " x " +
                               std::to_string(c.ny) + " cells";
      auto gauss_change = [](PicSimulation& sim, const std::vector<double>& r0, double rho) {
        sim.compute_rho();
        const std::vector<double> r1 = sim.gauss_residual_field();
        double worst = 0;
        for (std::size_t k = 0; k < r0.size(); ++k) worst = std::max(worst, std::fabs(r1[k] - r0[k]));
        return worst / rho;
      };
      PicSimulation sim = make();
      sim.compute_rho(0);
      const double rho_e = sim.rho_abs_max();
      sim.compute_rho();
      const std::vector<double> r0 = sim.gauss_residual_field();
      sim.run(200);
      EXPECT_LE(gauss_change(sim, r0, rho_e), 1e-12) << what << " (the plain loop)";
      const double e_max = *std::max_element(sim.fields().data[kEx].begin(), sim.fields().data[kEx].end());
      EXPECT_GT(e_max, 1e-4) << what << ": the plasma should have made fields";
      if (c.nx < 8) continue;  // (a slab holds 8 columns or more)
      PicSimulation whole = make();
      comm::NullCommunicator one;
      DomainPic d(whole, one);
      for (int k = 0; k < 200; ++k) d.step();
      d.gather(whole);
      EXPECT_LE(gauss_change(whole, r0, rho_e), 1e-12) << what << " (the deterministic slab code)";
    }
  }
}

// Reflecting and absorbing particle walls with open field boundaries keep Gauss's law in the
// interior too (the reflected path is deposited as one straight move).
TEST(ChargeConservation, ReflectingWallsKeepGaussLaw) {
  PicSettings s = test::periodic_settings(16, 8, 0.2, 0.2, 0.1);
  s.shape = ShapeOrder::tsc;
  s.field_bc.x = FieldBoundary::open;
  PicSimulation sim(s);
  Species e = test::electrons();
  e.bc.side[0] = e.bc.side[1] = ParticleBoundary::reflect;
  LoadSpec load;
  load.profile.n0 = 0.5;
  load.profile.x_start = 0.6;
  load.profile.x_end = 2.6;
  load.ppc_x = load.ppc_y = 2;
  load.u_thermal[0] = load.u_thermal[1] = load.u_thermal[2] = 0.2;
  const int ie = sim.add_species(e);
  sim.load(ie, load);
  sim.compute_rho(ie);
  const double rho_e = sim.rho_abs_max();
  sim.compute_rho();
  const std::vector<double> r0 = sim.gauss_residual_field();
  const std::size_t n0 = sim.species()[0].size();
  sim.run(300);
  sim.compute_rho();
  const std::vector<double> r1 = sim.gauss_residual_field();
  double worst = 0;
  // Interior nodes two cells from the walls (the Mur boundary nodes themselves are not Gauss-exact).
  const GridGeometry& g = s.geom;
  for (int j = 0; j < g.ny; ++j)
    for (int i = 2; i <= g.nx - 2; ++i) {
      const std::size_t k = std::size_t(j + kGuard) * g.stride() + std::size_t(i + kGuard);
      worst = std::max(worst, std::fabs(r1[k] - r0[k]));
    }
  EXPECT_EQ(sim.species()[0].size(), n0);
  EXPECT_LE(worst / rho_e, 1e-12);
}

}  // namespace
}  // namespace nbody::pic
