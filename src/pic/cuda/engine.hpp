#pragma once
// PicGpu's state (PicGpu::Impl) in parts by concern, each part's functions in the file that
// launches its kernels:
//   ParticleStore  particles.cu     the species' slots, the per-slot work buffers, the sorts
//   FieldState     fields.cu        E, B, J, rho and the PML's memories; the guards, the solver
//   BlockExchange  exchange.cu      a block's guard messages (through the host, CUDA IPC, MPI)
//   Migration      migration.cu     a block's particle migration; the load balance's counts
//   Diagnostics    diagnostics.cu   reductions on the device, rho, the Poynting flux
//   DepositRun     deposit/*.cu     the run's deposition kernel (deposit/deposit.hpp)
// and the step in pic_gpu.cu. Host code only: the kernels and their types are in the .cuh files
// that those .cu files include.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/launch_policy.hpp"
#include "pic/cpu/simulation.hpp"
#include "pic/cuda/device_arrays.hpp"
#include "pic/cuda/pic_gpu.hpp"
#include "pic/parallel/slab_index.hpp"
#include "pic/physics/field_stencils.hpp"
#include "pic/physics/grid.hpp"
#include "pic/physics/particle_step.hpp"

namespace nbody::pic {

// The launch shapes of the element-wise kernels: a grid-stride loop over n items, or one thread
// an item.
inline int blocks_for(std::size_t n) { return nbody::cuda::ElementwisePolicy::blocks(n); }
inline int exact_blocks(std::size_t n) {
  return int((n + nbody::cuda::ElementwisePolicy::kBlock - 1) / nbody::cuda::ElementwisePolicy::kBlock);
}

template <class T>
T* device_alloc(std::size_t n) {
  void* p = nullptr;
  NBODY_CUDA_CHECK(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T)));
  return static_cast<T*>(p);
}

// Every allocation of one PicGpu, counted (device_bytes()).
struct DeviceMemory {
  std::size_t bytes = 0;
  template <class T>
  T* alloc(std::size_t n) {
    bytes += std::max<std::size_t>(n, 1) * sizeof(T);
    return device_alloc<T>(n);
  }
};

class DepositRun;

// A particle slot's device bytes in each store (the values and the alive flag; not the ids).
[[nodiscard]] std::size_t particle_slot_bytes(ParticlePrecision p);

// The species' slots on the device, the per-slot work buffers and the sorts (CUB's radix sort).
struct ParticleStore {
  explicit ParticleStore(PicGpu::Impl& engine) : m(engine) {}
  ~ParticleStore();
  ParticleStore(const ParticleStore&) = delete;
  ParticleStore& operator=(const ParticleStore&) = delete;

  PicGpu::Impl& m;
  std::vector<Species> meta;  // names, charges, boundaries (no particles)
  std::vector<DeviceSpecies> sp;
  TileGrid tg;  // the tiles and cells the sorts go by (a block's own cells)
  // The per-slot work buffers: the sort keys and permutations (the sorts by tile or cell, the
  // deterministic kernel's sort by cell, a block's migration); on a block also the stencils'
  // offsets from their cells, a particle array and the ids for the permutations (ensure_work:
  // they grow with the arrivals).
  unsigned *keys = nullptr, *keys_sorted = nullptr, *order = nullptr, *order_sorted = nullptr;
  double* scratch = nullptr;  // a particle array for the permutations (one GPU)
  signed char* offs = nullptr;
  double* sel = nullptr;
  std::uint64_t* id_sorted = nullptr;
  std::size_t work_cap = 0;  // the block's work buffers' slots
  void* cub_temp = nullptr;
  std::size_t cub_bytes = 0;
  unsigned long long* counters = nullptr;  // out of place, absorbed (this step); live count; migration's bad
  // The sorting policy of the tiled (by tile) and warp (by cell) kernels, and the tiles' slot
  // ranges after a sort by tile.
  std::vector<unsigned*> tile_start, tile_end;  // per species
  bool sorted = false;
  std::int64_t sort_count = 0;
  std::uint64_t dead_slots = 0;   // since the last sort
  double alone_after_sort = -1;   // warp: particles outside their warp's window in the first step after the sort

  // The tiles over the grid g (the block's cells from y0 on a block); the species' slots and ids
  // on the device (a block's with room for arrivals), the counters.
  void setup_tiles(const GridGeometry& g, double y0);
  // The sort tiles of an nx x ny block (kTile cells a side), known before a store is built.
  [[nodiscard]] static std::size_t tile_count(int nx, int ny);
  void upload(const PicSimulation& from, const std::vector<std::vector<std::uint64_t>>& ids);
  [[nodiscard]] std::size_t slots() const;  // all species'
  [[nodiscard]] std::size_t most_cap() const;  // the largest species' slots allocated
  // One GPU's sort buffers for n slots (keys, orders; with_scratch: a particle array), and the
  // tiles' slot ranges of every species.
  void alloc_sort_buffers(std::size_t n, bool with_scratch);
  void alloc_tile_ranges();
  // keys and order sorted into keys_sorted and order_sorted by the keys' low `bits` bits (stable).
  void sort_pairs(std::size_t n, int bits);
  void sort_pairs(int n, int bits);
  // The slots [start[k], end[k]) of every key k below the sentinel in keys_sorted[0, n).
  void key_ranges(std::size_t n, unsigned sentinel, unsigned* start, unsigned* end);
  // Species k sorted by tile (live ones first, in tile order, stable), its empty slots dropped
  // and the tiles' slot ranges set; by_cell: by cell (row-major), no ranges. The ids move along.
  void sort_particles(std::size_t k, bool by_cell);
  // Document 004's policy, before a step of the tiled (warp = false) or warp kernel.
  void sort_if_due(bool warp);
  // Species k sorted by id (the deterministic mode's order of a block's slots).
  void sort_by_id(std::size_t k);
  // A block's per-slot work buffers for `need` slots; room for `need` particles of species k.
  void ensure_work(std::size_t need);
  void ensure_capacity(std::size_t k, std::size_t need);
  void copy_to(PicSimulation& to) const;
  void copy_float32_to(const DeviceSpecies& d, const std::vector<unsigned char>& alive, Species& s) const;
  [[nodiscard]] std::vector<std::vector<std::uint64_t>> ids() const;
  // CUB's temporary storage, for `need` bytes (the sorts, a block's slot selections).
  void ensure_cub(std::size_t need);

 private:
  void free_work();
};

// The fields on the device (with the sources and rho), their guards and the Maxwell solver.
struct FieldState {
  explicit FieldState(PicGpu::Impl& engine) : m(engine) {}
  ~FieldState();
  FieldState(const FieldState&) = delete;
  FieldState& operator=(const FieldState&) = delete;

  PicGpu::Impl& m;
  double* f[kComponents] = {};
  double* psi[kPsiCount] = {};  // the PML's memories (null without a PML)
  PmlLayer pml;
  FieldView* view_table = nullptr;  // device copies of the views: E, B (6), then J (3)
  FieldView* rho_table = nullptr;
  double* save_x = nullptr;  // Mur's saved lines
  double* save_y = nullptr;

  void upload(const PicSimulation& from);
  [[nodiscard]] FieldView view(int c) const;
  // The particle kernels' views: global indices on a block (its offset folded into ioff, grid.hpp).
  [[nodiscard]] FieldViews particle_views() const;
  [[nodiscard]] bool open_lo() const;
  [[nodiscard]] bool open_hi() const;
  [[nodiscard]] bool open_y_lo() const;
  [[nodiscard]] bool open_y_hi() const;
  void fill_guards();
  void fold_currents();  // one GPU
  void advance_b(double dt, bool pml_update);
  void advance_e(double dt, double t);
  // The guards of `ncomp` arrays of views in `table` (the grid's shape): folded onto their
  // periodic images, or dropped beyond an open boundary, along y (every column) or x (every row).
  void fold_y(FieldView* table, int ncomp, bool periodic) const;
  void fold_x(FieldView* table, int ncomp, bool periodic) const;
  void copy_to(PicSimulation& to) const;
};

// A block's guard messages with its neighbours.
struct BlockExchange {
  explicit BlockExchange(PicGpu::Impl& engine) : m(engine) {}
  ~BlockExchange();
  BlockExchange(const BlockExchange&) = delete;
  BlockExchange& operator=(const BlockExchange&) = delete;

  PicGpu::Impl& m;
  int* starts = nullptr;  // the block columns' first columns (so.starts on the device)
  int* rows = nullptr;    // the block rows' first rows (so.rows on the device)
  double* stage = nullptr;  // a guard message on the device
  std::size_t stage_len = 0;
  // guard messages to CUDA-aware MPI (so.guards == mpi): the packed messages to the lo and hi
  // neighbours and what they send back (send lo, send hi, receive lo, receive hi; stage_len each),
  // taken at the first exchange
  double* mpi_buf[4] = {};
  // direct exchanges (so.guards == ipc): this rank's exported message buffers (x lo, x hi, y lo, y hi,
  // stage_len each) and the neighbours' it reads (the lo neighbour's hi buffer, the hi
  // neighbour's lo buffer, per axis), mapped by CUDA IPC; two sets, the exchanges of an axis
  // taking turns (swap_guards: a set is written again only after the neighbours' ready signal of
  // the exchange between, sent once they had read it)
  double* out_buf[2][4] = {};
  double* peer_buf[2][4] = {};
  unsigned direct_swaps[2] = {};  // per axis: the exchanges so far
  bool direct_open[2] = {};       // per axis: the handles exchanged
  bool exported = false;          // a buffer's handle went to a neighbour
  bool peers_closed = false;      // close_peers ran (every rank's, then a barrier: the exports may be freed)
  double comm_now = 0;            // this step's exchange seconds so far

  // The blocks' starts on the device and the staging buffer, for `arrays` arrays a message.
  void setup(int arrays);
  [[nodiscard]] SlabOwner owner() const;
  [[nodiscard]] SlabOwner row_owner() const;
  [[nodiscard]] bool cut() const;    // an x side shared with a neighbour
  [[nodiscard]] bool cut_y() const;  // a y side
  // A guard message each way (slab_index.hpp's GuardRegion layout): along x the kGuard columns
  // from send_lo to the left neighbour and from send_hi to the right one, every row; along y
  // (along_y) the kGuard rows from send_lo down and from send_hi up, every column; what the
  // neighbours send written (or added) at recv_lo / recv_hi.
  void swap_guards(int what, bool along_y, const FieldView* table, int ncomp, int send_lo, int send_hi, int recv_lo,
                   int recv_hi, bool add);
  // The sources of a block (DomainPic::fold_and_sum_currents): y first over every column (the
  // periodic images of one block row, or dropped beyond a global open edge, and the guard rows
  // at a cut added into the neighbour's rows), then x over every row the same way.
  void fold_sources(const FieldView* table, int ncomp);
  void close_peers();

 private:
  void open_direct(bool along_y);
};

// A block's particle migration (DomainPic::migrate on the device).
struct Migration {
  explicit Migration(PicGpu::Impl& engine) : m(engine) {}
  ~Migration();
  Migration(const Migration&) = delete;
  Migration& operator=(const Migration&) = delete;

  PicGpu::Impl& m;
  std::uint64_t* mig = nullptr;  // the leavers' records, then the arrivals (grows)
  std::size_t mig_cap = 0;       // its words
  int* nsel = nullptr;           // the slot selections' counts (2)
  // Over several blocks with a kernel that notes the slots that empty (lists_on): each species'
  // slots emptied in the step's particle kernel (EmptiedSlots; species k's at list_at[k], at most
  // list_cap[k] of them), the counts (one a species, then two for the holes' split), and whether
  // the kernel that ran noted them (listed[k]).
  unsigned* lists = nullptr;
  std::size_t lists_cap = 0;
  unsigned* list_counts = nullptr;
  std::size_t list_counts_len = 0;
  std::vector<std::size_t> list_at, list_cap;
  std::vector<char> listed;

  [[nodiscard]] bool lists_on() const;
  // Before a step's particle kernels: room for each mobile species' emptied slots, the counts zeroed.
  void prepare_lists();
  // Species k's list for its particle kernel (off where prepare_lists made none); marks it noted.
  EmptiedSlots emptied(std::size_t k);
  void ensure_mig(std::size_t words);
  void migrate();
};

// The diagnostics on the device: reductions with a fixed partition, rho, the Poynting flux.
struct Diagnostics {
  explicit Diagnostics(PicGpu::Impl& engine) : m(engine) {}
  ~Diagnostics();
  Diagnostics(const Diagnostics&) = delete;
  Diagnostics& operator=(const Diagnostics&) = delete;

  PicGpu::Impl& m;
  double* partials = nullptr;   // the reductions' per-block results (at most 2 values)
  double* gauss_ref = nullptr;  // the reference residual (g.size()), or null
  double* track = nullptr;      // Poynting: flux left, right, integral left, right
  double* flux = nullptr;       // a block's poynting_rows values (g.ny)
  int i_left = 0, i_right = 0;
  bool tracking = false;

  void setup();
  // After a step (tracking): the fluxes through the planes, added to their integrals.
  void track_step();
};

struct PicGpu::Impl {
  Impl() = default;
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  PicSettings s;
  GridGeometry g;  // a block's own grid (so.global the whole grid)
  PicGpuOptions opt;
  bool slab = false;  // a block (pic/gpu_slabs.hpp)
  GpuSlabOptions so;
  int classes = 0;  // a block's cell classes (M x M: the deterministic kernel's arrays, a message's most)
  int class_m = 0;  // M (pic/domain.hpp's deposit_classes)
  std::int64_t step = 0;
  DeviceMemory mem;
  ParticleStore particles{*this};
  FieldState fields{*this};
  BlockExchange exchange{*this};
  Migration migration{*this};
  Diagnostics diag{*this};
  std::unique_ptr<DepositRun> deposit;
  bool timing = false;
  cudaEvent_t ev0 = nullptr, ev1 = nullptr, ev_start = nullptr, ev_end = nullptr;
  PicGpu::StepTimes last{}, total{};
  double particle_seconds = 0;

  template <class T>
  T* alloc(std::size_t n) {
    return mem.alloc<T>(n);
  }
  // The settings of the particle step (the whole grid's geometry on a block).
  [[nodiscard]] PicSettings push_settings() const;
  void push(std::size_t k);  // species k's particle kernels
  void step_one_gpu();
  void step_block();  // DomainPic::step, with the host clock's split
};

inline FieldView FieldState::view(int c) const { return {f[c], m.g.stride()}; }

}  // namespace nbody::pic
