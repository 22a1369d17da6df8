#include "support.hpp"

namespace nbody::test {

std::vector<BackendCase> backend_cases() {
  return {{"cpu", Precision::fp32},           {"cpu", Precision::fp64},          {"cpu", Precision::mixed},
          {"cpu-reference", Precision::fp32}, {"cpu-reference", Precision::fp64}};
}

}  // namespace nbody::test
