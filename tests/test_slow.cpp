// The full-size Plummer equilibrium run on the CPU: 16384 bodies over 10 crossing times (2828
// leapfrog steps, 7.6e11 pair interactions: one to a few minutes on two cores). Label `slow`,
// which the default test preset leaves out; run it with `ctest --preset slow`. The same check at
// N = 4096 is in the default suite (test_dynamics.cpp), and at N = 16384 on the GPU in the gpu suite.
#include "plummer_equilibrium.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

TEST(SlowDynamics, Plummer16384StaysInEquilibriumOverTenCrossingTimesOnTheCpu) {
  check_plummer_equilibrium("cpu", "fp32", 16384);
}

}  // namespace
}  // namespace nbody::test
