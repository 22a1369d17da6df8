// Same input, same bits: two fresh runs of every backend agree exactly.
#include <cstring>

#include "ic/ic.hpp"
#include "nbody/simulation.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

class Determinism : public testing::TestWithParam<BackendCase> {};

struct RunResult {
  Particles<double> particles;
  Diagnostics diagnostics;
};

RunConfig leapfrog_config(const BackendCase& c) {
  RunConfig cfg;
  cfg.ic = "plummer";
  cfg.n = 3001;  // not a multiple of any block size
  cfg.seed = 5;
  set_backend(cfg, c.backend);
  cfg.precision = std::string(to_string(c.precision));
  cfg.integrator = "leapfrog";
  cfg.dt = 1e-3;
  cfg.softening = 1e-3;
  return cfg;
}

RunResult run_once(const RunConfig& cfg, std::int64_t steps = 5) {
  auto sim = Simulation::create(cfg);
  sim->advance(steps);
  return {sim->particles(), sim->diagnostics()};
}

RunResult run_once(const BackendCase& c) { return run_once(leapfrog_config(c)); }

template <class V>
bool same_bits(const V& a, const V& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0;
}

TEST_P(Determinism, TwoRunsGiveIdenticalBits) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const auto a = run_once(GetParam());
  const auto b = run_once(GetParam());
  EXPECT_TRUE(same_bits(a.particles.x, b.particles.x));
  EXPECT_TRUE(same_bits(a.particles.y, b.particles.y));
  EXPECT_TRUE(same_bits(a.particles.z, b.particles.z));
  EXPECT_TRUE(same_bits(a.particles.vx, b.particles.vx));
  EXPECT_TRUE(same_bits(a.particles.vy, b.particles.vy));
  EXPECT_TRUE(same_bits(a.particles.vz, b.particles.vz));
  EXPECT_EQ(std::memcmp(&a.diagnostics, &b.diagnostics, sizeof(Diagnostics)), 0);
  // And the run moved: a kernel that wrote nothing would also be "deterministic".
  const auto start = make_plummer({"plummer", 3001, 5});
  EXPECT_FALSE(same_bits(a.particles.x, start.as<float>().as<double>().x));
  EXPECT_FALSE(same_bits(a.particles.x, start.x));
}

// Block time steps: the active sets, their upload and the host's level bookkeeping are in the
// path as well. Spline softening, so that law's kernels are covered too.
TEST_P(Determinism, Hermite4BlockStepsGiveIdenticalBits) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  RunConfig cfg = leapfrog_config(GetParam());
  cfg.n = 301;
  cfg.integrator = "hermite4";
  cfg.dt_mode = "block";
  cfg.dt = 1.0 / 64;
  cfg.softening = 0.01;
  cfg.softening_law = "spline";
  const auto a = run_once(cfg, 2);
  const auto b = run_once(cfg, 2);
  EXPECT_TRUE(same_bits(a.particles.x, b.particles.x));
  EXPECT_TRUE(same_bits(a.particles.vz, b.particles.vz));
  EXPECT_EQ(std::memcmp(&a.diagnostics, &b.diagnostics, sizeof(Diagnostics)), 0);
  const auto start = make_plummer({"plummer", 301, 5});
  EXPECT_FALSE(same_bits(a.particles.x, start.as<float>().as<double>().x));
  EXPECT_FALSE(same_bits(a.particles.x, start.x));
}

// Batched Euler steps (a CUDA graph of fused steps on the GPU, with an ordinary step before the
// first capture and single steps for the remainder) give the same bits as single steps.
TEST_P(Determinism, BatchedEulerStepsMatchSingleSteps) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const auto c = GetParam();
  const auto initial = make_plummer({"plummer", 2000, 3});
  auto run = [&](bool batched) {
    Particles<double> out;
    with_state_type(c.precision, [&]<class T>() {
      auto b = make_system<T>(c, initial.size(), {1.0, 1e-2});
      b->upload(initial.template as<T>());
      if (batched) {
        b->euler_steps(1e-3, 25);
        b->euler_steps(1e-3, 12);
      } else {
        for (int k = 0; k < 37; ++k) b->euler_step(1e-3);
      }
      EXPECT_EQ(b->interactions(), 37u * 2000u * 2000u);
      Particles<T> p;
      b->download(p);
      out = p.template as<double>();
    });
    return out;
  };
  const auto single = run(false);
  const auto batched = run(true);
  EXPECT_TRUE(same_bits(single.x, batched.x));
  EXPECT_TRUE(same_bits(single.vz, batched.vz));
  EXPECT_FALSE(same_bits(single.x, initial.as<float>().as<double>().x));
}

INSTANTIATE_TEST_SUITE_P(Backends, Determinism, testing::ValuesIn(backend_cases()), case_name);

}  // namespace
}  // namespace nbody::test
