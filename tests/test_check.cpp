// The documents' check: its tolerance separates rounding from a wrong force.
#include "nbody/simulation.hpp"
#include "sim/documents_program.hpp"
#include "ic/ic.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

TEST(DocumentsCheck, ProgramIsTheDocumentsSetUp) {
  const RunConfig cfg = documents_program();
  EXPECT_EQ(cfg.ic, "cube");
  EXPECT_EQ(cfg.n, 4096);
  EXPECT_EQ(cfg.steps, 10);
  EXPECT_EQ(cfg.dt, 0.01);
  EXPECT_EQ(cfg.integrator, "euler");
  EXPECT_NEAR(cfg.softening * cfg.softening, 1e-9, 1e-24);
  EXPECT_EQ(cfg.gravitational_constant, 1.0);
}

TEST(DocumentsCheck, PassesForTheReferenceItself) {
  const auto r = check_documents_program("cpu-reference", "fp64", 512);
  EXPECT_TRUE(r.correct);
  EXPECT_EQ(r.errors.max_rel, 0.0);
  EXPECT_GT(r.sensitivity.rms_rel, 0.0);
}

// A force wrong by one part in 1e4 must fail the float32 tolerance: run the reference with
// G = 1 + 1e-4 and compare it as the check would.
TEST(DocumentsCheck, ToleranceRejectsASmallForceError) {
  const std::int64_t n = kDocumentsBodies;
  RunConfig cfg = documents_program(n);
  cfg.device = "cpu";
  cfg.gravity = "reference";
  cfg.precision = "fp64";
  const auto initial = make_cube({"cube", n, static_cast<std::uint64_t>(cfg.seed)});
  auto run = [&](const RunConfig& c, const Particles<double>& p0) {
    auto sim = Simulation::create(c, p0);
    sim->advance(c.steps);
    return sim->particles();
  };
  const auto ref = run(cfg, initial);
  RunConfig wrong = cfg;
  wrong.gravitational_constant = 1.0 + 1e-4;
  const auto bad = position_errors(run(wrong, initial), ref);
  const auto sensitivity = position_errors(run(cfg, perturb(initial, check_perturbation("fp32", n), 7)), ref);
  EXPECT_GT(bad.median_rel, kCheckToleranceFactor * sensitivity.median_rel)
      << "bad " << bad.median_rel << " sensitivity " << sensitivity.median_rel;
}

}  // namespace
}  // namespace nbody::test
