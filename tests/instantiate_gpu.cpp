#include "support.hpp"

namespace nbody::test {

std::vector<BackendCase> backend_cases() {
  return {{"cuda", Precision::fp32}, {"cuda", Precision::fp64}, {"cuda", Precision::mixed}};
}

}  // namespace nbody::test
