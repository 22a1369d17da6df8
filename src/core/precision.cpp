#include <string>

#include "nbody/error.hpp"
#include "nbody/precision.hpp"

namespace nbody {

std::string_view to_string(Precision p) noexcept {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::fp64: return "fp64";
    case Precision::mixed: return "mixed";
  }
  return "fp32";
}

Precision parse_precision(std::string_view name, std::string_view what) {
  if (name == "fp32") return Precision::fp32;
  if (name == "fp64") return Precision::fp64;
  if (name == "mixed") return Precision::mixed;
  throw_input_error(std::string(what) + ": unknown precision '" + std::string(name) +
                    "' (choose fp32, fp64 or mixed)");
}

}  // namespace nbody
