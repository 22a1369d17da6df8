// The documents' scheme: v += a(x) dt, then x += v dt (the updated velocity). First order; it
// is the semi-implicit (symplectic) Euler method, so its energy error stays bounded.
#include "integrate/integrator.hpp"

namespace nbody {
namespace {

class Euler final : public Integrator {
 public:
  std::string name() const override { return "euler"; }
  void step(BackendBase& b, double dt) override { b.euler_step(dt); }
  void steps(BackendBase& b, double dt, std::int64_t count) override { b.euler_steps(dt, count); }
};

}  // namespace

std::unique_ptr<Integrator> make_euler(const IntegratorOptions& options) {
  require_step_mode(options, "euler", false, false);
  return std::make_unique<Euler>();
}

}  // namespace nbody
