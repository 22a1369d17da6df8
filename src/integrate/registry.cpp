#include <string>

#include "core/strings.hpp"
#include "integrate/integrator.hpp"
#include "nbody/error.hpp"

namespace nbody {

const std::vector<IntegratorInfo>& integrators() {
  static const std::vector<IntegratorInfo> table = {
      {"euler", "the documents' scheme: v += a dt, then x += v dt (first order)", &make_euler},
      {"leapfrog", "kick-drift-kick leapfrog (second order, symplectic, one force evaluation a step)",
       &make_leapfrog},
      {"yoshida4", "Yoshida's triple-jump composition of leapfrog (fourth order, symplectic, three force evaluations a step)",
       &make_yoshida4},
      {"hermite4", "fourth-order Hermite predictor-corrector with jerks (one evaluation of a and da/dt a step; "
                   "shared or individual block time steps)",
       &make_hermite4},
  };
  return table;
}

std::vector<std::string> integrator_names() {
  std::vector<std::string> names;
  for (const auto& i : integrators()) names.push_back(i.name);
  return names;
}

void Integrator::restore_state(BackendBase& /*backend*/, std::span<const std::uint8_t> bytes) {
  if (!bytes.empty()) {
    throw_input_error("integrator " + name() + ": the checkpoint holds " + std::to_string(bytes.size()) +
                      " bytes of integrator state, this integrator keeps none");
  }
}

std::vector<std::string> dt_mode_names() { return {"fixed", "auto", "block"}; }

StepMode parse_step_mode(std::string_view name, std::string_view what) {
  if (name == "fixed") return StepMode::fixed;
  if (name == "auto") return StepMode::automatic;
  if (name == "block") return StepMode::block;
  throw_input_error(std::string(what) + ": unknown time-step mode '" + std::string(name) + "' (choose from " +
                    join(dt_mode_names()) + ")");
}

IntegratorOptions integrator_options(const RunConfig& cfg) {
  return {parse_step_mode(cfg.dt_mode), cfg.eta, cfg.softening};
}

void require_step_mode(const IntegratorOptions& options, std::string_view integrator, bool allows_auto,
                       bool allows_block) {
  if (options.mode == StepMode::automatic && !allows_auto) {
    throw_input_error("--dt-mode auto: integrator " + std::string(integrator) +
                      " takes fixed steps only (adaptive steps: leapfrog or hermite4)");
  }
  if (options.mode == StepMode::block && !allows_block) {
    throw_input_error("--dt-mode block: individual time steps need --integrator hermite4 (got " +
                      std::string(integrator) + ")");
  }
}

std::unique_ptr<Integrator> make_integrator(std::string_view name, const IntegratorOptions& options) {
  for (const auto& i : integrators()) {
    if (i.name == name) return i.make(options);
  }
  throw_input_error("integrator: unknown integrator '" + std::string(name) + "' (choose from " +
                    join(integrator_names()) + ")");
}

void check_integrator_options(const RunConfig& cfg) { (void)make_integrator(cfg.integrator, integrator_options(cfg)); }

}  // namespace nbody
