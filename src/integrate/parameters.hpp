#pragma once
#include "nbody/config.hpp"

namespace nbody {

// [integrator]: the time integrator, its step and its step criterion.
[[nodiscard]] ParamSection integrator_parameters();

}  // namespace nbody
