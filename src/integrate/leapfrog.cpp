// Kick-drift-kick leapfrog (velocity Verlet): second order, symplectic, time-reversible. The
// accelerations at the end of a step are those at the start of the next, so a step costs one
// force evaluation (plus one before the first step).
#include "integrate/integrator.hpp"

namespace nbody {
namespace {

class LeapfrogKdk final : public Integrator {
 public:
  std::string name() const override { return "leapfrog"; }
  void step(BackendBase& b, double dt) override {
    if (!b.accelerations_current()) b.compute_accelerations();
    b.kick(0.5 * dt);
    b.drift(dt);
    b.compute_accelerations();
    b.kick(0.5 * dt);
  }
  int force_evaluations_per_step() const override { return 1; }
};

}  // namespace

std::unique_ptr<Integrator> make_leapfrog() { return std::make_unique<LeapfrogKdk>(); }

}  // namespace nbody
