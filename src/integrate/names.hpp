#pragma once
// The names a configuration may give for integrators and time-step modes, and the check of an
// integrator's options. Light on purpose: the configuration schema includes it.
#include <string>
#include <vector>

#include "nbody/config.hpp"

namespace nbody {

[[nodiscard]] std::vector<std::string> integrator_names();
[[nodiscard]] std::vector<std::string> dt_mode_names();  // fixed, auto, block
// Throws an input error when cfg.integrator is unknown or cannot use cfg's options (dt_mode, eta).
void check_integrator_options(const RunConfig& cfg);

}  // namespace nbody
