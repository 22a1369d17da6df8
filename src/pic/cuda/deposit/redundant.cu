// The redundant deposition kernel (DepositKernel::redundant, document 004's dynamic
// redundancy): each stencil position of a particle adds to its own copy of the current grids,
// and in the densest tiles each copy is split four ways again by the particle's quadrant of its
// cell (a pool slab a dense tile); the copies are added into J after the particle kernels.
#include "pic/cuda/module_globals.cuh"

#include <algorithm>
#include <vector>

#include "cuda/check.hpp"
#include "pic/cuda/deposit/deposit.hpp"
#include "pic/cuda/deposit/redundant.cuh"

namespace nbody::pic {
namespace {

using nbody::cuda::ElementwisePolicy;

class RedundantRun final : public DepositRun {
 public:
  explicit RedundantRun(PicGpu::Impl& engine) : DepositRun(engine) {
    const int K = stencil_points(m.s.shape);
    const unsigned tiles = m.particles.tg.count();
    ncopies_ = K * K;
    max_dense_ = std::max(1, int(tiles / 4));
    copies_ = m.alloc<double>(std::size_t(ncopies_) * 3 * m.g.size());
    pool_ = m.alloc<double>(std::size_t(max_dense_) * pool_slab());
    dense_slot_ = m.alloc<int>(tiles);
    dense_tiles_ = m.alloc<unsigned>(tiles);
    tile_counts_ = m.alloc<unsigned>(tiles);
  }
  ~RedundantRun() override {
    for (void* p : {static_cast<void*>(copies_), static_cast<void*>(pool_), static_cast<void*>(dense_slot_),
                    static_cast<void*>(dense_tiles_), static_cast<void*>(tile_counts_)})
      if (p) cudaFree(p);
  }
  void prepare() override {
    if (!m.s.deposit) return;
    if (dense_step_ < 0 || m.step - dense_step_ >= kRedundancyRefresh) {
      choose_dense_tiles();
      dense_step_ = m.step;
    }
    NBODY_CUDA_CHECK(cudaMemset(copies_, 0, std::size_t(ncopies_) * 3 * m.g.size() * sizeof(double)));
    NBODY_CUDA_CHECK(cudaMemset(pool_, 0, std::size_t(dense_count_) * pool_slab() * sizeof(double)));
  }
  void launch(std::size_t k, const PushParams& pp, const FieldViews& v) override {
    double* const* f = m.fields.f;
    with_shape(m.s.shape, [&](auto shape) {
      using Shape = decltype(shape);
      const DevParticles d{m.particles.sp[k]};
      particles_redundant<Shape><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(
          d, v, pp, TileGeometry{m.particles.tg}, f[kJx], f[kJy], f[kJz], m.g.size(), m.g.stride(), copies_, pool_,
          dense_slot_);
      NBODY_CUDA_CHECK_LAUNCH();
    });
  }
  void finish() override {
    if (!m.s.deposit) return;
    double* const* f = m.fields.f;
    reduce_copies<<<blocks_for(m.g.size()), ElementwisePolicy::kBlock>>>(f[kJx], f[kJy], f[kJz], copies_, ncopies_,
                                                                          m.g.size());
    NBODY_CUDA_CHECK_LAUNCH();
    if (dense_count_ > 0) {
      reduce_pool<<<dense_count_, ElementwisePolicy::kBlock>>>(f[kJx], f[kJy], f[kJz], pool_, dense_tiles_,
                                                               ncopies_ * kSubCopies, TileGeometry{m.particles.tg},
                                                               m.g.stride(), m.g.rows());
      NBODY_CUDA_CHECK_LAUNCH();
    }
  }

 private:
  // A dense tile's pool slab: its copies, each split by quadrant, over the tile's span.
  [[nodiscard]] std::size_t pool_slab() const { return std::size_t(ncopies_) * kSubCopies * 3 * kTileSpan * kTileSpan; }
  // Chooses the dense tiles from the live particles' tile counts: those above twice the mean
  // over non-empty tiles, the most populated first, at most max_dense_.
  void choose_dense_tiles() {
    const TileGrid& tg = m.particles.tg;
    NBODY_CUDA_CHECK(cudaMemset(tile_counts_, 0, tg.count() * sizeof(unsigned)));
    for (const DeviceSpecies& d : m.particles.sp) {
      if (d.n == 0) continue;
      count_tiles<<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(DevParticles{d}, TileGeometry{tg}, tile_counts_);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    std::vector<unsigned> counts(tg.count());
    NBODY_CUDA_CHECK(cudaMemcpy(counts.data(), tile_counts_, counts.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    double sum = 0, filled = 0;
    for (unsigned c : counts) sum += c, filled += c > 0;
    const double threshold = filled > 0 ? 2.0 * sum / filled : 0;
    std::vector<unsigned> order;
    for (unsigned t = 0; t < counts.size(); ++t)
      if (counts[t] > threshold) order.push_back(t);
    std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) { return counts[a] > counts[b]; });
    if (int(order.size()) > max_dense_) order.resize(std::size_t(max_dense_));
    std::vector<int> slot(tg.count(), -1);
    for (std::size_t k = 0; k < order.size(); ++k) slot[order[k]] = int(k);
    dense_count_ = int(order.size());
    NBODY_CUDA_CHECK(cudaMemcpy(dense_slot_, slot.data(), slot.size() * sizeof(int), cudaMemcpyHostToDevice));
    if (!order.empty())
      NBODY_CUDA_CHECK(cudaMemcpy(dense_tiles_, order.data(), order.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
  }

  int ncopies_ = 0;  // K * K directional copies
  double* copies_ = nullptr;
  double* pool_ = nullptr;
  int* dense_slot_ = nullptr;        // per tile: its pool slab, or -1
  unsigned* dense_tiles_ = nullptr;  // per slab: its tile
  unsigned* tile_counts_ = nullptr;
  int max_dense_ = 0, dense_count_ = 0;
  std::int64_t dense_step_ = -1;  // the step of the last choice
};

std::size_t redundant_bytes(const DepositSizes& z) {
  const std::size_t dense = std::max<std::size_t>(1, z.tiles / 4);
  return std::size_t(z.K * z.K) * 3 * z.points * sizeof(double) +
         dense * std::size_t(z.K * z.K) * kSubCopies * 3 * kTileSpan * kTileSpan * sizeof(double) +
         z.tiles * (sizeof(int) + 2 * sizeof(unsigned));
}

}  // namespace

const DepositOps redundant_deposit{&redundant_bytes, &make_deposit_run<RedundantRun>, false};

}  // namespace nbody::pic
