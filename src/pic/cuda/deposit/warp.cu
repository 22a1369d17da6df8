// The warp deposition kernel (DepositKernel::warp): the particles sorted by cell under the
// sorting policy (ParticleStore::sort_if_due), the warp-reduced deposit (deposit/warp.cuh), each
// block walking one contiguous range of slots. Over several blocks it notes the slots that empty
// for the migration; a block's arrivals wait at the end for the next sort.
#include "pic/cuda/module_globals.cuh"

#include <algorithm>
#include <type_traits>

#include "cuda/check.hpp"
#include "pic/cuda/deposit/deposit.hpp"
#include "pic/cuda/deposit/warp.cuh"

namespace nbody::pic {
namespace {

class WarpRun final : public DepositRun {
 public:
  explicit WarpRun(PicGpu::Impl& engine) : DepositRun(engine) {
    // (a block sorts in its work buffers, which grow with the arrivals: ParticleStore::ensure_work)
    if (!m.slab) m.particles.alloc_sort_buffers(m.particles.most_cap(), true);
  }
  void prepare() override {
    if (m.s.deposit) m.particles.sort_if_due(true);
  }
  void launch(std::size_t k, const PushParams& pp, const FieldViews& v) override {
    with_shape(m.s.shape, [&](auto shape) {
      using Shape = decltype(shape);
      const DevParticles d{m.particles.sp[k]};
      if (d.cell && m.opt.float32_currents) run<Shape, true, float>(d, k, pp, v);
      else if (d.cell) run<Shape, true, double>(d, k, pp, v);
      else run<Shape, false, double>(d, k, pp, v);
    });
  }

 private:
  template <class Shape, bool F32, class R>
  void run(const DevParticles& d, std::size_t k, const PushParams& pp, const FieldViews& v) {
    int& resident = resident_[Shape::support == ShapeTSC::support][F32 + std::is_same_v<R, float>];
    if (resident == 0) {  // the blocks the SMs hold at once, asked once
      int per_sm = 0, sms = 0;
      NBODY_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, particles_warp<Shape, F32, R>, kWarpBlock, 0));
      NBODY_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, m.opt.device));
      resident = std::max(per_sm, 1) * sms;
    }
    const std::size_t most = (d.n + kWarpBlock - 1) / kWarpBlock;
    const int blocks = int(std::max<std::size_t>(1, std::min<std::size_t>(most, std::size_t(resident))));
    particles_warp<Shape, F32, R><<<blocks, kWarpBlock>>>(d, v, pp, m.particles.counters, EmptiedList{m.migration.emptied(k)});
    NBODY_CUDA_CHECK_LAUNCH();
  }
  // the warp kernel's resident grid: [CIC, TSC][float64 store, float32 store, and float32 currents]
  int resident_[2][3] = {};
};

// (one GPU: the sort buffers and a particle array; a block's work buffers are the engine's)
std::size_t warp_bytes(const DepositSizes& z) { return z.blocks ? 0 : z.most * (sizeof(double) + 4 * sizeof(unsigned)); }

}  // namespace

const DepositOps warp_deposit{&warp_bytes, &make_deposit_run<WarpRun>, true};

}  // namespace nbody::pic
