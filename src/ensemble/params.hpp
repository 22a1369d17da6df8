#pragma once
// The integration parameters every system of an ensemble shares (plain data, for the host loop
// and the CUDA kernel alike), and the outcomes a system ends with.
#include <cstdint>

namespace nbody::ensemble {

// hermite4_symmetric: the adaptive Hermite with P(EC)^2 and compensated summation; ias15: the
// 15th-order Gauss-Radau predictor-corrector with adaptive steps (ias15_step.hpp).
enum class Integrator : int {
  leapfrog = 0,
  yoshida4 = 1,
  hermite4 = 2,
  hermite4_adaptive = 3,
  hermite4_symmetric = 4,
  ias15 = 5,
};

// Why a system stopped (0: it has not).
enum class Outcome : int {
  running = 0,
  end_time = 1,
  escape = 2,
  collision = 3,
  energy_limit = 4,
  diverged = 5,    // a position or velocity that is not finite
  step_limit = 6,  // the adaptive step fell below min_dt
};

inline const char* outcome_name(int o) {
  switch (Outcome(o)) {
    case Outcome::running: return "running";
    case Outcome::end_time: return "end_time";
    case Outcome::escape: return "escape";
    case Outcome::collision: return "collision";
    case Outcome::energy_limit: return "energy_limit";
    case Outcome::diverged: return "diverged";
    case Outcome::step_limit: return "step_limit";
  }
  return "unknown";
}
inline constexpr int kOutcomes = 7;

inline const char* integrator_name(Integrator i) {
  switch (i) {
    case Integrator::leapfrog: return "leapfrog";
    case Integrator::yoshida4: return "yoshida4";
    case Integrator::hermite4: return "hermite4";
    case Integrator::hermite4_adaptive: return "hermite4_adaptive";
    case Integrator::hermite4_symmetric: return "hermite4_symmetric";
    case Integrator::ias15: return "ias15";
  }
  return "unknown";
}

struct Params {
  Integrator integrator = Integrator::leapfrog;
  double dt = 1e-3;          // the step (fixed integrators), the first and largest step (adaptive)
  double eta = 0.02;         // Aarseth's accuracy parameter (adaptive Hermite)
  double eta_start = 0.01;   // the first step: eta_start |a| / |j|
  double epsilon = 1e-9;     // IAS15's accuracy: |b6| / |a| of a step (the next step from it)
  double min_dt = 1e-12;     // an adaptive step below this stops the system (step_limit)
  double eps2 = 0;           // softening squared
  double t_end = 1;          // the end time of every system
  double escape_radius = 0;  // 0: no escape check
  double collision_radius = 0;  // 0: no collision check
  double energy_limit = 0;      // |dE/E| above which a system stops; 0: none
};

}  // namespace nbody::ensemble
