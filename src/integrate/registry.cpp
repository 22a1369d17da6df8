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

std::unique_ptr<Integrator> make_integrator(std::string_view name) {
  for (const auto& i : integrators()) {
    if (i.name == name) return i.make();
  }
  throw_input_error("integrator: unknown integrator '" + std::string(name) + "' (choose from " +
                    join(integrator_names()) + ")");
}

}  // namespace nbody
