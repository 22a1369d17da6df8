// The ensemble's GPU path (label gpu; each test skips without a usable CUDA device): each system
// of a batch has the bits of the same system alone on the GPU, and the bits of the CPU path
// (both compiled without FMA contraction, operation for operation the same arithmetic); a run
// through the program on the GPU writes the CPU run's results.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ensemble_support.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

using namespace nbody::ensemble;
namespace fs = std::filesystem;

class EnsembleGpu : public testing::TestWithParam<Integrator> {
 protected:
  void SetUp() override {
    if (!gpu_backend_available()) GTEST_SKIP() << "no usable CUDA device";
  }
  Params params() const {
    Params p;
    p.integrator = GetParam();
    p.dt = 0.01, p.eta = 0.02, p.t_end = 1.0, p.eps2 = 1e-6;
    p.collision_radius = 1e-3, p.energy_limit = 1e-2, p.escape_radius = 50;
    return p;
  }
};

TEST_P(EnsembleGpu, EachSystemAsAloneOnTheGpu) {
  const EnsembleStore initial = mixed_batch(3);  // (Plummer spheres of 40: the global-memory path)
  EnsembleStore batch = initial;
  auto gpu = make_gpu_backend();
  integrate(*gpu, batch, params(), 3);
  for (std::int64_t k = 0; k < initial.systems(); ++k) {
    EnsembleStore one = initial.single(k);
    auto alone = make_gpu_backend();
    integrate(*alone, one, params(), 3);
    EXPECT_TRUE(same_system(batch, k, one));
  }
}

TEST_P(EnsembleGpu, TheBitsOfTheCpuPath) {
  const EnsembleStore initial = mixed_batch(3);
  EnsembleStore on_gpu = initial, on_cpu = initial;
  auto gpu = make_gpu_backend();
  auto cpu = make_cpu_backend(2);
  integrate(*gpu, on_gpu, params(), 3);
  integrate(*cpu, on_cpu, params(), 3);
  for (std::int64_t k = 0; k < initial.systems(); ++k) EXPECT_TRUE(same_system(on_gpu, k, on_cpu.single(k)));
}

INSTANTIATE_TEST_SUITE_P(Integrators, EnsembleGpu,
                         testing::Values(Integrator::leapfrog, Integrator::yoshida4, Integrator::hermite4,
                                         Integrator::hermite4_adaptive),
                         [](const auto& info) { return std::string(integrator_name(info.param)); });

TEST(EnsembleGpuRun, TheProgramOnTheGpuWritesTheCpuResults) {
  if (!gpu_backend_available()) GTEST_SKIP() << "no usable CUDA device";
  const fs::path base = temp_dir("ensemble_gpu_run");
  std::ofstream(base / "deck.toml") << "[ensemble]\ngenerator = \"scattering\"\nsystems = 500\n[integrator]\n"
                                       "name = \"hermite4_adaptive\"\ndt = 0.05\n[time]\nt_end = 20\nintervals = 4\n"
                                       "[stop]\nescape_radius = 15\n";
  const std::string deck = (base / "deck.toml").string();
  ASSERT_EQ(run_nbody("ensemble --config " + deck + " --out " + (base / "cpu").string()).status, 0);
  const auto g = run_nbody("ensemble --config " + deck + " --out " + (base / "gpu").string() + " --set run.device=cuda");
  ASSERT_EQ(g.status, 0) << g.err;
  EXPECT_NE(g.out.find("one warp a system"), std::string::npos) << g.out;
  for (const char* f : {"results.csv", "final_states.csv"})
    EXPECT_EQ(read_text((base / "cpu" / f).string()), read_text((base / "gpu" / f).string())) << f;
}

}  // namespace
}  // namespace nbody::test
