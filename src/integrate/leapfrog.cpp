// Kick-drift-kick leapfrog (velocity Verlet): second order, symplectic, time-reversible. The
// accelerations at the end of a step are those at the start of the next, so a step costs one
// force evaluation (plus one before the first step).
//
// --dt-mode auto: each step of dt is covered by substeps h = eta sqrt(eps / |a|max), the time a
// body with the largest acceleration takes to move a fraction of the softening length from
// rest (|a|max reduced where the particles live, System::max_acceleration). The criterion
// is evaluated before every substep, and the substeps are made to end exactly on the end of
// dt: h = remaining / ceil(remaining / h_criterion). The trade-off: a KDK step whose length
// depends on the state is no longer symplectic nor time-reversible, so the energy error is no
// longer bounded over long times; it drifts slowly instead of oscillating. In exchange close
// encounters get short steps and quiet phases long ones. For long collisionless runs prefer a
// fixed dt; for runs with rare close encounters, auto.
#include <cmath>
#include <limits>

#include "integrate/integrator.hpp"
#include "nbody/error.hpp"

namespace nbody {
namespace {

template <class T>
class LeapfrogKdk final : public Integrator<T> {
 public:
  explicit LeapfrogKdk(const IntegratorOptions& o) : adaptive_(o.mode == StepMode::automatic), eta_(o.eta) {}

  std::string name() const override { return "leapfrog"; }

  void step(System<T>& b, double dt) override {
    if (!adaptive_) {
      substep(b, dt);
      return;
    }
    double remaining = dt;
    while (remaining > 0) {
      if (!b.accelerations_current()) b.compute_accelerations();
      const double pieces = std::ceil(remaining / criterion(b));
      if (pieces > 1) {
        const double h = remaining / pieces;
        substep(b, h);
        remaining -= h;
      } else {  // the rest of the interval in one substep (also when the criterion is inf or NaN)
        substep(b, remaining);
        remaining = 0;
      }
    }
  }


 private:
  void substep(System<T>& b, double h) {
    if (!b.accelerations_current()) b.compute_accelerations();
    b.kick(0.5 * h);
    b.drift(h);
    b.compute_accelerations();
    b.kick(0.5 * h);
  }

  // eta sqrt(eps / |a|max); +inf when nothing accelerates.
  double criterion(System<T>& b) const {
    const double amax = b.max_acceleration();
    if (amax == 0) return std::numeric_limits<double>::infinity();
    return eta_ * std::sqrt(b.gravity().softening / amax);
  }

  bool adaptive_;
  double eta_;
};

}  // namespace

template <class T>
std::unique_ptr<Integrator<T>> make_leapfrog(const IntegratorOptions& options) {
  require_step_mode(options, "leapfrog", true, false);
  if (options.mode == StepMode::automatic && !(options.softening > 0)) {
    throw_input_error("--dt-mode auto: the leapfrog criterion eta sqrt(eps/|a|max) needs --softening > 0");
  }
  return std::make_unique<LeapfrogKdk<T>>(options);
}

NBODY_INSTANTIATE_INTEGRATOR(make_leapfrog)

}  // namespace nbody
