// The atomic deposition kernel (DepositKernel::atomic): the fused particle kernel, each
// particle's current added to the grid with float64 atomicAdd. Over several blocks it notes the
// slots that empty for the migration.
#include "pic/cuda/module_globals.cuh"

#include "cuda/check.hpp"
#include "pic/cuda/deposit/deposit.hpp"
#include "pic/cuda/deposit/with_accumulators.cuh"

namespace nbody::pic {
namespace {

using nbody::cuda::ElementwisePolicy;

class AtomicRun final : public DepositRun {
 public:
  using DepositRun::DepositRun;
  void launch(std::size_t k, const PushParams& pp, const FieldViews& v) override { push_without_deposit(m, k, pp, v); }
};

std::size_t atomic_bytes(const DepositSizes&) { return 0; }

}  // namespace

void push_without_deposit(PicGpu::Impl& m, std::size_t k, const PushParams& pp, const FieldViews& v) {
  with_shape(m.s.shape, [&](auto shape) {
    using Shape = decltype(shape);
    const DevParticles d{m.particles.sp[k]};
    particles_with<Shape><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(d, v, pp, AtomicAccumulate{},
                                                                          EmptiedList{m.migration.emptied(k)});
    NBODY_CUDA_CHECK_LAUNCH();
  });
}

const DepositOps atomic_deposit{&atomic_bytes, &make_deposit_run<AtomicRun>, true};

}  // namespace nbody::pic
