#pragma once
// What the sections' declarations share: range bounds and the shortest exact text of a number.
// The schema itself (include/nbody/config.hpp) includes no subsystem; each subsystem declares its
// section in its own parameters.cpp and src/config/sections.cpp puts them in order.
#include <cstdint>
#include <limits>
#include <string>

#include "nbody/config.hpp"

namespace nbody {

inline constexpr double kIntMax = double(std::numeric_limits<std::int64_t>::max());
inline constexpr double kRealMax = std::numeric_limits<double>::max();

// The shortest of 15, 16 or 17 significant digits that reads back as the same double, so that
// 0.15 is written 0.15 and every value still round-trips exactly.
[[nodiscard]] std::string format_number(double v);

}  // namespace nbody
