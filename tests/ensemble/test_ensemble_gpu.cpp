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

// The benchmark's hardest scatterings (ensemble_support.hpp: hundreds of thousands of steps
// through close approaches of a few 1e-4 a) have the CPU path's bits on the GPU, with the
// collision stop of the benchmark (0.01 a) and without one.
TEST(EnsembleGpuScatterings, TheClosestApproachesHaveTheBitsOfTheCpuPath) {
  if (!gpu_backend_available()) GTEST_SKIP() << "no usable CUDA device";
  const std::int64_t worst[] = {6533, 4943, 4858, 4340};
  for (const double radius : {0.0, 0.01}) {
    const Params p = bench_scattering_params(radius);
    EnsembleStore on_gpu = bench_scatterings(worst), on_cpu = on_gpu;
    auto gpu = make_gpu_backend();
    auto cpu = make_cpu_backend(0);
    integrate(*gpu, on_gpu, p, 40);
    integrate(*cpu, on_cpu, p, 40);
    for (std::int64_t k = 0; k < on_gpu.systems(); ++k)
      EXPECT_TRUE(same_system(on_gpu, k, on_cpu.single(k))) << "system " << worst[k] << ", collision radius " << radius;
  }
}

INSTANTIATE_TEST_SUITE_P(Integrators, EnsembleGpu,
                         testing::Values(Integrator::leapfrog, Integrator::yoshida4, Integrator::hermite4,
                                         Integrator::hermite4_adaptive, Integrator::hermite4_symmetric,
                                         Integrator::ias15),
                         [](const auto& info) { return std::string(integrator_name(info.param)); });

// The benchmark's situation (bench/ensemble_suite.cpp): Plummer spheres at dt = 1e-4 and
// eps^2 = 1e-4 over thousands of steps, in three calls (3, 32 and 2000 steps) whose targets come
// from the state's own time, the bodies copied back once at the end (fetch) — through each GPU
// shape: every system has the CPU path's bits. The sizes take each group (3: 4 lanes, 5: 8,
// 16: 16, 32: 32) and a warp's global-memory path (40).
class EnsembleGpuBench : public testing::TestWithParam<std::tuple<Integrator, const char*>> {
 protected:
  void SetUp() override {
    if (!gpu_backend_available()) GTEST_SKIP() << "no usable CUDA device";
  }
};

EnsembleStore bench_spheres() {
  EnsembleStore s;
  for (const int n : {3, 5, 16, 32, 40}) {
    PlummerSpec spec;
    spec.n = n;
    for (std::int64_t k = 0; k < 3; ++k) {
      const SystemBodies b = plummer_system(spec, 1, k);
      s.add_system(b.m, b.pos, b.vel);
    }
  }
  return s;
}

void bench_calls(Backend& b, EnsembleStore& s, const Params& p) {
  b.start(s, p);
  for (const int steps : {3, 32, 2000}) b.advance(s, p, s.state[0].t + double(steps) * p.dt);
  b.fetch(s);
}

TEST_P(EnsembleGpuBench, TheBitsOfTheCpuPathOverThousandsOfSteps) {
  Params p;
  p.integrator = std::get<0>(GetParam());
  p.dt = 1e-4, p.eps2 = 1e-4, p.t_end = 1e30;
  GpuShape shape;
  ASSERT_TRUE(gpu_shape_named(std::get<1>(GetParam()), shape));
  const EnsembleStore initial = bench_spheres();
  EnsembleStore on_gpu = initial, on_cpu = initial;
  auto gpu = make_gpu_backend(shape);
  auto cpu = make_cpu_backend(2);
  bench_calls(*gpu, on_gpu, p);
  bench_calls(*cpu, on_cpu, p);
  ASSERT_EQ(on_gpu.state[0].steps, 2035);
  for (std::int64_t k = 0; k < initial.systems(); ++k) EXPECT_TRUE(same_system(on_gpu, k, on_cpu.single(k)));
  // (the spheres moved: a comparison of the initial states would not pass)
  EXPECT_FALSE(same_bits(on_gpu.x, 0, initial.x, 3));
}

INSTANTIATE_TEST_SUITE_P(Shapes, EnsembleGpuBench,
                         testing::Combine(testing::Values(Integrator::leapfrog, Integrator::yoshida4),
                                          testing::Values("auto", "warp", "block")),
                         [](const auto& info) {
                           return std::string(integrator_name(std::get<0>(info.param))) + "_" + std::get<1>(info.param);
                         });

// IAS15 (its work arrays in global memory for every shape, staged or not) through each GPU
// shape: spheres of 3, 5, 16, 32 and 40 bodies (groups of 4, 8 and 16 lanes, a warp staged and
// in global memory, or a block each with "block"), over many adaptive steps in three intervals,
// a collision stop among them: every system has the CPU path's bits.
TEST(EnsembleGpuIas15, EveryShapeHasTheBitsOfTheCpuPath) {
  if (!gpu_backend_available()) GTEST_SKIP() << "no usable CUDA device";
  Params p;
  p.integrator = Integrator::ias15;
  p.dt = 0.05, p.eps2 = 1e-4, p.t_end = 0.5, p.collision_radius = 0.02;
  const EnsembleStore initial = bench_spheres();
  EnsembleStore on_cpu = initial;
  auto cpu = make_cpu_backend(2);
  integrate(*cpu, on_cpu, p, 3);
  for (const char* name : {"auto", "warp", "block"}) {
    GpuShape shape;
    ASSERT_TRUE(gpu_shape_named(name, shape));
    EnsembleStore on_gpu = initial;
    auto gpu = make_gpu_backend(shape);
    integrate(*gpu, on_gpu, p, 3);
    for (std::int64_t k = 0; k < initial.systems(); ++k) EXPECT_TRUE(same_system(on_gpu, k, on_cpu.single(k))) << name;
  }
  EXPECT_GT(on_cpu.state[0].steps, 3);
}

// The benchmark's hardest scatterings with IAS15 (passages to a few 1e-4 a without the collision
// stop): the CPU path's bits on the GPU, with the benchmark's collision stop and without one.
TEST(EnsembleGpuIas15, TheClosestApproachesHaveTheBitsOfTheCpuPath) {
  if (!gpu_backend_available()) GTEST_SKIP() << "no usable CUDA device";
  const std::int64_t worst[] = {6533, 4943, 4858, 4340};
  for (const double radius : {0.0, 0.01}) {
    Params p = bench_scattering_params(radius);
    p.integrator = Integrator::ias15;
    EnsembleStore on_gpu = bench_scatterings(worst), on_cpu = on_gpu;
    auto gpu = make_gpu_backend();
    auto cpu = make_cpu_backend(0);
    integrate(*gpu, on_gpu, p, 40);
    integrate(*cpu, on_cpu, p, 40);
    for (std::int64_t k = 0; k < on_gpu.systems(); ++k)
      EXPECT_TRUE(same_system(on_gpu, k, on_cpu.single(k))) << "system " << worst[k] << ", collision radius " << radius;
  }
}

// Systems stopped within the run by a collision or the energy limit, among them spheres of 5 and
// 16 bodies (the group kernel's end-of-interval checks): every shape stops them as the CPU does.
TEST(EnsembleGpuShapes, StopsAsTheCpuPathInEveryShape) {
  if (!gpu_backend_available()) GTEST_SKIP() << "no usable CUDA device";
  Params p;
  p.integrator = Integrator::leapfrog;
  p.dt = 0.01, p.t_end = 2.0, p.eps2 = 1e-6;
  p.collision_radius = 2e-2, p.energy_limit = 1e-4, p.escape_radius = 4;
  EnsembleStore initial = mixed_batch(4);
  for (const int n : {5, 16}) {
    PlummerSpec spec;
    spec.n = n;
    for (std::int64_t k = 0; k < 6; ++k) {
      const SystemBodies b = plummer_system(spec, 5, k);
      initial.add_system(b.m, b.pos, b.vel);
    }
  }
  EnsembleStore on_cpu = initial;
  auto cpu = make_cpu_backend(2);
  integrate(*cpu, on_cpu, p, 8);
  int small_collisions = 0, small_limits = 0;
  for (std::int64_t k = 0; k < on_cpu.systems(); ++k) {
    if (on_cpu.size_of(k) > 16) continue;
    small_collisions += on_cpu.state[std::size_t(k)].status == int(Outcome::collision);
    small_limits += on_cpu.state[std::size_t(k)].status == int(Outcome::energy_limit);
  }
  EXPECT_GT(small_collisions, 0);
  EXPECT_GT(small_limits, 0);
  for (const char* name : {"auto", "warp", "block"}) {
    GpuShape shape;
    ASSERT_TRUE(gpu_shape_named(name, shape));
    EnsembleStore on_gpu = initial;
    auto gpu = make_gpu_backend(shape);
    integrate(*gpu, on_gpu, p, 8);
    for (std::int64_t k = 0; k < initial.systems(); ++k) EXPECT_TRUE(same_system(on_gpu, k, on_cpu.single(k))) << name;
  }
}

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
