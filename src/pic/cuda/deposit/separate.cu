// The separate deposition kernels (DepositKernel::separate): gather, push and deposit as three
// kernels, E and B and each particle's move kept in device arrays between them.
#include "pic/cuda/module_globals.cuh"

#include "cuda/check.hpp"
#include "pic/cuda/deposit/deposit.hpp"
#include "pic/cuda/deposit/separate.cuh"

namespace nbody::pic {
namespace {

using nbody::cuda::ElementwisePolicy;

class SeparateRun final : public DepositRun {
 public:
  explicit SeparateRun(PicGpu::Impl& engine) : DepositRun(engine) {
    const std::size_t most = m.particles.most_cap();
    eb_ = m.alloc<double>(6 * most);
    moves_ = m.alloc<ParticleMove>(most);
    active_ = m.alloc<unsigned char>(most);
  }
  ~SeparateRun() override {
    for (void* p : {static_cast<void*>(eb_), static_cast<void*>(moves_), static_cast<void*>(active_)})
      if (p) cudaFree(p);
  }
  void launch(std::size_t k, const PushParams& pp, const FieldViews& v) override {
    with_shape(m.s.shape, [&](auto shape) {
      using Shape = decltype(shape);
      const DevParticles d{m.particles.sp[k]};
      gather_kernel<Shape><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(d, v, pp, eb_);
      NBODY_CUDA_CHECK_LAUNCH();
      push_kernel<<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(d, pp, eb_, moves_, active_);
      NBODY_CUDA_CHECK_LAUNCH();
      deposit_kernel<Shape><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(d, v, pp, moves_, active_);
      NBODY_CUDA_CHECK_LAUNCH();
    });
  }

 private:
  double* eb_ = nullptr;  // E and B at each particle: [6][slots]
  ParticleMove* moves_ = nullptr;
  unsigned char* active_ = nullptr;  // alive at the start of the step
};

std::size_t separate_bytes(const DepositSizes& z) {
  return z.most * (6 * sizeof(double) + sizeof(ParticleMove) + 1);
}

}  // namespace

const DepositOps separate_deposit{&separate_bytes, &make_deposit_run<SeparateRun>, false};

}  // namespace nbody::pic
