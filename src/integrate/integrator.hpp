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
#include "integrate/names.hpp"
#include "nbody/config.hpp"

namespace nbody {

// How an integrator chooses its steps within each step of dt that Simulation::advance asks for
// (--dt-mode). dt stays the unit of --steps, of the outputs and of Simulation::time().
enum class StepMode {
  fixed,      // one step of dt
  automatic,  // "auto": shared substeps from the integrator's criterion, none longer than dt
  block,      // individual power-of-two fractions of dt per body (hermite4)
};

struct IntegratorOptions {
  StepMode mode = StepMode::fixed;
  double eta = 0.02;       // accuracy parameter of the step criterion
  double softening = 0.0;  // eps, for criteria that use it (leapfrog's)
};

class Integrator {
 public:
  virtual ~Integrator() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  // Called once, before the first step, with the backend it will step: reserves what the
  // integrator keeps there. Throws an input error when that does not fit.
  virtual void prepare(BackendBase& /*backend*/) {}
  // Advances the state by dt.
  virtual void step(BackendBase& backend, double dt) = 0;
  // Advances by `count` steps of dt; integrators whose steps the backend can batch override it.
  virtual void steps(BackendBase& backend, double dt, std::int64_t count) {
    for (std::int64_t k = 0; k < count; ++k) step(backend, dt);
  }

  // State the integrator carries from one step to the next besides the particles (time-step
  // levels, previous accelerations...), for checkpoints: its own encoding, stored under its
  // name, read back by restore_state on a backend that holds the checkpoint's particles. The
  // default carries none: euler recomputes everything each step, and leapfrog's "accelerations
  // current" is recomputed from the same positions after an upload, which gives the same bits.
  [[nodiscard]] virtual std::vector<std::uint8_t> save_state(BackendBase& /*backend*/) { return {}; }
  virtual void restore_state(BackendBase& backend, std::span<const std::uint8_t> bytes);
  // What the next step depends on beyond the backend's state, per body, for checkpoints
  // (hermite4: each body's time-step level, once started); empty for self-starting integrators.
  [[nodiscard]] virtual std::vector<std::int32_t> particle_state() const { return {}; }
  // Takes what particle_state() gave (with the backend's state restored alongside).
  virtual void restore_particle_state(std::vector<std::int32_t> /*state*/) {}
};

struct IntegratorInfo {
  std::string name;
  std::string description;
  std::unique_ptr<Integrator> (*make)(const IntegratorOptions&);
};

[[nodiscard]] const std::vector<IntegratorInfo>& integrators();
// Throws an input error naming `what` for an unknown name.
[[nodiscard]] StepMode parse_step_mode(std::string_view name, std::string_view what = "dt_mode");
[[nodiscard]] IntegratorOptions integrator_options(const RunConfig& cfg);
// Throws an input error for an unknown name or options the integrator cannot use.
[[nodiscard]] std::unique_ptr<Integrator> make_integrator(std::string_view name, const IntegratorOptions& options = {});

std::unique_ptr<Integrator> make_euler(const IntegratorOptions& options = {});
std::unique_ptr<Integrator> make_leapfrog(const IntegratorOptions& options = {});
std::unique_ptr<Integrator> make_yoshida4(const IntegratorOptions& options = {});
std::unique_ptr<Integrator> make_hermite4(const IntegratorOptions& options = {});

// For factories: an input error unless options.mode is one the integrator supports.
void require_step_mode(const IntegratorOptions& options, std::string_view integrator, bool allows_auto,
                       bool allows_block);

}  // namespace nbody
