#pragma once
#include "nbody/config.hpp"

namespace nbody {

// [model]: the initial conditions, their parameters and the unit system.
[[nodiscard]] ParamSection model_parameters();

}  // namespace nbody
