#pragma once
// Time integrators, chosen by name. Each steps a System<T> (a store, a force solver and the
// element-wise operations where the store lives), so it runs with every solver on every device
// without copying the bodies. State an integrator carries between steps lives in store fields
// it registers (the Hermite jerks and times), so whatever reorders the bodies moves it too.
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "integrate/names.hpp"
#include "integrate/system.hpp"
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
  // hermite4 block and shared adaptive steps: run each interval's block steps as one loop on the
  // device where the store and the solver can (particles::BlockLoop); false: the host drives
  // every block step (the same bits; kept for comparisons).
  bool device_loop = true;
};

// What an integrator with block or adaptive steps did (hermite4): the force passes it made
// ("block steps"), the active bodies summed over them, and the block steps by the size of their
// active set: histogram[b] counts those with 2^b <= active < 2^(b+1) (b = 0 also holds empty ones).
struct BlockStepStats {
  std::uint64_t block_steps = 0;
  std::uint64_t active = 0;
  std::array<std::uint64_t, 32> histogram{};
  std::uint64_t device_loops = 0;  // intervals whose block steps ran as one loop on the device
};

template <class T>
class Integrator {
 public:
  virtual ~Integrator() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  // Called once, before the first step, with the system it will step: registers the store
  // fields it keeps and checks that the solver can do what it needs. Throws an input error when
  // that does not fit or the solver lacks a capability.
  virtual void prepare(System<T>& /*system*/) {}
  // Advances the state by dt.
  virtual void step(System<T>& system, double dt) = 0;
  // Advances by `count` steps of dt; integrators whose steps a solver can batch override it.
  virtual void steps(System<T>& system, double dt, std::int64_t count) {
    for (std::int64_t k = 0; k < count; ++k) step(system, dt);
  }

  // State the integrator carries from one step to the next besides the particles (time-step
  // levels, previous accelerations...), for checkpoints: its own encoding, stored under its
  // name, read back by restore_state on a system that holds the checkpoint's particles. The
  // default carries none: euler recomputes everything each step, and leapfrog's "accelerations
  // current" is recomputed from the same positions after an upload, which gives the same bits.
  [[nodiscard]] virtual std::vector<std::uint8_t> save_state(System<T>& /*system*/) { return {}; }
  virtual void restore_state(System<T>& system, std::span<const std::uint8_t> bytes);
  // What the next step depends on beyond the store, per body, for checkpoints (hermite4: each
  // body's time-step level, once started); empty for self-starting integrators.
  [[nodiscard]] virtual std::vector<std::int32_t> particle_state() const { return {}; }
  // Takes what particle_state() gave (with the store's state restored alongside).
  virtual void restore_particle_state(std::vector<std::int32_t> /*state*/) {}
  // Counts since the integrator was made (zero for integrators without block steps).
  [[nodiscard]] virtual BlockStepStats block_stats() const { return {}; }
};

struct IntegratorInfo {
  std::string name;
  std::string description;
  bool needs_jerk = false;  // the solver must compute jerks (SolverCapabilities::jerk)
  std::unique_ptr<Integrator<float>> (*make_float)(const IntegratorOptions&);
  std::unique_ptr<Integrator<double>> (*make_double)(const IntegratorOptions&);
};

[[nodiscard]] const std::vector<IntegratorInfo>& integrators();
// Throws an input error naming `what` for an unknown name.
[[nodiscard]] StepMode parse_step_mode(std::string_view name, std::string_view what = "dt_mode");
[[nodiscard]] IntegratorOptions integrator_options(const RunConfig& cfg);
// Throws an input error for an unknown name or options the integrator cannot use.
template <class T>
[[nodiscard]] std::unique_ptr<Integrator<T>> make_integrator(std::string_view name,
                                                             const IntegratorOptions& options = {});

template <class T>
std::unique_ptr<Integrator<T>> make_euler(const IntegratorOptions& options = {});
template <class T>
std::unique_ptr<Integrator<T>> make_leapfrog(const IntegratorOptions& options = {});
template <class T>
std::unique_ptr<Integrator<T>> make_yoshida4(const IntegratorOptions& options = {});
template <class T>
std::unique_ptr<Integrator<T>> make_hermite4(const IntegratorOptions& options = {});

// For factories: an input error unless options.mode is one the integrator supports.
void require_step_mode(const IntegratorOptions& options, std::string_view integrator, bool allows_auto,
                       bool allows_block);

// Explicit instantiation of a factory for both precisions.
#define NBODY_INSTANTIATE_INTEGRATOR(make)                                                        \
  template std::unique_ptr<Integrator<float>> make<float>(const IntegratorOptions&);              \
  template std::unique_ptr<Integrator<double>> make<double>(const IntegratorOptions&);

}  // namespace nbody
