#pragma once
#include "nbody/config.hpp"

namespace nbody {

// [gravity]: G, softening, where and how the forces are computed, the arithmetic.
[[nodiscard]] ParamSection gravity_parameters();

}  // namespace nbody
