#pragma once
#include <string>
#include <string_view>

namespace nbody {

// The floating-point type the particle state is stored and integrated in.
enum class Precision { fp32, fp64 };

[[nodiscard]] std::string_view to_string(Precision p) noexcept;
// Throws an input error naming `what` for an unknown name.
[[nodiscard]] Precision parse_precision(std::string_view name, std::string_view what = "precision");

}  // namespace nbody
