#pragma once
// Time integrators, chosen by name. Each is written against BackendBase, so it runs wherever the
// particles live (host or GPU) without copying them.
#include <cstdint>
#include <memory>
#include <span>
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

  // State the integrator carries from one step to the next besides the particles (time-step
  // levels, previous accelerations...), for checkpoints: its own encoding, stored under its
  // name, read back by restore_state on a backend that holds the checkpoint's particles. The
  // default carries none: euler recomputes everything each step, and leapfrog's "accelerations
  // current" is recomputed from the same positions after an upload, which gives the same bits.
  [[nodiscard]] virtual std::vector<std::uint8_t> save_state(BackendBase& /*backend*/) { return {}; }
  virtual void restore_state(BackendBase& backend, std::span<const std::uint8_t> bytes);
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
