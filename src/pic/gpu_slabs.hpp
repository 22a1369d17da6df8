#pragma once
// The PIC run over several GPUs (docs/pic.md, "Several GPUs"): every MPI rank owns one slab of
// cell columns along x (the SlabLayout of the CPU path, pic/domain.hpp) and one PicGpu on GPU
// rank % device_count (several ranks may share a GPU). One step on every rank:
//   1. push and deposit its particles on its device: atomic (float64 atomics into J); warp (the
//      particles sorted by cell under the empty_ratio policy, the ids moving with them, and the
//      warp-reduced deposit of pic/gpu.hpp); or deterministic: every particle's contributions
//      sorted by its cell (stable, the slots in id order), one thread a grid point sums them into
//      M = deposit_classes(shape) arrays by the cell column modulo M, so that each value of an
//      array comes from one column (one rank);
//   2. the y guards folded, the x guards on the global edges folded (one rank) or dropped (open);
//      the guard columns of every source array copied to the host (pack_guard_columns' layout),
//      sent to the neighbour and added there (a sum, not a copy), copied back; in the
//      deterministic mode J = A_0 + ... + A_{M-1} node by node in that order;
//   3. the field solve on the slab's points; after each of its three parts the E and B guard
//      columns go to the neighbours the same way (copied, not added);
//   4. the particles whose cell left the slab are compacted out on the device (a stable
//      selection: the residents keep their order), sent as records (kMigrationRecord words)
//      to the neighbour that owns them, appended there, and the species is sorted by id again
//      (warp: not; the arrivals wait at the end for the next sort by cell).
// The deterministic mode gives the same bits on any number of ranks: a value of an array is a sum
// over the particles of one cell column, cell by cell in a fixed order and particle by particle
// in id order; the images and the arrays are added in the order of one rank. The diagnostics and
// outputs come from the state gathered on rank 0 (DomainPic::gather), as the CPU slab path's.
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "comm/communicator.hpp"
#include "pic/domain.hpp"
#include "pic/gpu.hpp"
#include "pic/slab_index.hpp"

namespace nbody::pic {

inline constexpr int kMigrationRecord = kMigrationWords;  // species, id, then the bits of x, y, ux, uy, uz, w

// (SlabOwner and guard_index, shared with the device code: pic/slab_index.hpp)
std::vector<double> pack_guard_columns(const std::vector<const double*>& arrays, const GridGeometry& slab, int first_column);
// Adds (or, add = false, copies) a message into the kGuard columns starting at first_column.
void unpack_guard_columns(const std::vector<double>& in, const std::vector<double*>& arrays, const GridGeometry& slab,
                          int first_column, bool add);

// Migration on the host side: where a particle of `owner` goes from this rank (-1 left, +1
// right, 0 it stays; right first when both neighbours are the same rank); a throw for a rank
// beyond the neighbours.
int migration_side(int owner, const SlabLayout& l);
// (arrivals_of: the arrived records of a species sorted by id, in pic/slab_index.hpp)

// The slab run on GPUs (collective where DomainPic is).
class DomainPicGpu {
 public:
  DomainPicGpu(const PicSimulation& global, comm::Communicator& comm, const PicGpuOptions& options);
  ~DomainPicGpu();
  void step();
  // The whole state into `global` on rank `root` (or every rank), as DomainPic::gather.
  void gather(PicSimulation& global, int root = -1);
  // Tracks the Poynting flux through the planes of global columns i_left, i_right (see
  // PicGpu::track_poynting); poynting() returns the owners' values on every rank (collective).
  void track_poynting(int i_left, int i_right);
  PoyntingTrack poynting();
  [[nodiscard]] const SlabLayout& layout() const { return host_->layout(); }
  [[nodiscard]] std::int64_t step_count() const { return gpu_->step_count(); }
  [[nodiscard]] std::size_t local_particles(bool mobile_only = false) const;
  [[nodiscard]] PicGpu::StepTimes total_times() const;
  // The warp kernel's sorts by cell so far (0 for the other kernels).
  [[nodiscard]] std::int64_t sorts() const { return sorts_before_ + gpu_->sorts(); }
  // Load balance (pic/balance.hpp; collective): the columns' particles counted on the devices;
  // when DomainPic::plan_balance asks for new slabs, the state comes to the host, moves there
  // (DomainPic::redistribute) and goes to a new device object of the new slab; the Poynting
  // integrals carry on. Returns whether the slabs changed.
  bool balance(const BalanceSettings& b);
  [[nodiscard]] int rebalances() const { return host_->rebalances(); }
  [[nodiscard]] int device() const { return device_; }

  class Exchange;

 private:
  void build_device();  // local_, exchange_ and gpu_ for host_'s slab (its particles then dropped)
  comm::Communicator* comm_;
  PicSettings global_settings_;
  PicGpuOptions options_;
  bool tracking_ = false;
  PicGpu::StepTimes times_before_;  // of the device objects before the last rebalance
  std::int64_t sorts_before_ = 0;
  std::unique_ptr<DomainPic> host_;  // the slab's host copy (layout, gather)
  std::unique_ptr<PicSimulation> local_;
  std::unique_ptr<Exchange> exchange_;
  std::unique_ptr<PicGpu> gpu_;
  std::vector<bool> mobile_;
  int device_ = 0;
  int owner_left_ = 0, owner_right_ = 0, i_left_ = 0, i_right_ = 0;
};

}  // namespace nbody::pic
