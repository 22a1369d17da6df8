// The particles' stable ids on one process.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "pic/cpu/simulation.hpp"

namespace nbody::pic {
namespace {

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
TEST(PicIds, ACopyWithoutIdsDropsThem) {
  PicSimulation sim = drifting_test_particles();
  Species& sp = sim.species()[0];
  std::reverse(sp.w.begin(), sp.w.end());  // (as a reordering copy would leave them)
  sim.set_time(sim.time() + sim.settings().dt, sim.step_count() + 1);
  EXPECT_TRUE(sim.particle_ids().empty());
  sim.run(2);
  EXPECT_TRUE(sim.particle_ids().empty()) << "lost ids are not made up";

  PicSimulation handed = drifting_test_particles();
  std::vector<std::uint64_t> id(handed.species()[0].size());
  std::iota(id.rbegin(), id.rend(), std::uint64_t(0));
  handed.particle_ids()[0] = id;
  handed.set_time(1.0, 20);
  ASSERT_EQ(handed.particle_ids().size(), 1u);
  EXPECT_EQ(handed.particle_ids()[0], id);
}

}  // namespace
}  // namespace nbody::pic
