// The tiled deposition kernel (DepositKernel::tiled): the particles sorted by tile under the
// sorting policy (ParticleStore::sort_if_due), one block a tile adding its particles' currents
// into shared memory, then the tile into the grid.
#include "pic/cuda/module_globals.cuh"

#include "cuda/check.hpp"
#include "pic/cuda/deposit/deposit.hpp"
#include "pic/cuda/deposit/tiled.cuh"

namespace nbody::pic {
namespace {

class TiledRun final : public DepositRun {
 public:
  explicit TiledRun(PicGpu::Impl& engine) : DepositRun(engine) {
    m.particles.alloc_sort_buffers(m.particles.most_cap(), true);
    m.particles.alloc_tile_ranges();
  }
  void prepare() override {
    if (m.s.deposit) m.particles.sort_if_due(false);
  }
  void launch(std::size_t k, const PushParams& pp, const FieldViews& v) override {
    ParticleStore& ps = m.particles;
    double* const* f = m.fields.f;
    with_shape(m.s.shape, [&](auto shape) {
      using Shape = decltype(shape);
      particles_tiled<Shape><<<ps.tg.count(), kTileBlock>>>(DevParticles{ps.sp[k]}, v, pp, ps.tile_start[k],
                                                            ps.tile_end[k], TileGeometry{ps.tg}, f[kJx], f[kJy], f[kJz],
                                                            m.g.size(), m.g.stride(), m.g.rows(), ps.counters);
      NBODY_CUDA_CHECK_LAUNCH();
    });
  }
};

// (the sort buffers, a particle array and the tiles' slot ranges of every species)
std::size_t tiled_bytes(const DepositSizes& z) {
  return z.most * (sizeof(double) + 4 * sizeof(unsigned)) + 2 * z.tiles * z.species * sizeof(unsigned);
}

}  // namespace

const DepositOps tiled_deposit{&tiled_bytes, &make_deposit_run<TiledRun>, false};

}  // namespace nbody::pic
