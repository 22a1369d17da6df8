#pragma once
// The CUDA half of the deposition table's rows (deposit_kernels.hpp): what the engine asks of a
// deposition kernel, the device memory it will hold, its buffers, and its part of each step. The
// kernel's file, deposit/<name>.cu, defines its DepositOps `<name>_deposit`; deposit_ops finds
// it by the row.
#include <cstddef>
#include <memory>

#include "pic/cuda/deposit_kernels.hpp"
#include "pic/cuda/engine.hpp"

namespace nbody::pic {

// The sizes a kernel's buffers follow.
struct DepositSizes {
  std::size_t points = 0;   // grid points (a block's)
  std::size_t most = 0;     // particles of the largest species
  std::size_t species = 0;
  std::size_t tiles = 0;    // ParticleStore::tg's
  int K = 0;                // a stencil's points a side (the shape's support + 2)
  std::size_t M = 0;        // a block's cell classes a side (pic/domain.hpp's deposit_classes)
  bool blocks = false;      // a block among the run's (GpuSlabOptions)
};

// One PicGpu's deposition kernel: its buffers (made by its DepositOps::make, freed by its
// destructor) and what it does in a step.
class DepositRun {
 public:
  explicit DepositRun(PicGpu::Impl& engine) : m(engine) {}
  virtual ~DepositRun() = default;
  DepositRun(const DepositRun&) = delete;
  DepositRun& operator=(const DepositRun&) = delete;
  // Before the step's particle kernels (J zeroed): sorting, its own buffers zeroed.
  virtual void prepare() {}
  // Species k's particle kernels (k has slots; the run's shape, pp and v the species' step).
  virtual void launch(std::size_t k, const PushParams& pp, const FieldViews& v) = 0;
  // After every species' particle kernels: what it summed apart added into J.
  virtual void finish() {}
  // A block: its sources folded and summed across the cuts into J (J itself by default).
  virtual void fold_block_sources();
  // A block: the per-slot work buffers grew to n slots.
  virtual void reserve_slots(std::size_t /*n*/) {}
  // A block: the migration changed species k's slots.
  virtual void slots_changed(std::size_t /*k*/) {}

 protected:
  PicGpu::Impl& m;
};

struct DepositOps {
  // The device memory its buffers will take (checked before the engine allocates anything).
  std::size_t (*bytes)(const DepositSizes&);
  // Its buffers allocated.
  std::unique_ptr<DepositRun> (*make)(PicGpu::Impl&);
  // Over several blocks its particle kernel notes the slots that empty (Migration::emptied), so
  // that the migration reads only those.
  bool notes_emptied = false;
};

// Each row's, defined in its kernel's file.
#define NBODY_PIC_DEPOSIT_OPS(name, flags, help) extern const DepositOps name##_deposit;
NBODY_PIC_DEPOSIT_KERNELS(NBODY_PIC_DEPOSIT_OPS)
#undef NBODY_PIC_DEPOSIT_OPS

[[nodiscard]] const DepositOps& deposit_ops(DepositKernel k);

template <class Run>
std::unique_ptr<DepositRun> make_deposit_run(PicGpu::Impl& m) {
  return std::make_unique<Run>(m);
}

// The particle step without a deposit (PicSettings::deposit off), whatever the run's kernel: the
// atomic kernel's, which then adds nothing (deposit/atomic.cu).
void push_without_deposit(PicGpu::Impl& m, std::size_t k, const PushParams& pp, const FieldViews& v);

// f(ShapeCIC{}) or f(ShapeTSC{}), the run's shape.
template <class F>
void with_shape(ShapeOrder shape, F&& f) {
  if (shape == ShapeOrder::tsc) f(ShapeTSC{});
  else f(ShapeCIC{});
}

// A stencil's points a side, K = support + 2.
[[nodiscard]] inline int stencil_points(ShapeOrder shape) {
  return shape == ShapeOrder::tsc ? ShapeTSC::support + 2 : ShapeCIC::support + 2;
}

}  // namespace nbody::pic
