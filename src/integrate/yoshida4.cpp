// Yoshida's fourth-order symplectic integrator (H. Yoshida 1990, Phys. Lett. A 150, 262): the
// symmetric composition S(w1 dt) S(w0 dt) S(w1 dt) of the second-order kick-drift-kick leapfrog
// S, with w1 = 1 / (2 - 2^{1/3}) and w0 = -2^{1/3} w1 (so 2 w1 + w0 = 1 and the third-order
// error terms cancel). The middle substep goes backwards in time.
//
// Adjacent half kicks of consecutive substeps merge, and the accelerations after each drift are
// those the next kick needs, so a step costs three force evaluations:
//   K(w1/2) D(w1) F K((w1 + w0)/2) D(w0) F K((w0 + w1)/2) D(w1) F K(w1/2)
// (F = compute accelerations); the last F serves the first kick of the next step.
#include <array>
#include <cmath>

#include "integrate/integrator.hpp"

namespace nbody {
namespace {

// A symmetric composition of leapfrog substeps, as weights of dt.
struct Composition {
  std::array<double, 3> substeps;
};

const Composition& yoshida_triple_jump() {
  static const Composition c = [] {
    const double cbrt2 = std::cbrt(2.0);
    const double w1 = 1.0 / (2.0 - cbrt2);
    const double w0 = -cbrt2 * w1;
    return Composition{{w1, w0, w1}};
  }();
  return c;
}

template <class T>
class Yoshida4 final : public Integrator<T> {
 public:
  std::string name() const override { return "yoshida4"; }

  void step(System<T>& b, double dt) override {
    const auto& w = yoshida_triple_jump().substeps;
    if (!b.accelerations_current()) b.compute_accelerations();
    b.kick(0.5 * w[0] * dt);
    for (std::size_t s = 0; s < w.size(); ++s) {
      b.drift(w[s] * dt);
      b.compute_accelerations();
      const double next = s + 1 < w.size() ? w[s + 1] : 0.0;
      b.kick(0.5 * (w[s] + next) * dt);
    }
  }

};

}  // namespace

template <class T>
std::unique_ptr<Integrator<T>> make_yoshida4(const IntegratorOptions& options) {
  require_step_mode(options, "yoshida4", false, false);
  return std::make_unique<Yoshida4<T>>();
}

NBODY_INSTANTIATE_INTEGRATOR(make_yoshida4)

}  // namespace nbody
