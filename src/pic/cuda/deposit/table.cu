// The deposition kernels' DepositOps by DepositKernel, and what a kernel does by default.
#include "nbody/error.hpp"
#include "pic/cuda/deposit/deposit.hpp"

namespace nbody::pic {

const DepositOps& deposit_ops(DepositKernel k) {
  switch (k) {
    case DepositKernel::atomic: return atomic_deposit;
    case DepositKernel::separate: return separate_deposit;
    case DepositKernel::cas: return cas_deposit;
    case DepositKernel::float32: return float32_deposit;
    case DepositKernel::redundant: return redundant_deposit;
    case DepositKernel::tiled: return tiled_deposit;
    case DepositKernel::warp: return warp_deposit;
    case DepositKernel::deterministic: return deterministic_deposit;
  }
  throw_runtime_error("pic: a deposition kernel without its launch");
}

void DepositRun::fold_block_sources() { m.exchange.fold_sources(m.fields.view_table + 6, 3); }

}  // namespace nbody::pic
