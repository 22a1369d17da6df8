// A new gravity algorithm needs nothing but the ForceSolver interface: a plain float64 pair loop
// written here (no store, no kicks, no diagnostics, no Hermite protocol) runs every
// accelerations-only integrator through System and the same integrators as the built-in solvers,
// and its capabilities are enforced.
#include <cmath>

#include "ic/ic.hpp"
#include "integrate/integrator.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

class PairLoopSolver final : public ForceSolver<double> {
 public:
  explicit PairLoopSolver(const GravityParams& g) : ForceSolver<double>(g) {}
  std::string name() const override { return "pair-loop"; }
  std::string kernel() const override { return "pair loop (test)"; }
  std::string device() const override { return "CPU, one thread"; }
  Location location() const override { return Location::host(); }
  Precision precision() const override { return Precision::fp64; }
  SolverCapabilities capabilities() const override { return {}; }  // accelerations only

 protected:
  void do_accelerations(const TargetView<double>& t, const SourceView<double>& s, Vec3Span<double> out) override {
    const double eps2 = gravity().eps2();
    for (int i = 0; i < t.n; ++i) {
      double ax = 0, ay = 0, az = 0;
      for (int j = 0; j < s.n; ++j) {
        const double dx = s.x[j] - t.x[i], dy = s.y[j] - t.y[i], dz = s.z[j] - t.z[i];
        const double r2 = dx * dx + dy * dy + dz * dz + eps2;
        if (r2 == 0) continue;
        const double f = s.m[j] / (r2 * std::sqrt(r2));
        ax += f * dx;
        ay += f * dy;
        az += f * dz;
      }
      out.x[i] = gravity().G * ax;
      out.y[i] = gravity().G * ay;
      out.z[i] = gravity().G * az;
    }
  }
};

Particles<double> run(System<double>& system, const std::string& integrator, const Particles<double>& initial) {
  auto step = make_integrator<double>(integrator);
  system.upload(initial);
  step->prepare(system);
  step->steps(system, 1.0 / 64, 16);
  Particles<double> out;
  system.download(out);
  return out;
}

TEST(SolverInterface, ANewSolverRunsTheIntegratorsThroughSystem) {
  const GravityParams g{1.0, 0.05};
  const auto initial = make_plummer({"plummer", 128, 3});
  for (const std::string integrator : {"euler", "leapfrog", "yoshida4"}) {
    System<double> custom(std::make_unique<PairLoopSolver>(g), initial.size());
    auto reference = make_system<double>("cpu-reference", initial.size(), g);
    const auto a = run(custom, integrator, initial);
    const auto b = run(*reference, integrator, initial);
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      worst = std::max(worst, std::hypot(a.x[i] - b.x[i], a.y[i] - b.y[i], a.z[i] - b.z[i]));
    }
    // Two float64 sums of the same terms in the same order up to the i = j term: rounding only.
    EXPECT_LT(worst, 1e-12) << integrator;
    EXPECT_EQ(custom.interactions(), reference->interactions()) << integrator;
    EXPECT_EQ(custom.choice().gravity, "pair-loop");
  }
}

TEST(SolverInterface, CapabilitiesAreEnforced) {
  const GravityParams g{1.0, 0.05};
  System<double> custom(std::make_unique<PairLoopSolver>(g), 16);
  custom.upload(make_plummer({"plummer", 16, 3}));
  auto hermite = make_integrator<double>("hermite4");
  EXPECT_THROW(hermite->prepare(custom), Error);  // no jerks
  EXPECT_THROW((void)custom.potential_energy(), Error);
  // Euler without fused steps falls back to the solver's accelerations.
  custom.euler_steps(0.01, 3);
  EXPECT_EQ(custom.interactions(), 3u * 16u * 16u);
}

}  // namespace
}  // namespace nbody::test
