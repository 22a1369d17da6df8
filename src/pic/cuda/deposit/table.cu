// The deposition table's CUDA half (deposit_kernels.hpp): each row's DepositOps, and what a
// kernel does by default.
#include <iterator>

#include "nbody/error.hpp"
#include "pic/cuda/deposit/deposit.hpp"

namespace nbody::pic {

const DepositOps& deposit_ops(DepositKernel k) {
#define NBODY_PIC_DEPOSIT_OPS(name, flags, help) &name##_deposit,
  static const DepositOps* const ops[] = {NBODY_PIC_DEPOSIT_KERNELS(NBODY_PIC_DEPOSIT_OPS)};
#undef NBODY_PIC_DEPOSIT_OPS
  const auto i = static_cast<std::size_t>(k);
  if (i >= std::size(ops)) throw_runtime_error("pic: a deposition kernel outside the table");
  return *ops[i];
}

void DepositRun::fold_block_sources() { m.exchange.fold_sources(m.fields.view_table + 6, 3); }

}  // namespace nbody::pic
