#include <string>

#include "nbody/error.hpp"
#include "nbody/precision.hpp"

namespace nbody {

std::string_view to_string(Precision p) noexcept { return p == Precision::fp32 ? "fp32" : "fp64"; }

Precision parse_precision(std::string_view name, std::string_view what) {
  if (name == "fp32") return Precision::fp32;
  if (name == "fp64") return Precision::fp64;
  throw_input_error(std::string(what) + ": unknown precision '" + std::string(name) + "' (choose fp32 or fp64)");
}

}  // namespace nbody
