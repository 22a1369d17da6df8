// The deterministic deposition kernel (DepositKernel::deterministic): every particle writes its
// K x K stencil of contributions to its own slots, the particles are stably sorted by stencil
// cell, and one thread a grid point sums the contributions that reach it in a fixed order (the
// same bits on every run). A block among several sums them cell by cell into the M x M cell
// classes' arrays of DomainPic (the same bits on any number and shape of blocks) and keeps its
// slots in id order.
#include "pic/cuda/module_globals.cuh"

#include <vector>

#include "cuda/check.hpp"
#include "nbody/error.hpp"
#include "pic/cuda/deposit/classed.cuh"
#include "pic/cuda/deposit/deposit.hpp"
#include "pic/cuda/deposit/ordered.cuh"

namespace nbody::pic {
namespace {

using nbody::cuda::ElementwisePolicy;

class DeterministicRun final : public DepositRun {
 public:
  explicit DeterministicRun(PicGpu::Impl& engine) : DepositRun(engine) {
    const GridGeometry& g = m.g;
    if (m.slab) {
      // (the contributions' buffer grows with the block's work buffers: reserve_slots)
      cell_start_ = m.alloc<unsigned>(g.size());
      cell_end_ = m.alloc<unsigned>(g.size());
      cls_ = m.alloc<double>(std::size_t(3 * m.classes) * g.size());
      NBODY_CUDA_CHECK(cudaMemset(cls_, 0, std::size_t(3 * m.classes) * g.size() * sizeof(double)));
      std::vector<FieldView> ct;
      for (int r = 0; r < 3 * m.classes; ++r) ct.push_back(FieldView{cls_ + std::size_t(r) * g.size(), g.stride()});
      cls_table_ = m.alloc<FieldView>(ct.size());
      NBODY_CUDA_CHECK(cudaMemcpy(cls_table_, ct.data(), ct.size() * sizeof(FieldView), cudaMemcpyHostToDevice));
      return;
    }
    const int K = stencil_points(m.s.shape);
    const std::size_t most = m.particles.most_cap();
    contrib_ = m.alloc<double>(std::size_t(3 * K * K) * most);
    m.particles.alloc_sort_buffers(most, false);
    cell_start_ = m.alloc<unsigned>(g.size());
    cell_end_ = m.alloc<unsigned>(g.size());
  }
  ~DeterministicRun() override {
    for (void* p : {static_cast<void*>(contrib_), static_cast<void*>(cell_start_), static_cast<void*>(cell_end_),
                    static_cast<void*>(cls_), static_cast<void*>(cls_table_)})
      if (p) cudaFree(p);
  }
  void prepare() override {
    if (m.slab) NBODY_CUDA_CHECK(cudaMemset(cls_, 0, std::size_t(3 * m.classes) * m.g.size() * sizeof(double)));
  }
  void launch(std::size_t k, const PushParams& pp, const FieldViews& v) override {
    with_shape(m.s.shape, [&](auto shape) {
      using Shape = decltype(shape);
      if (m.slab) push_classed<Shape>(k, pp, v);
      else push_ordered<Shape>(k, pp, v);
    });
  }
  // J = A_0 + ... + A_{M^2-1} node by node, in this order, after the arrays' guards were folded
  // and summed across the cuts.
  void fold_block_sources() override {
    double* const* f = m.fields.f;
    m.exchange.fold_sources(cls_table_, 3 * m.classes);
    sum_classes<<<blocks_for(m.g.size()), ElementwisePolicy::kBlock>>>(f[kJx], f[kJy], f[kJz], cls_, m.classes,
                                                                       m.g.size());
    NBODY_CUDA_CHECK_LAUNCH();
  }
  void reserve_slots(std::size_t n) override {
    if (contrib_) NBODY_CUDA_CHECK(cudaFree(contrib_));
    contrib_ = nullptr;
    const int K = stencil_points(m.s.shape);
    contrib_ = m.alloc<double>(std::size_t(3 * K * K) * n);
  }
  void slots_changed(std::size_t k) override { m.particles.sort_by_id(k); }

 private:
  // One GPU: particles_ordered, then reduce_ordered into J.
  template <class Shape>
  void push_ordered(std::size_t k, const PushParams& pp, const FieldViews& v) {
    ParticleStore& ps = m.particles;
    const GridGeometry& g = m.g;
    double* const* f = m.fields.f;
    const DevParticles d{ps.sp[k]};
    constexpr int K = Shape::support + 2;
    const std::size_t per = std::size_t(3 * K * K);
    NBODY_CUDA_CHECK(cudaMemset(contrib_, 0, per * d.n * sizeof(double)));
    LocalAccumulate<K> acc{{f[kJx], f[kJy], f[kJz]}, g.size(), g.stride(), 0, 0, contrib_, d.n, 0};
    const unsigned sentinel = unsigned(g.size());
    particles_ordered<Shape><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(d, v, pp, acc, ps.keys, ps.order, sentinel);
    NBODY_CUDA_CHECK_LAUNCH();
    int bits = 1;
    while ((std::size_t(1) << bits) <= g.size()) ++bits;
    ps.sort_pairs(d.n, bits);
    NBODY_CUDA_CHECK(cudaMemset(cell_start_, 0, g.size() * sizeof(unsigned)));
    NBODY_CUDA_CHECK(cudaMemset(cell_end_, 0, g.size() * sizeof(unsigned)));
    ps.key_ranges(d.n, sentinel, cell_start_, cell_end_);
    reduce_ordered<K><<<blocks_for(g.size()), ElementwisePolicy::kBlock>>>(
        f[kJx], f[kJy], f[kJz], g.stride(), g.size(), cell_start_, cell_end_, ps.order_sorted, contrib_, d.n);
    NBODY_CUDA_CHECK_LAUNCH();
  }
  // A block: particles_classed, then reduce_classes into the class arrays.
  template <class Shape>
  void push_classed(std::size_t k, const PushParams& pp, const FieldViews& v) {
    ParticleStore& ps = m.particles;
    const GridGeometry& g = m.g;
    double* const* f = m.fields.f;
    const DevParticles d{ps.sp[k]};
    constexpr int K = Shape::support + 2;
    if (d.n > std::size_t(0x7fffffff)) throw_input_error("pic: more than 2^31 particles of a species on one slab");
    NBODY_CUDA_CHECK(cudaMemset(contrib_, 0, std::size_t(3 * K * K) * d.n * sizeof(double)));
    LocalAccumulate<K> acc{{f[kJx], f[kJy], f[kJz]}, g.size(), g.stride(), 0, 0, contrib_, d.n, 0};
    const unsigned sentinel = unsigned(g.size());
    particles_classed<Shape><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(
        d, v, pp, acc, m.exchange.owner(), m.exchange.row_owner(), m.so.i_offset, m.so.j_offset, g.rows(), ps.keys,
        ps.order, ps.offs, sentinel);
    NBODY_CUDA_CHECK_LAUNCH();
    int bits = 1;
    while ((std::size_t(1) << bits) <= g.size()) ++bits;
    ps.sort_pairs(int(d.n), bits);
    NBODY_CUDA_CHECK(cudaMemset(cell_start_, 0, g.size() * sizeof(unsigned)));
    NBODY_CUDA_CHECK(cudaMemset(cell_end_, 0, g.size() * sizeof(unsigned)));
    ps.key_ranges(d.n, sentinel, cell_start_, cell_end_);
    reduce_classes<K><<<blocks_for(g.size()), ElementwisePolicy::kBlock>>>(
        cls_, m.class_m, m.so.i_offset, m.so.j_offset, g.stride(), g.rows(), g.size(), cell_start_, cell_end_,
        ps.order_sorted, ps.offs, contrib_, d.n);
    NBODY_CUDA_CHECK_LAUNCH();
  }

  double* contrib_ = nullptr;  // 3 K^2 contributions a slot
  unsigned *cell_start_ = nullptr, *cell_end_ = nullptr;
  double* cls_ = nullptr;  // a block's class arrays: 3 x classes arrays of the grid's size
  FieldView* cls_table_ = nullptr;
};

// (the contributions, the sort buffers and the cells' slot ranges; a block's class arrays)
std::size_t deterministic_bytes(const DepositSizes& z) {
  std::size_t b = z.most * (std::size_t(3 * z.K * z.K) * sizeof(double) + 4 * sizeof(unsigned)) +
                  2 * z.points * sizeof(unsigned);
  if (z.blocks) b += 3 * z.M * z.M * z.points * sizeof(double);
  return b;
}

}  // namespace

const DepositOps deterministic_deposit{&deterministic_bytes, &make_deposit_run<DeterministicRun>, false};

}  // namespace nbody::pic
