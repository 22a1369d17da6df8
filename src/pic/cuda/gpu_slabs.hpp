#pragma once
// The PIC run over several GPUs (docs/pic.md, "Several GPUs"): every MPI rank owns one block of
// cells (ranks_x x ranks_y blocks, slabs of cell columns along x when ranks_y = 1: the SlabLayout
// of the CPU path, pic/domain.hpp) and one PicGpu on GPU rank % device_count (several ranks may
// share a GPU). One step on every rank:
//   1. push and deposit its particles on its device: atomic (float64 atomics into J); warp (the
//      particles sorted by cell under the empty_ratio policy, the ids moving with them, and the
//      warp-reduced deposit of pic/gpu.hpp); or deterministic: every particle's contributions
//      sorted by its cell (stable, the slots in id order), one thread a grid point sums each
//      cell's into the array of the cell's class, M x M = deposit_classes(shape)^2 arrays by the
//      cell column and row modulo M, so that each value of an array comes from one cell (one
//      rank), as the CPU blocks' arrays;
//   2. the y guards first: folded (one block row), dropped beyond an open edge, or the guard rows
//      of every source array (every column) copied to the host, sent to the neighbour below or
//      above and added there (a sum, not a copy); then the x guards the same way with the guard
//      columns (every row); in the deterministic mode J = A_0 + ... + A_{M^2-1} node by node in
//      that order;
//   3. the field solve on the block's points; after each of its three parts the E and B guard
//      columns go to the neighbours along x, then the guard rows (every column: the corners)
//      along y (copied, not added);
//      (with options.slab.guards = ipc, parallel.exchange = "ipc", the guard messages of 2 and 3
//      go GPU to GPU: packed into buffers exported by CUDA IPC, read in place by the neighbour's
//      unpacking kernel between a ready signal and an acknowledgement through the host; with
//      mpi, "mpi" or "auto" on a CUDA-aware MPI, the packed device buffers go to MPI as they are
//      and the neighbour unpacks from its device receive buffer)
//   4. the particles whose cell left the block are compacted out on the device (a stable
//      selection: the residents keep their order), sent as records (kMigrationRecord words):
//      along x those whose block column changed, then along y those whose block row changed
//      with the x arrivals of another block row; appended where they arrive, and in the
//      deterministic mode the species is sorted by id again (atomic: the order changes nothing;
//      warp: the arrivals wait at the end for the next sort by cell).
// The deterministic mode gives the same bits on any number and shape of blocks: a value of an
// array is a sum over the particles of one cell in id order; the images and the arrays are added
// in the order of one rank; the Poynting flux through a plane is summed row by row on the host
// up the plane's block column. The diagnostics and outputs come from the state gathered on rank 0
// (DomainPic::gather), as the CPU blocks'.
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "comm/communicator.hpp"
#include "pic/parallel/domain.hpp"
#include "pic/cuda/pic_gpu.hpp"
#include "pic/parallel/slab_index.hpp"

namespace nbody::pic {

inline constexpr int kMigrationRecord = kMigrationWords;  // species, id, then the bits of x, y, ux, uy, uz, w

// (SlabOwner, BlockNeighbours, GuardRegion and pack_region, shared with the device code and the
// CPU blocks: pic/slab_index.hpp)
// (arrivals_of: the arrived records of a species sorted by id, in pic/slab_index.hpp)

// The slab run on GPUs (collective where DomainPic is).
class DomainPicGpu {
 public:
  // ranks_y block rows (comm.size() a multiple of it; 1: slabs along x). options.slab.guards
  // automatic is resolved here, mpi where every rank's communicator takes device buffers, host
  // otherwise; mpi where a rank's does not is an input error on every rank.
  DomainPicGpu(const PicSimulation& global, comm::Communicator& comm, const PicGpuOptions& options, int ranks_y = 1);
  ~DomainPicGpu();
  void step();
  // The whole state into `global` on rank `root` (or every rank), as DomainPic::gather.
  void gather(PicSimulation& global, int root = -1);
  // The fields alone, as DomainPic::gather_fields (no particle leaves the device).
  void gather_fields(PicSimulation& global, int root = -1);
  // Tracks the Poynting flux through the planes x0 + (i + 1/2) dx of global columns i_left,
  // i_right after every step (the rows' terms from PicGpu::flux_rows summed in row order up the
  // plane's block column, DomainPic::column_sum, integrated in time); poynting() returns them on
  // every rank (collective). The integrals start from energy_in and energy_out (a resumed run's).
  void track_poynting(int i_left, int i_right, double energy_in = 0, double energy_out = 0);
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
  void release_device();  // gpu_ destroyed (collective with direct exchanges: the peers unmapped first)
  void state_to_host();  // the device's state into host_ (through local_, its particles moved, not copied)
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
  int i_left_ = 0, i_right_ = 0;
  PoyntingTrack track_;  // the top block's of each plane's block column (every rank's after poynting())
};

}  // namespace nbody::pic
