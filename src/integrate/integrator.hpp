#pragma once
// Time integrators, chosen by name. Each is written against BackendBase, so it runs wherever the
// particles live (host or GPU) without copying them.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gravity/backend.hpp"

namespace nbody {

class Integrator {
 public:
  virtual ~Integrator() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  // Advances the state by dt.
  virtual void step(BackendBase& backend, double dt) = 0;
  // Force evaluations a step costs once the run is going (for interactions/s).
  [[nodiscard]] virtual int force_evaluations_per_step() const = 0;
};

struct IntegratorInfo {
  std::string name;
  std::string description;
  std::unique_ptr<Integrator> (*make)();
};

[[nodiscard]] const std::vector<IntegratorInfo>& integrators();
[[nodiscard]] std::vector<std::string> integrator_names();
// Throws an input error for an unknown name.
[[nodiscard]] std::unique_ptr<Integrator> make_integrator(std::string_view name);

std::unique_ptr<Integrator> make_euler();
std::unique_ptr<Integrator> make_leapfrog();

}  // namespace nbody
