#pragma once
#include <string>
#include <string_view>

namespace nbody {

// The arithmetic of a run. fp32 and fp64: the particle state and every operation in that type.
// mixed: the state and the integration in float64, each pairwise force term in float32, each
// body's sum of terms in float64 (float32 partial sums over tiles of sources on the GPU).
enum class Precision { fp32, fp64, mixed };

[[nodiscard]] std::string_view to_string(Precision p) noexcept;
// Throws an input error naming `what` for an unknown name ("fp32", "fp64", "mixed").
[[nodiscard]] Precision parse_precision(std::string_view name, std::string_view what = "precision");

}  // namespace nbody
