// The cas deposition kernel (DepositKernel::cas): the fused particle kernel with float64 atomics
// emulated by a compare-and-swap loop, as GPUs before Pascal had to (document 004's baseline).
#include "pic/cuda/module_globals.cuh"

#include "cuda/check.hpp"
#include "pic/cuda/deposit/deposit.hpp"
#include "pic/cuda/deposit/with_accumulators.cuh"

namespace nbody::pic {
namespace {

using nbody::cuda::ElementwisePolicy;

class CasRun final : public DepositRun {
 public:
  using DepositRun::DepositRun;
  void launch(std::size_t k, const PushParams& pp, const FieldViews& v) override {
    with_shape(m.s.shape, [&](auto shape) {
      using Shape = decltype(shape);
      const DevParticles d{m.particles.sp[k]};
      particles_with<Shape><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(d, v, pp, CasAccumulate{});
      NBODY_CUDA_CHECK_LAUNCH();
    });
  }
};

std::size_t cas_bytes(const DepositSizes&) { return 0; }

}  // namespace

const DepositOps cas_deposit{&cas_bytes, &make_deposit_run<CasRun>, false};

}  // namespace nbody::pic
