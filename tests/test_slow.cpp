// The full-size Plummer equilibrium run on the CPU: 16384 bodies over 10 crossing times (2828
// leapfrog steps, 7.6e11 pair interactions: one to a few minutes on two cores). Label `slow`,
// which the default test preset leaves out; run it with `ctest --preset slow`. The same check at
// N = 4096 is in the default suite (test_dynamics.cpp), and at N = 16384 on the GPU in the gpu suite.
#include "plummer_equilibrium.hpp"
#include "support.hpp"
#include "tree_plummer.hpp"

namespace nbody::test {
namespace {

TEST(SlowDynamics, Plummer16384StaysInEquilibriumOverTenCrossingTimesOnTheCpu) {
  check_plummer_equilibrium("cpu", "fp32", 16384);
}

// The tree's Plummer sphere over 100 crossing times (N = 4096, softening 0.05, dt = 0.025,
// 11,314 steps): the Lagrangian radii stay within their sampling bounds (two-body relaxation,
// t_rh ~ 100 time units with this softening's smaller Coulomb logarithm, moves them by less
// over the 283 time units), the energy to 1e-3.
TEST(SlowDynamics, PlummerWithTheTreeOverAHundredCrossingTimes) { check_tree_plummer(4096, 0.05, 0.025, 100.0, 1e-3); }

}  // namespace
}  // namespace nbody::test
