// IAS15's Gauss-Radau table, computed by the host compiler (ias15_step.hpp): the CPU path reads
// it, the GPU backend copies it to constant memory; both use these bits.
#include "ensemble/ias15_step.hpp"

namespace nbody::ensemble {

const RadauTable& radau_table() {
  static constexpr RadauTable kTable = make_radau_table();
  return kTable;
}

}  // namespace nbody::ensemble
