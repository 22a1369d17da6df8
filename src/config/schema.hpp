#pragma once
// The schema core's own helper (its messages, the TOML it writes). What a subsystem needs to
// declare its section is public (include/nbody/config.hpp), so no subsystem includes src/config/,
// and the dependency runs one way: sections.cpp includes each subsystem's parameters.hpp.
#include <string>

namespace nbody {

// The shortest of 15, 16 or 17 significant digits that reads back as the same double, so that
// 0.15 is written 0.15 and every value still round-trips exactly.
[[nodiscard]] std::string format_number(double v);

}  // namespace nbody
