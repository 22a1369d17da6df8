#pragma once
// The GPU path of the PIC step (src/pic/cuda/, built only with CUDA; this header has no CUDA
// types). Float64 throughout. The state is copied from a host PicSimulation to the device, the
// steps run there, and copy_to brings fields and particles back (diagnostics, output,
// checkpoints run on the host copy).
//
// Deposition modes:
//   atomic         the fast default: the fused particle kernel adds each particle's Esirkepov
//                  current to the grid with float64 atomicAdd; the summation order (and so the
//                  last bits) varies from run to run.
//   deterministic  each particle writes its K x K stencil of contributions to a buffer, the
//                  particles are stably sorted by stencil cell (CUB radix sort), and one thread
//                  per grid point sums the contributions of the K x K cells that reach it in a
//                  fixed order: the same bits on every run (and across a restart); costs
//                  3 K^2 doubles per particle of device memory (600 bytes with TSC).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "pic/cpu/simulation.hpp"
#include "pic/cuda/deposit_kernels.hpp"
#include "pic/output/reduced_output.hpp"
#include "pic/physics/particle_precision.hpp"

namespace nbody::pic {

// PicGpu(from, mode)'s two deposition modes. PicGpuOptions::deposit takes any row of the
// deposition table, deposit_kernels.hpp (DepositKernel, deposit_kernel(name), which rows run over
// blocks): the rungs of the optimisation study (`nbody bench --suite pic`).
enum class DepositMode { atomic, deterministic };

inline constexpr int kMigrationWords = 8;  // a migrating particle: species, id, x, y, ux, uy, uz, w (bits)

// How the GPU blocks move their guard messages (parallel.exchange; docs/pic.md, "Several GPUs"):
//   host       packed on the device, copied into host vectors, sent by the Communicator, copied
//              back and unpacked (any MPI; the default)
//   ipc        GPU to GPU within one node: read in place from the neighbour's buffer exported by
//              CUDA IPC, between a ready signal and an acknowledgement through the host
//   mpi        packed into device buffers handed to MPI as they are (CUDA-aware MPI: GPUDirect
//              RDMA or the library's own staging), unpacked from the device receive buffers; only
//              where the communicator reports device-buffer support
//   automatic  ("auto") mpi where the communicator reports it (DomainPicGpu: on every rank),
//              host otherwise
// The same values move every way, so every way gives the same bits. Particle migration is
// host-staged whatever the choice.
enum class GuardExchange { host, ipc, mpi, automatic };
// "host", "ipc", "mpi", "auto"
[[nodiscard]] const char* guard_exchange_name(GuardExchange e) noexcept;
// `e` settled on `comm` (collective over comm's ranks where it has several): automatic becomes mpi
// where every rank's communicator takes device buffers, host otherwise (host on one process);
// mpi where a rank's does not is an input error on every rank; the others stay as they are.
[[nodiscard]] GuardExchange resolve_guard_exchange(GuardExchange e, comm::Communicator& comm);

// One rank's block of a run split over several GPUs (pic/gpu_slabs.hpp): the exchanges with the
// neighbour blocks, staged through the host (swap_device: device buffers to a CUDA-aware
// communicator). The buffers' layouts are those of pic/gpu_slabs.hpp (pack_region's, migration
// records).
class SlabExchange {
 public:
  virtual ~SlabExchange() = default;
  // Along x: sends to_left / to_right to the left / right neighbour (empty: nothing to send
  // there) and returns what the neighbours sent this rank (empty where there is none); `what`
  // tells the kind of message apart (0 current guards, 1 field guards).
  virtual void swap(int what, const std::vector<double>& to_left, const std::vector<double>& to_right,
                    std::vector<double>& from_left, std::vector<double>& from_right) = 0;
  // Along y: the same with the neighbours below (down) and above (up).
  virtual void swap_y(int what, const std::vector<double>& to_down, const std::vector<double>& to_up,
                      std::vector<double>& from_down, std::vector<double>& from_up) = 0;
  // The particles that left the block (records of kMigrationWords words), to the neighbour along
  // x (migrate) or along y (migrate_y); `arrived` gets what the neighbours sent.
  virtual void migrate(const std::vector<std::uint64_t>& to_left, const std::vector<std::uint64_t>& to_right,
                       std::vector<std::uint64_t>& arrived) = 0;
  virtual void migrate_y(const std::vector<std::uint64_t>& to_down, const std::vector<std::uint64_t>& to_up,
                         std::vector<std::uint64_t>& arrived) = 0;
  // A guard message each way along x (or y: along_y) between device buffers, handed to the
  // communicator as they are (parallel.exchange = "mpi"): `count` doubles from to_lo to the left
  // (down) neighbour and from to_hi to the right (up) one, what they sent into from_lo / from_hi;
  // null where that side has no neighbour. The buffers must be ready (the stream synchronised)
  // and are free again when it returns. This default refuses: a host-only exchange.
  virtual void swap_device(int what, bool along_y, const double* to_lo, const double* to_hi, double* from_lo,
                           double* from_hi, std::size_t count);
  // A one-value signal each way along x (or y: along_y) with the neighbours on the sides lo / hi
  // (false: that side has none), returning once theirs arrived (`what` tells the kinds apart).
  virtual void notify(int what, bool along_y, bool lo, bool hi) = 0;
  // The sums of `count` values over the run's ranks, into `values` (every rank calls it at the
  // same point of the step).
  virtual void sum(double* values, int count) = 0;
};

// A PicGpu working on one block of cells (a slab when ranks_y = 1): the simulation it is built
// from has the block's geometry (nx, ny its columns and rows, x0 its left edge, y0 the whole
// grid's), `global` the whole grid (the particle step, the PML and the boundaries use it).
struct GpuSlabOptions {
  bool enabled = false;
  GridGeometry global;
  int i_offset = 0, j_offset = 0;     // the global index of the block's column 0 and row 0
  int rank = 0, ranks = 1;            // this rank and their number (ranks_x x ranks_y)
  int ranks_x = 1, ranks_y = 1;       // block columns and rows (rank = by x ranks_x + bx)
  int bx = 0, by = 0;                 // this block's column and row
  int left = -1, right = -1;          // the neighbours' ranks along x (-1: a global open edge)
  int down = -1, up = -1;             // along y
  bool cut_lo = false, cut_hi = false;      // an x side shared with a neighbour
  bool cut_y_lo = false, cut_y_hi = false;  // a y side shared with a neighbour
  SlabExchange* exchange = nullptr;   // required when a side is a cut
  std::vector<std::vector<std::uint64_t>> ids;  // per species, the particles' stable ids (sorted)
  std::vector<int> starts;            // every block column's first column, and nx (ranks_x + 1 values)
  std::vector<int> rows;              // every block row's first row, and ny (ranks_y + 1 values)
  // How the guard messages move (GuardExchange above; automatic is resolved by DomainPicGpu).
  // ipc: each side's message packed into a device buffer exported by CUDA IPC, the neighbour
  // reads it in place (its kernel unpacks from the mapped buffer) after a ready signal through
  // the exchange and acknowledges; no host copies; every rank's neighbours on the node. mpi: the
  // packed device buffers to exchange->swap_device (CUDA-aware MPI). host: staged through the host.
  GuardExchange guards = GuardExchange::host;
};

struct PicGpuOptions {
  DepositKernel deposit = DepositKernel::atomic;
  // Sorting the particles (tiled: by tile; warp: by cell; the others never): every `sort_every`
  // steps (0: never by count), and whenever the share of slots out of place exceeds
  // `empty_ratio` (document 004's policy; < 0: never by ratio). Out of place: an empty slot left
  // by an absorbed particle, and for tiled a particle outside its tile's cells, for warp a
  // particle that could not share its warp's window, beyond the count of the first step after
  // the sort. Sorting also drops the empty slots.
  int sort_every = 0;
  double empty_ratio = 0.05;
  int device = 0;
  // How the particles are stored (particle_precision.hpp; solver.particle_precision): float64,
  // or the float32 store (cell and float32 offsets, float32 momenta and weight); the arithmetic
  // of the step stays float64, the fields and the current sums float64 (docs/pic_optimization.md).
  ParticlePrecision particle_precision = ParticlePrecision::float64;
  // With the float32 store and the warp kernel: the window's shape weights, their differences and
  // each lane's current contributions in float32 arithmetic (the sums over the lanes and into J
  // float64): the study's next rung (`nbody bench --suite pic --pic-precision float32-currents`),
  // charge then conserved to float32 rounding of the contributions (docs/pic_optimization.md).
  // Refused without the float32 store.
  bool float32_currents = false;
  GpuSlabOptions slab;
};

// The run's scalar diagnostics computed on the device, without bringing the state back (one
// small copy of per-block partial results). Sums are taken in a fixed order (a fixed partition
// into blocks, a fixed reduction tree, the blocks' results added on the host in block order):
// the same state gives the same bits on every run. They differ from the host's sums of the same
// state only by rounding (another summation order).
struct DeviceDiagnostics {
  EnergyReport energies;
  // max |(div E - rho) - reference| over the nodes where Gauss's law is checked (the reference
  // residual set by set_gauss_reference; zero when none was set); rho is deposited on the device.
  double gauss_change_max = 0;
  std::vector<std::size_t> counts;  // live particles per species
  // The Poynting flux S_x through the planes of track_poynting at the last step, and its time
  // integral over every step since tracking began (the host path's energy_in / energy_out).
  double flux_left = 0, flux_right = 0;
  double energy_in_left = 0, energy_out_right = 0;
};

// The Poynting flux S_x through the planes of track_poynting at the last step, and its time
// integral over every step since tracking began (one fixed-order reduction a step: the same bits
// on every run).
struct PoyntingTrack {
  double flux_left = 0, flux_right = 0;
  double energy_in_left = 0, energy_out_right = 0;
};

// True when a CUDA device is usable for PIC (and the build has CUDA); otherwise *why says why.
bool pic_gpu_available(std::string* why = nullptr);
// The number of CUDA devices (0 in a build without CUDA or without a device).
int pic_gpu_device_count();

// What one PicGpu will hold on its device, known before it is built (the memory plan,
// pic/driver/memory_plan.hpp): the fields of `geom` (a block's, or the whole grid on one GPU),
// the particles, the deposition kernel's buffers and, for a block of several, the room for
// arrivals, the work buffers and the guard staging. PicGpu checks the same sum before its first
// allocation. 0 in a build without CUDA.
struct PicGpuFootprint {
  GridGeometry geom;
  ShapeOrder shape = ShapeOrder::cic;
  bool pml = false;
  std::size_t particles = 0, most = 0, species = 0;  // all, the largest species', how many species
  bool slab = false;  // a block of the GPU slabs
  int ranks = 1;      // the blocks of the run
  ParticlePrecision precision = ParticlePrecision::float64;  // the particle store
};
[[nodiscard]] std::size_t pic_gpu_device_bytes(const PicGpuFootprint& f, DepositKernel deposit);

class PicGpu {
 public:
  PicGpu(const PicSimulation& from, DepositMode mode, int device = 0);
  PicGpu(const PicSimulation& from, PicGpuOptions options);
  ~PicGpu();
  PicGpu(const PicGpu&) = delete;
  PicGpu& operator=(const PicGpu&) = delete;

  void step();
  void run(int steps) {
    for (int k = 0; k < steps; ++k) step();
  }
  // Copies fields, the live particles (in slot order: the CPU's order when none was absorbed)
  // and the step count into `to`, a simulation with the same settings and species.
  void copy_to(PicSimulation& to) const;
  // The fields alone (E, B, J and the PML memories, not rho: the particles' charge is deposited
  // only where asked) and the step count into `to`; its particles are left as they were.
  void copy_fields_to(PicSimulation& to) const;
  [[nodiscard]] std::int64_t step_count() const;
  // Scalar diagnostics on the device (see DeviceDiagnostics). In the deterministic mode rho is
  // deposited with atomics too, so the Gauss column may vary in its last bits there: a run
  // that needs every output bit-identical takes its diagnostics from copy_to instead.
  [[nodiscard]] DeviceDiagnostics diagnostics();
  // The reduced outputs' histograms (reduced_output.hpp) made on the device from the live
  // particles, and the middle row of Ey and Ez: what reduce_on_host gives for copy_to's state,
  // the same bins, the weights summed in another order (float64 atomics). One GPU only.
  [[nodiscard]] ReducedData reduced() const;
  // From now on, after every step, the Poynting flux through the planes x0 + (i + 1/2) dx for
  // i = i_left and i_right is computed on the device and integrated in time (dt a step), the
  // integrals starting from energy_in and energy_out (a resumed run's, so it adds as one that
  // never stopped).
  void track_poynting(int i_left, int i_right, double energy_in = 0, double energy_out = 0);
  // The tracked fluxes and their integrals (zeros without track_poynting); one small copy.
  [[nodiscard]] PoyntingTrack poynting() const;
  // With blocks: the Poynting flux density S_x dy through the plane x0 + (i + 1/2) dx (i a local
  // column) at each of the block's rows, row 0 first (the caller sums them in row order).
  [[nodiscard]] std::vector<double> flux_rows(int i) const;
  // With slabs: the live particles of the mobile species in each of the slab's cell columns
  // (column 0 first), counted on the device (the load balance's costs).
  [[nodiscard]] std::vector<std::uint64_t> column_counts() const;
  // The residual div E - rho at every node (PicSimulation::gauss_residual_field's layout) that
  // the Gauss change of diagnostics() is measured against.
  void set_gauss_reference(const std::vector<double>& residual);
  // Times the particle kernels with CUDA events (one synchronisation a step).
  void enable_timing(bool on);
  [[nodiscard]] double particle_kernel_seconds() const;
  // With timing enabled: the last step's particle kernels and whole step (sorting, particle
  // kernels, current fold, field solve), on the device's clock (CUDA events).
  // With slabs (host clock, the device synchronised at each boundary): fields (fold and solve
  // without the messages), comm (the exchanges: staging copies and MPI), sort (the migration's
  // compaction, unpacking and, in the deterministic mode, re-sorting by id).
  struct StepTimes {
    double particles = 0, step = 0;
    double fields = 0, comm = 0, sort = 0;
  };
  [[nodiscard]] StepTimes last_step_times() const;
  // With direct block exchanges: closes the neighbours' mapped buffers (before any rank frees its
  // exported ones: DomainPicGpu calls it on every rank, then a barrier, before destroying).
  void close_peers();
  // Sorts done so far (tiled), and the device memory this object holds, in bytes.
  // With slabs: the particles' stable ids per species, in slot order (copy_to's order).
  [[nodiscard]] std::vector<std::vector<std::uint64_t>> ids() const;
  // The particle slots per species (with slabs: the live particles, after each step).
  [[nodiscard]] std::vector<std::size_t> slot_counts() const;
  // With slabs: the run's accumulated step times (the sums of last_step_times()).
  [[nodiscard]] StepTimes total_times() const;
  [[nodiscard]] std::int64_t sorts() const;
  [[nodiscard]] std::size_t device_bytes() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace nbody::pic
