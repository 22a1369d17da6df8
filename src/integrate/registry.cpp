#include <string>

#include "core/strings.hpp"
#include "gravity/names.hpp"
#include "integrate/integrator.hpp"
#include "nbody/error.hpp"

namespace nbody {

const std::vector<IntegratorInfo>& integrators() {
  static const std::vector<IntegratorInfo> table = {
      {"euler", "the documents' scheme: v += a dt, then x += v dt (first order)", false, &make_euler<float>,
       &make_euler<double>},
      {"leapfrog", "kick-drift-kick leapfrog (second order, symplectic, one force evaluation a step)", false,
       &make_leapfrog<float>, &make_leapfrog<double>},
      {"yoshida4", "Yoshida's triple-jump composition of leapfrog (fourth order, symplectic, three force evaluations a step)",
       false, &make_yoshida4<float>, &make_yoshida4<double>},
      {"hermite4", "fourth-order Hermite predictor-corrector with jerks (one evaluation of a and da/dt a step; "
                   "shared or individual block time steps)",
       true, &make_hermite4<float>, &make_hermite4<double>},
  };
  return table;
}

std::vector<std::string> integrator_names() {
  std::vector<std::string> names;
  for (const auto& i : integrators()) names.push_back(i.name);
  return names;
}

template <class T>
void Integrator<T>::restore_state(System<T>& /*system*/, std::span<const std::uint8_t> bytes) {
  if (!bytes.empty()) {
    throw_input_error("integrator " + name() + ": the checkpoint holds " + std::to_string(bytes.size()) +
                      " bytes of integrator state, this integrator keeps none");
  }
}
template class Integrator<float>;
template class Integrator<double>;

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

template <class T>
std::unique_ptr<Integrator<T>> make_integrator(std::string_view name, const IntegratorOptions& options) {
  for (const auto& i : integrators()) {
    if (i.name != name) continue;
    if constexpr (sizeof(T) == 4) {
      return i.make_float(options);
    } else {
      return i.make_double(options);
    }
  }
  throw_input_error("integrator: unknown integrator '" + std::string(name) + "' (choose from " +
                    join(integrator_names()) + ")");
}

template std::unique_ptr<Integrator<float>> make_integrator<float>(std::string_view, const IntegratorOptions&);
template std::unique_ptr<Integrator<double>> make_integrator<double>(std::string_view, const IntegratorOptions&);

void check_integrator_options(const RunConfig& cfg) {
  (void)make_integrator<double>(cfg.integrator, integrator_options(cfg));
  for (const auto& i : integrators()) {
    if (i.name == cfg.integrator && i.needs_jerk && !gravity_computes_jerk(cfg.gravity)) {
      throw_input_error("integrator: " + i.name + " needs jerks, which --gravity " + cfg.gravity + " does not compute");
    }
  }
}

}  // namespace nbody
