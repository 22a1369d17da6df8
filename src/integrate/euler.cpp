// The documents' scheme: v += a(x) dt, then x += v dt (the updated velocity). First order; it
// is the semi-implicit (symplectic) Euler method, so its energy error stays bounded. Batches of
// steps go to the system in one call, so a solver with fused steps (the CUDA direct sum) runs
// them from a CUDA graph.
#include "integrate/integrator.hpp"

namespace nbody {
namespace {

template <class T>
class Euler final : public Integrator<T> {
 public:
  std::string name() const override { return "euler"; }
  void step(System<T>& s, double dt) override { s.euler_step(dt); }
  void steps(System<T>& s, double dt, std::int64_t count) override { s.euler_steps(dt, count); }
};

}  // namespace

template <class T>
std::unique_ptr<Integrator<T>> make_euler(const IntegratorOptions& options) {
  require_step_mode(options, "euler", false, false);
  return std::make_unique<Euler<T>>();
}

NBODY_INSTANTIATE_INTEGRATOR(make_euler)

}  // namespace nbody
