// Bit-exact restart through the library, on every backend: a simulation advanced T steps,
// checkpointed (encoded to bytes and decoded again, as a file would be) and continued for T
// more gives the same bits as one advanced 2T steps. The state goes through
// System<T>::download and upload, so the same body checks the CUDA solver.
#include <cstring>

#include "integrate/integrator.hpp"
#include "io/checkpoint.hpp"
#include "nbody/simulation.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

class Restart : public testing::TestWithParam<BackendCase> {};

template <class V>
bool same_bits(const std::vector<V>& a, const std::vector<V>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(V)) == 0;
}

RunConfig restart_config(const BackendCase& c, const std::string& integrator) {
  RunConfig cfg;
  cfg.ic = "plummer";
  cfg.n = 513;  // not a multiple of any block size
  cfg.seed = 11;
  set_backend(cfg, c.backend);
  cfg.precision = std::string(to_string(c.precision));
  cfg.integrator = integrator;
  cfg.dt = 2e-3;
  cfg.softening = 1e-2;
  return cfg;
}

TEST_P(Restart, CheckpointAndContinueGivesTheSameBits) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  constexpr std::int64_t kHalf = 7;
  // Every registered integrator: one that carries state between steps must save and restore it.
  for (const std::string& integrator : integrator_names()) {
    const RunConfig cfg = restart_config(GetParam(), integrator);
    auto straight = Simulation::create(cfg);
    straight->advance(2 * kHalf);

    auto first = Simulation::create(cfg);
    first->advance(kHalf);
    (void)first->diagnostics();  // asking for diagnostics must not matter either
    Checkpoint ck = first->checkpoint();
    first.reset();
    ck.progress.initial.total = -0.25;
    ck.progress.diagnostics_rows = 3;
    ck.progress.snapshots = 1;
    const Checkpoint back = decode_checkpoint(encode_checkpoint(ck), "memory");
    EXPECT_EQ(back.integrator.tag, integrator);
    auto resumed = Simulation::create_from_checkpoint(back);
    EXPECT_EQ(resumed->step_count(), kHalf);
    EXPECT_EQ(resumed->time(), ck.time);
    resumed->advance(kHalf);

    EXPECT_EQ(resumed->step_count(), straight->step_count());
    EXPECT_EQ(resumed->time(), straight->time());
    const auto a = straight->particles();
    const auto b = resumed->particles();
    EXPECT_TRUE(same_bits(a.x, b.x)) << integrator;
    EXPECT_TRUE(same_bits(a.y, b.y)) << integrator;
    EXPECT_TRUE(same_bits(a.z, b.z)) << integrator;
    EXPECT_TRUE(same_bits(a.vx, b.vx)) << integrator;
    EXPECT_TRUE(same_bits(a.vy, b.vy)) << integrator;
    EXPECT_TRUE(same_bits(a.vz, b.vz)) << integrator;
    EXPECT_EQ(a.id, b.id);
    const auto da = straight->diagnostics();
    const auto db = resumed->diagnostics();
    EXPECT_EQ(std::memcmp(&da, &db, sizeof da), 0) << integrator;
  }
}

TEST_P(Restart, CheckpointHoldsTheStateInTheRunsPrecision) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  auto sim = Simulation::create(restart_config(GetParam(), "leapfrog"));
  sim->advance(2);
  const Checkpoint ck = sim->checkpoint();
  // float state for fp32, double for fp64 and mixed
  EXPECT_EQ(ck.state.index(), GetParam().precision == Precision::fp32 ? 0u : 1u);
  EXPECT_EQ(ck.step, 2);
  EXPECT_EQ((SolverChoice{ck.config.device, ck.config.gravity}), solver_choice_of_backend(GetParam().backend));
}

INSTANTIATE_TEST_SUITE_P(Backends, Restart, testing::ValuesIn(backend_cases()), case_name);

}  // namespace
}  // namespace nbody::test
