// The full-size Plummer equilibrium run (16384 bodies, 10 crossing times) on the CUDA backend
// (label gpu; skipped where no CUDA device is usable).
#include "plummer_equilibrium.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

TEST(GpuDynamics, Plummer16384StaysInEquilibriumOverTenCrossingTimes) {
  NBODY_SKIP_IF_UNAVAILABLE((BackendCase{"cuda", Precision::fp32}));
  check_plummer_equilibrium("cuda", "fp32", 16384);
}

}  // namespace
}  // namespace nbody::test
