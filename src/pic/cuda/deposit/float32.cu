// The float32 deposition kernel (DepositKernel::float32, document 004's mixed precision): the
// fused particle kernel adds each contribution rounded to float32 with float32 atomics into
// float32 current grids, added to the float64 ones after the particle kernels.
#include "pic/cuda/module_globals.cuh"

#include "cuda/check.hpp"
#include "pic/cuda/deposit/deposit.hpp"
#include "pic/cuda/deposit/float32.cuh"
#include "pic/cuda/deposit/with_accumulators.cuh"

namespace nbody::pic {
namespace {

using nbody::cuda::ElementwisePolicy;

class Float32Run final : public DepositRun {
 public:
  explicit Float32Run(PicGpu::Impl& engine) : DepositRun(engine) {
    for (float*& p : fj_) p = m.alloc<float>(m.g.size());
  }
  ~Float32Run() override {
    for (float* p : fj_)
      if (p) cudaFree(p);
  }
  void prepare() override {
    for (float* p : fj_) NBODY_CUDA_CHECK(cudaMemset(p, 0, m.g.size() * sizeof(float)));
  }
  void launch(std::size_t k, const PushParams& pp, const FieldViews& v) override {
    double* const* f = m.fields.f;
    with_shape(m.s.shape, [&](auto shape) {
      using Shape = decltype(shape);
      const DevParticles d{m.particles.sp[k]};
      particles_with<Shape><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(
          d, v, pp, Float32Accumulate{{f[kJx], f[kJy], f[kJz]}, {fj_[0], fj_[1], fj_[2]}, m.g.size()});
      NBODY_CUDA_CHECK_LAUNCH();
    });
  }
  void finish() override {
    double* const* f = m.fields.f;
    add_float_currents<<<blocks_for(m.g.size()), ElementwisePolicy::kBlock>>>(f[kJx], f[kJy], f[kJz], fj_[0], fj_[1],
                                                                              fj_[2], m.g.size());
    NBODY_CUDA_CHECK_LAUNCH();
  }

 private:
  float* fj_[3] = {};  // Jx, Jy, Jz in float32
};

std::size_t float32_bytes(const DepositSizes& z) { return 3 * z.points * sizeof(float); }

}  // namespace

const DepositOps float32_deposit{&float32_bytes, &make_deposit_run<Float32Run>, false};

}  // namespace nbody::pic
