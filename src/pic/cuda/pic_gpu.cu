// The PIC step on a CUDA device (float64): the fused particle kernel (gather -> push -> deposit,
// the old position in registers), atomic or deterministic deposition, the fold of the guard
// currents, and the Maxwell solver kernels. The physics is the host's: particle_step.hpp and
// field_stencils.hpp are shared __host__ __device__ code.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <cstring>
#include <type_traits>
#include <vector>

#include "cuda/block_reduce.cuh"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/launch_policy.hpp"
#include "nbody/error.hpp"
#include "particles/memory.hpp"
#include "pic/physics/field_stencils.hpp"
#include "pic/cuda/pic_gpu.hpp"
#include "pic/physics/particle_step.hpp"
#include "pic/parallel/slab_index.hpp"

// The kernels, in the order of their concerns (common types, deposition, sorting, blocks, fields,
// diagnostics).
#include "pic/cuda/common.cuh"
#include "pic/cuda/deposit/with_accumulators.cuh"
#include "pic/cuda/deposit/warp.cuh"
#include "pic/cuda/deposit/separate.cuh"
#include "pic/cuda/deposit/float32.cuh"
#include "pic/cuda/deposit/tiled.cuh"
#include "pic/cuda/particles/sort.cuh"
#include "pic/cuda/deposit/redundant.cuh"
#include "pic/cuda/deposit/ordered.cuh"
#include "pic/cuda/deposit/classed.cuh"
#include "pic/cuda/exchange/guards.cuh"
#include "pic/cuda/exchange/migration.cuh"
#include "pic/cuda/exchange/columns.cuh"
#include "pic/cuda/fields/periodic.cuh"
#include "pic/cuda/fields/maxwell.cuh"
#include "pic/cuda/fields/mur.cuh"
#include "pic/cuda/diag/reduce.cuh"
#include "pic/cuda/diag/rho.cuh"
#include "pic/cuda/diag/poynting.cuh"

namespace nbody::pic {

using nbody::cuda::ElementwisePolicy;

bool pic_gpu_available(std::string* why) { return nbody::cuda::query_device(0, nullptr, why); }

int pic_gpu_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // (no driver or no device: none)
    return 0;
  }
  return n;
}

namespace {

template <class T>
T* device_alloc(std::size_t n) {
  void* p = nullptr;
  NBODY_CUDA_CHECK(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T)));
  return static_cast<T*>(p);
}


// CUDA IPC: the handle of a device allocation of this process, and another process's allocation
// mapped into this one (peer access where the GPUs differ); a mapping that fails is one clear
// error naming `what`.
cudaIpcMemHandle_t ipc_handle(void* p) {
  cudaIpcMemHandle_t h;
  NBODY_CUDA_CHECK(cudaIpcGetMemHandle(&h, p));
  return h;
}
void* ipc_map(const cudaIpcMemHandle_t& h, const std::string& what) {
  void* p = nullptr;
  const cudaError_t e = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess);
  if (e != cudaSuccess) throw_input_error("pic: " + what + ": cannot map the other process's GPU buffer (" + cudaGetErrorString(e) + ")");
  return p;
}

int blocks_for(std::size_t n) { return ElementwisePolicy::blocks(n); }
int exact_blocks(std::size_t n) { return int((n + ElementwisePolicy::kBlock - 1) / ElementwisePolicy::kBlock); }

}  // namespace

struct PicGpu::Impl {
  PicSettings s;
  GridGeometry g;
  PicGpuOptions opt;
  // blocks (pic/gpu_slabs.hpp): g is the block's grid, so.global the whole grid
  bool slab = false;
  GpuSlabOptions so;
  int classes = 0;                     // deterministic: the current arrays by cell class (M x M)
  int class_m = 0;                     // M (pic/domain.hpp's deposit_classes)
  double* cls = nullptr;               // classes x 3 arrays of g.size()
  FieldView* cls_table = nullptr;
  double* stage = nullptr;             // a guard message on the device
  std::size_t stage_len = 0;
  std::size_t work_cap = 0;            // the per-slot work buffers' length
  signed char* offs = nullptr;
  double* sel = nullptr;
  std::uint64_t* id_sorted = nullptr;
  int* nsel = nullptr;  // selections' counts (2)
  std::uint64_t* mig = nullptr;  // migration: the leavers' records, then the arrivals (grows)
  std::size_t mig_cap = 0;       // its words
  // Over several blocks with the atomic or warp kernel (lists_on): each species' slots emptied in
  // the step's particle kernel (EmptiedList; species k's at list_at[k], at most list_cap[k] of
  // them), the counts (one a species, then two for the holes' split), and whether the kernel that
  // ran noted them (listed[k]).
  unsigned* lists = nullptr;
  std::size_t lists_cap = 0;
  unsigned* list_counts = nullptr;
  std::size_t list_counts_len = 0;
  std::vector<std::size_t> list_at, list_cap;
  std::vector<char> listed;
  int* starts = nullptr;  // the block columns' first columns (so.starts on the device)
  int* rows = nullptr;    // the block rows' first rows (so.rows on the device)
  double* flux = nullptr;  // poynting_rows' values (g.ny)
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
  bool direct_open[2] = {};  // per axis: the handles exchanged
  bool exported = false;     // a buffer's handle went to a neighbour
  bool peers_closed = false;  // close_peers ran (every rank's, then a barrier: the exports may be freed)
  [[nodiscard]] SlabOwner owner() const { return SlabOwner{so.global.x0, so.global.dx, so.global.nx, so.ranks_x, starts}; }
  [[nodiscard]] SlabOwner row_owner() const { return SlabOwner{so.global.y0, so.global.dy, so.global.ny, so.ranks_y, rows}; }
  double comm_now = 0;                 // this step's exchange seconds so far
  PicGpu::StepTimes total{};
  std::size_t bytes = 0;  // device memory held
  std::vector<Species> meta;  // names, charges, boundaries (no particles)
  double* f[kComponents] = {};
  double* psi[kPsiCount] = {};  // the PML's memories (null without a PML)
  PmlLayer pml;
  FieldView* view_table = nullptr;  // device copies of the views: E, B (6), then J (3)
  std::vector<DevParticles> sp;
  std::int64_t step = 0;
  double* save_x = nullptr;
  double* save_y = nullptr;
  // deterministic mode
  double* contrib = nullptr;
  std::size_t contrib_slots = 0;
  unsigned *keys = nullptr, *keys_sorted = nullptr, *order = nullptr, *order_sorted = nullptr;
  unsigned *cell_start = nullptr, *cell_end = nullptr;
  void* cub_temp = nullptr;
  std::size_t cub_bytes = 0;
  bool timing = false;
  cudaEvent_t ev0 = nullptr, ev1 = nullptr, ev_start = nullptr, ev_end = nullptr;
  PicGpu::StepTimes last{};
  // diagnostics
  double* partials = nullptr;   // kReduceBlocks x (at most 2) values
  FieldView* rho_table = nullptr;
  double* gauss_ref = nullptr;  // the reference residual (g.size()), or null
  double* track = nullptr;      // Poynting: flux left, right, integral left, right
  int i_left = 0, i_right = 0;
  bool tracking = false;
  // float32 deposition
  float* fj[3] = {};
  // dynamic redundancy
  int ncopies = 0;  // K * K directional copies
  double* copies = nullptr;
  double* pool = nullptr;
  int* dense_slot = nullptr;          // per tile: its pool slab, or -1
  unsigned* dense_tiles = nullptr;    // per slab: its tile
  unsigned* tile_counts = nullptr;
  int max_dense = 0, dense_count = 0;
  std::int64_t dense_step = -1;  // the step of the last choice
  // Chooses the dense tiles from the live particles' tile counts: those above twice the mean
  // over non-empty tiles, the most populated first, at most max_dense.
  void choose_dense_tiles() {
    NBODY_CUDA_CHECK(cudaMemset(tile_counts, 0, tg.count() * sizeof(unsigned)));
    for (const DevParticles& d : sp) {
      if (d.n == 0) continue;
      count_tiles<<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(d, tg, tile_counts);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    std::vector<unsigned> counts(tg.count());
    NBODY_CUDA_CHECK(cudaMemcpy(counts.data(), tile_counts, counts.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    double sum = 0, filled = 0;
    for (unsigned c : counts) sum += c, filled += c > 0;
    const double threshold = filled > 0 ? 2.0 * sum / filled : 0;
    std::vector<unsigned> order;
    for (unsigned t = 0; t < counts.size(); ++t)
      if (counts[t] > threshold) order.push_back(t);
    std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) { return counts[a] > counts[b]; });
    if (int(order.size()) > max_dense) order.resize(std::size_t(max_dense));
    std::vector<int> slot(tg.count(), -1);
    for (std::size_t k = 0; k < order.size(); ++k) slot[order[k]] = int(k);
    dense_count = int(order.size());
    NBODY_CUDA_CHECK(cudaMemcpy(dense_slot, slot.data(), slot.size() * sizeof(int), cudaMemcpyHostToDevice));
    if (!order.empty())
      NBODY_CUDA_CHECK(cudaMemcpy(dense_tiles, order.data(), order.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
  }
  [[nodiscard]] std::size_t pool_slab() const {
    return std::size_t(ncopies) * kSubCopies * 3 * kTileSpan * kTileSpan;
  }
  // separate kernels
  double* eb = nullptr;
  ParticleMove* moves = nullptr;
  unsigned char* active = nullptr;
  // tiles (tiled deposition)
  TileGeometry tg;
  std::vector<unsigned*> tile_start, tile_end;  // per species
  double* scratch = nullptr;                    // a particle array, for permutations
  unsigned long long* counters = nullptr;       // out of place, absorbed (this step); live count; migration's bad
  bool sorted = false;
  std::int64_t sort_count = 0;
  std::uint64_t dead_slots = 0;  // since the last sort
  double alone_after_sort = -1;   // warp: particles outside their warp's window in the first step after the sort
  int warp_resident[2] = {0, 0};  // the warp kernel's resident grid: CIC, TSC

  template <class T>
  T* alloc(std::size_t n) {
    bytes += std::max<std::size_t>(n, 1) * sizeof(T);
    return device_alloc<T>(n);
  }
  [[nodiscard]] std::size_t slots() const {
    std::size_t n = 0;
    for (const DevParticles& d : sp) n += d.n;
    return n;
  }
  void ensure_cub(std::size_t need) {
    if (need <= cub_bytes) return;
    if (cub_temp) NBODY_CUDA_CHECK(cudaFree(cub_temp));
    cub_temp = alloc<char>(need);
    cub_bytes = need;
  }
  // Sorts species k's particles by tile (live ones first, in tile order, stable), drops the empty
  // slots, and sets the tiles' slot ranges; by_cell: by cell (row-major), no tile ranges. On a
  // slab the ids move with the particles.
  void sort_particles(std::size_t k, bool by_cell) {
    DevParticles& d = sp[k];
    const unsigned sentinel = by_cell ? unsigned(tg.nx) * unsigned(tg.ny) : tg.count();
    if (!by_cell) {
      NBODY_CUDA_CHECK(cudaMemset(tile_start[k], 0, tg.count() * sizeof(unsigned)));
      NBODY_CUDA_CHECK(cudaMemset(tile_end[k], 0, tg.count() * sizeof(unsigned)));
    }
    if (d.n == 0) return;
    if (by_cell) {
      sort_keys<true><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(d, tg, keys, order, sentinel);
    } else {
      sort_keys<false><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(d, tg, keys, order, sentinel);
    }
    NBODY_CUDA_CHECK_LAUNCH();
    int bits = 1;
    while ((std::size_t(1) << bits) <= std::size_t(sentinel)) ++bits;
    std::size_t need = 0;
    NBODY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, need, keys, keys_sorted, order, order_sorted, d.n, 0, bits));
    ensure_cub(need);
    NBODY_CUDA_CHECK(
        cub::DeviceRadixSort::SortPairs(cub_temp, cub_bytes, keys, keys_sorted, order, order_sorted, d.n, 0, bits));
    // (on a slab the work buffers grow with the arrivals: sel and id_sorted, not scratch)
    double* tmp = slab ? sel : scratch;
    for (double* a : {d.x, d.y, d.ux, d.uy, d.uz, d.w}) {
      gather_by<<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(tmp, a, order_sorted, d.n);
      NBODY_CUDA_CHECK_LAUNCH();
      NBODY_CUDA_CHECK(cudaMemcpy(a, tmp, d.n * sizeof(double), cudaMemcpyDeviceToDevice));
    }
    if (d.id) {  // a slab's ids move with their particles
      gather_by<<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(id_sorted, d.id, order_sorted, d.n);
      NBODY_CUDA_CHECK_LAUNCH();
      NBODY_CUDA_CHECK(cudaMemcpy(d.id, id_sorted, d.n * sizeof(std::uint64_t), cudaMemcpyDeviceToDevice));
    }
    const unsigned long long all = d.n;
    NBODY_CUDA_CHECK(cudaMemcpy(counters + 2, &all, sizeof all, cudaMemcpyHostToDevice));
    first_sentinel<<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(keys_sorted, d.n, sentinel, counters + 2);
    NBODY_CUDA_CHECK_LAUNCH();
    unsigned long long live = 0;
    NBODY_CUDA_CHECK(cudaMemcpy(&live, counters + 2, sizeof live, cudaMemcpyDeviceToHost));
    d.n = std::size_t(live);
    NBODY_CUDA_CHECK(cudaMemset(d.alive, 1, std::max<std::size_t>(d.n, 1)));
    if (d.n > 0 && !by_cell) {
      cell_ranges<<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(keys_sorted, d.n, sentinel, tile_start[k], tile_end[k]);
      NBODY_CUDA_CHECK_LAUNCH();
    }
  }
  double particle_seconds = 0;

  FieldView view(int c) const { return {f[c], g.stride()}; }
  // The particle kernels' views: global indices on a block (its offset folded into ioff, grid.hpp).
  FieldViews views() const {
    FieldViews v;
    for (int c = 0; c < 3; ++c) v.e[c] = view(kEx + c), v.b[c] = view(kBx + c), v.j[c] = view(kJx + c);
    if (slab) {
      const int off = so.i_offset + so.j_offset * g.stride();
      for (int c = 0; c < 3; ++c) v.e[c].ioff = v.b[c].ioff = v.j[c].ioff = off;
    }
    return v;
  }
  // The settings of the particle step (the whole grid's geometry on a slab).
  PicSettings push_settings() const {
    PicSettings p = s;
    if (slab) p.geom = so.global;
    return p;
  }
  [[nodiscard]] bool open_lo() const { return s.field_bc.x == FieldBoundary::open && !(slab && so.cut_lo); }
  [[nodiscard]] bool open_hi() const { return s.field_bc.x == FieldBoundary::open && !(slab && so.cut_hi); }
  [[nodiscard]] bool cut() const { return slab && (so.cut_lo || so.cut_hi); }
  [[nodiscard]] bool open_y_lo() const { return s.field_bc.y == FieldBoundary::open && !(slab && so.cut_y_lo); }
  [[nodiscard]] bool open_y_hi() const { return s.field_bc.y == FieldBoundary::open && !(slab && so.cut_y_hi); }
  [[nodiscard]] bool cut_y() const { return slab && (so.cut_y_lo || so.cut_y_hi); }
  SolverArgs args(double dt, bool pml_update = false) const {
    const CurlCoefficients c = curl_coefficients(s.solver, g.dx, g.dy);
    SolverArgs a{view(kEx), view(kEy), view(kEz), view(kBx), view(kBy), view(kBz), view(kJx), view(kJy), view(kJz),
                 {c.alpha_x, c.beta_xy, c.alpha_y, c.beta_yx}, dt / g.dx, dt / g.dy, dt, g.nx, g.ny,
                 s.field_bc.x == FieldBoundary::periodic, s.field_bc.y == FieldBoundary::periodic};
    if (pml.cells > 0) {
      a.psi_by = psi[kPsiBy], a.psi_bz = psi[kPsiBz], a.psi_ey = psi[kPsiEy], a.psi_ez = psi[kPsiEz];
      a.pml = pml;
      a.pml_update = pml_update;
    }
    a.free_lo = !open_lo() && (s.field_bc.x == FieldBoundary::periodic || cut());
    a.free_hi = !open_hi() && (s.field_bc.x == FieldBoundary::periodic || cut());
    a.free_ylo = !open_y_lo();
    a.free_yhi = !open_y_hi();
    a.ioff = slab ? so.i_offset : 0;
    return a;
  }
  Range2 span(bool half_x, bool half_y) const {
    auto r = [](FieldBoundary b, int n, bool half, int& lo, int& hi) {
      lo = 0;
      hi = b == FieldBoundary::periodic ? n - 1 : (half ? n - 1 : n);
    };
    Range2 out{};
    r(s.field_bc.x, g.nx, half_x, out.ilo, out.ihi);
    if (s.field_bc.x == FieldBoundary::open && !open_hi()) out.ihi = g.nx - 1;  // a cut high side: as periodic
    r(s.field_bc.y, g.ny, half_y, out.jlo, out.jhi);
    if (s.field_bc.y == FieldBoundary::open && !open_y_hi()) out.jhi = g.ny - 1;
    return out;
  }

  void fill_guards() {
    // A block's cut x sides: the neighbours' columns; then its cut y sides: the neighbours' rows
    // over every column (the x guards included: the corners from the diagonal neighbour).
    if (cut()) swap_guards(1, false, view_table, 6, 0, g.nx - kGuard, -kGuard, g.nx, false);
    if (s.field_bc.x == FieldBoundary::periodic && !cut()) {
      fill_rows<<<exact_blocks(6 * std::size_t(g.rows())), ElementwisePolicy::kBlock>>>(view_table, 6, g.nx, g.ny);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    if (cut_y()) swap_guards(1, true, view_table, 6, 0, g.ny - kGuard, -kGuard, g.ny, false);
    if (s.field_bc.y == FieldBoundary::periodic && !cut_y()) {
      fill_columns<<<exact_blocks(6 * std::size_t(g.stride())), ElementwisePolicy::kBlock>>>(view_table, 6, g.nx, g.ny);
      NBODY_CUDA_CHECK_LAUNCH();
    }
  }
  void fold_currents() {
    FieldView* j = view_table + 6;
    const bool px = s.field_bc.x == FieldBoundary::periodic, py = s.field_bc.y == FieldBoundary::periodic;
    fold_columns<<<exact_blocks(3 * std::size_t(g.stride())), ElementwisePolicy::kBlock>>>(j, 3, g.nx, g.ny, py);
    NBODY_CUDA_CHECK_LAUNCH();
    fold_rows<<<exact_blocks(3 * std::size_t(g.rows())), ElementwisePolicy::kBlock>>>(j, 3, g.nx, g.ny, px);
    NBODY_CUDA_CHECK_LAUNCH();
    if (px) {
      fill_rows<<<exact_blocks(3 * std::size_t(g.rows())), ElementwisePolicy::kBlock>>>(j, 3, g.nx, g.ny);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    if (py) {
      fill_columns<<<exact_blocks(3 * std::size_t(g.stride())), ElementwisePolicy::kBlock>>>(j, 3, g.nx, g.ny);
      NBODY_CUDA_CHECK_LAUNCH();
    }
  }
  // Reduces f over n items on the device (see reduce_partials): V values, combined with Op.
  template <int V, class Op, class F>
  std::array<double, V> reduce(const F& f, std::size_t n) {
    constexpr bool sum = std::is_same_v<Op, nbody::cuda::Sum>;
    std::array<double, V> out{};
    if (n == 0) return out;
    reduce_partials<V, Op><<<kReduceBlocks, kReduceBlock>>>(f, n, partials);
    NBODY_CUDA_CHECK_LAUNCH();
    std::vector<double> h(std::size_t(V) * kReduceBlocks);
    NBODY_CUDA_CHECK(cudaMemcpy(h.data(), partials, h.size() * sizeof(double), cudaMemcpyDeviceToHost));
    for (int v = 0; v < V; ++v)
      for (int b = 0; b < kReduceBlocks; ++b) {
        const double x = h[std::size_t(v) * kReduceBlocks + std::size_t(b)];
        out[std::size_t(v)] = sum ? out[std::size_t(v)] + x : std::max(out[std::size_t(v)], x);
      }
    return out;
  }
  // rho of every species from the present positions (float64 atomics), guards folded as the
  // host's compute_rho.
  template <class Shape>
  void deposit_rho_all() {
    NBODY_CUDA_CHECK(cudaMemset(f[kRho], 0, g.size() * sizeof(double)));
    for (std::size_t k = 0; k < sp.size(); ++k) {
      if (sp[k].n == 0) continue;
      deposit_rho<Shape><<<blocks_for(sp[k].n), ElementwisePolicy::kBlock>>>(sp[k], view(kRho), g.x0, g.y0, g.dx, g.dy,
                                                                              meta[k].charge);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    const bool px = s.field_bc.x == FieldBoundary::periodic, py = s.field_bc.y == FieldBoundary::periodic;
    fold_columns<<<exact_blocks(std::size_t(g.stride())), ElementwisePolicy::kBlock>>>(rho_table, 1, g.nx, g.ny, py);
    NBODY_CUDA_CHECK_LAUNCH();
    fold_rows<<<exact_blocks(std::size_t(g.rows())), ElementwisePolicy::kBlock>>>(rho_table, 1, g.nx, g.ny, px);
    NBODY_CUDA_CHECK_LAUNCH();
  }
  template <class K>
  void launch(K kernel, const SolverArgs& a, const Range2& r) {
    if (r.count() == 0) return;
    kernel<<<exact_blocks(std::size_t(r.count())), ElementwisePolicy::kBlock>>>(a, r);
    NBODY_CUDA_CHECK_LAUNCH();
  }
  void advance_b(double dt, bool pml_update) {
    const SolverArgs a = args(dt, pml_update);
    launch(update_bx, a, span(false, true));
    launch(update_by, a, span(true, false));
    launch(update_bz, a, span(true, true));
    fill_guards();
  }
  void advance_e(double dt, double t) {
    const SolverArgs a = args(dt);
    const bool ox_lo = open_lo(), ox_hi = open_hi(), oy_lo = open_y_lo(), oy_hi = open_y_hi();
    const bool oy = oy_lo || oy_hi;
    if (ox_lo || ox_hi) {
      save_x_lines<<<exact_blocks(std::size_t(g.ny + 1)), ElementwisePolicy::kBlock>>>(a, save_x);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    if (oy) {
      save_y_lines<<<exact_blocks(std::size_t(g.nx + 1)), ElementwisePolicy::kBlock>>>(a, save_y);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    Range2 rx = span(true, false), ry = span(false, true), rz = span(false, false);
    rx.jlo += oy_lo, rx.jhi -= oy_hi;
    ry.ilo += ox_lo, ry.ihi -= ox_hi;
    rz.ilo += ox_lo, rz.ihi -= ox_hi, rz.jlo += oy_lo, rz.jhi -= oy_hi;
    launch(update_ex, a, rx);
    launch(update_ey, a, ry);
    launch(update_ez, a, rz);
    if (ox_lo || ox_hi) {
      mur_x<<<exact_blocks(std::size_t(g.ny + 1)), ElementwisePolicy::kBlock>>>(
          a, save_x, (dt - g.dx) / (dt + g.dx), s.laser, g.x0, g.y0, slab ? so.j_offset : 0, g.dx, g.dy, t, dt, ox_lo,
          ox_hi);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    if (oy) {
      mur_y<<<exact_blocks(std::size_t(g.nx + 1)), ElementwisePolicy::kBlock>>>(a, save_y, (dt - g.dy) / (dt + g.dy),
                                                                               oy_lo, oy_hi);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    fill_guards();
  }

  // ---- blocks ----
  // A guard message each way through the host (slab_index.hpp's GuardRegion layout): along x the kGuard columns
  // from send_lo to the left neighbour and from send_hi to the right one, every row; along y
  // (along_y) the kGuard rows from send_lo down and from send_hi up, every column; what the
  // neighbours send written (or added) at recv_lo / recv_hi.
  void swap_guards(int what, bool along_y, const FieldView* table, int ncomp, int send_lo, int send_hi, int recv_lo,
                   int recv_hi, bool add) {
    auto region = [&](int first) { return along_y ? guard_rows(g, first) : guard_columns(g, first); };
    const std::size_t len = std::size_t(ncomp) * region(0).size();
    if (len > stage_len) throw_runtime_error("pic: the block staging buffer is too small");
    if (!so.exchange) throw_runtime_error("pic: a block with a cut side and no exchange");
    const bool lo = along_y ? so.cut_y_lo : so.cut_lo, hi = along_y ? so.cut_y_hi : so.cut_hi;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<double> to_lo, to_hi, from_lo, from_hi;
    auto pack = [&](int first, std::vector<double>& out) {
      pack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(first), stage);
      NBODY_CUDA_CHECK_LAUNCH();
      out.resize(len);
      NBODY_CUDA_CHECK(cudaMemcpy(out.data(), stage, len * sizeof(double), cudaMemcpyDeviceToHost));
    };
    auto unpack = [&](int first, const std::vector<double>& in) {
      NBODY_CUDA_CHECK(cudaMemcpy(stage, in.data(), len * sizeof(double), cudaMemcpyHostToDevice));
      unpack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(first), stage, add);
      NBODY_CUDA_CHECK_LAUNCH();
    };
    if (so.guards == GuardExchange::mpi) {
      // CUDA-aware MPI: packed into device buffers, the stream drained (MPI reads the buffers
      // outside CUDA's stream order), the four messages through the communicator with device
      // pointers, unpacked from the device receive buffers. One axis's exchange completes before
      // the next begins, so the two axes share the buffers.
      if (!mpi_buf[0])
        for (double*& p : mpi_buf) p = alloc<double>(stage_len);
      if (lo) pack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(send_lo), mpi_buf[0]);
      NBODY_CUDA_CHECK_LAUNCH();
      if (hi) pack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(send_hi), mpi_buf[1]);
      NBODY_CUDA_CHECK_LAUNCH();
      NBODY_CUDA_CHECK(cudaDeviceSynchronize());
      so.exchange->swap_device(what, along_y, lo ? mpi_buf[0] : nullptr, hi ? mpi_buf[1] : nullptr,
                               lo ? mpi_buf[2] : nullptr, hi ? mpi_buf[3] : nullptr, len);
      if (lo) unpack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(recv_lo), mpi_buf[2], add);
      NBODY_CUDA_CHECK_LAUNCH();
      if (hi) unpack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(recv_hi), mpi_buf[3], add);
      NBODY_CUDA_CHECK_LAUNCH();
      NBODY_CUDA_CHECK(cudaDeviceSynchronize());
      comm_now += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return;
    }
    if (so.guards == GuardExchange::ipc) {
      // GPU to GPU: packed into this exchange's set of exported buffers, a ready signal each way,
      // each side unpacked from the neighbour's buffer in place. No acknowledgement: the next
      // exchange of the axis writes the other set, and the one after this set again only once
      // the neighbours' ready signal of the one between came, which they send after they read
      // this one (the stream drained after the unpacking).
      open_direct(along_y);
      const int a = along_y ? 2 : 0;
      const unsigned set = direct_swaps[a / 2]++ & 1u;
      double* const* out = out_buf[set];
      double* const* peer = peer_buf[set];
      if (lo) pack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(send_lo), out[a]);
      NBODY_CUDA_CHECK_LAUNCH();
      if (hi) pack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(send_hi), out[a + 1]);
      NBODY_CUDA_CHECK_LAUNCH();
      NBODY_CUDA_CHECK(cudaDeviceSynchronize());
      so.exchange->notify(2, along_y, lo, hi);
      if (lo) unpack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(recv_lo), peer[a], add);
      NBODY_CUDA_CHECK_LAUNCH();
      if (hi) unpack_guards<<<exact_blocks(len), ElementwisePolicy::kBlock>>>(table, ncomp, region(recv_hi), peer[a + 1], add);
      NBODY_CUDA_CHECK_LAUNCH();
      NBODY_CUDA_CHECK(cudaDeviceSynchronize());
      comm_now += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return;
    }
    if (lo) pack(send_lo, to_lo);
    if (hi) pack(send_hi, to_hi);
    if (along_y) so.exchange->swap_y(what, to_lo, to_hi, from_lo, from_hi);
    else so.exchange->swap(what, to_lo, to_hi, from_lo, from_hi);
    if (from_lo.size() != (lo ? len : 0) || from_hi.size() != (hi ? len : 0))
      throw_runtime_error("pic: a block guard message of the wrong size");
    if (lo) unpack(recv_lo, from_lo);
    if (hi) unpack(recv_hi, from_hi);
    NBODY_CUDA_CHECK(cudaDeviceSynchronize());
    comm_now += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  // The direct exchange of an axis set up at its first use (every rank at the same point): this
  // rank's buffers exported (two sets), their CUDA IPC handles swapped with the neighbours, theirs
  // mapped.
  void open_direct(bool along_y) {
    const int a = along_y ? 2 : 0;
    if (direct_open[a / 2]) return;
    const bool lo = along_y ? so.cut_y_lo : so.cut_lo, hi = along_y ? so.cut_y_hi : so.cut_hi;
    static_assert(sizeof(cudaIpcMemHandle_t) % sizeof(double) == 0);
    constexpr std::size_t words = sizeof(cudaIpcMemHandle_t) / sizeof(double);
    std::vector<double> to_lo, to_hi, from_lo, from_hi;
    for (int s = 0; s < 2; ++s) {
      if (!(s == 0 ? lo : hi)) continue;
      std::vector<double>& to = s == 0 ? to_lo : to_hi;
      for (int set = 0; set < 2; ++set) {
        out_buf[set][a + s] = alloc<double>(stage_len);
        const cudaIpcMemHandle_t h = ipc_handle(out_buf[set][a + s]);
        to.resize(to.size() + words);
        std::memcpy(to.data() + to.size() - words, &h, sizeof h);
      }
    }
    exported = exported || lo || hi;
    if (along_y) so.exchange->swap_y(4, to_lo, to_hi, from_lo, from_hi);
    else so.exchange->swap(4, to_lo, to_hi, from_lo, from_hi);
    if (from_lo.size() != (lo ? 2 * words : 0) || from_hi.size() != (hi ? 2 * words : 0))
      throw_runtime_error("pic: a block's neighbour sent no CUDA IPC handle");
    for (int s = 0; s < 2; ++s) {
      const std::vector<double>& in = s == 0 ? from_lo : from_hi;
      if (in.empty()) continue;
      for (int set = 0; set < 2; ++set) {
        cudaIpcMemHandle_t h;
        std::memcpy(&h, in.data() + std::size_t(set) * words, sizeof h);
        peer_buf[set][a + s] =
            static_cast<double*>(ipc_map(h, "parallel.exchange = \"ipc\" (use \"host\" where it fails)"));
      }
    }
    direct_open[a / 2] = true;
  }
  // The sources of a block (DomainPic::fold_and_sum_currents): y first over every column (the
  // periodic images of one block row, or dropped beyond a global open edge, and the guard rows
  // at a cut added into the neighbour's rows), then x over every row the same way.
  void fold_slab_sources(const FieldView* table, int ncomp) {
    const bool px = s.field_bc.x == FieldBoundary::periodic, py = s.field_bc.y == FieldBoundary::periodic;
    FieldView* t = const_cast<FieldView*>(table);
    if (so.ranks_y == 1 && py) {
      fold_columns<<<exact_blocks(std::size_t(ncomp) * std::size_t(g.stride())), ElementwisePolicy::kBlock>>>(t, ncomp, g.nx,
                                                                                                            g.ny, true);
      NBODY_CUDA_CHECK_LAUNCH();
    } else if (!py) {
      drop_y_guards<<<exact_blocks(std::size_t(ncomp) * std::size_t(g.stride())), ElementwisePolicy::kBlock>>>(
          table, ncomp, g.nx, g.ny, so.down < 0, so.up < 0);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    if (cut_y()) swap_guards(0, true, table, ncomp, -kGuard, g.ny, 0, g.ny - kGuard, true);
    if (so.ranks_x == 1 && px) {
      fold_rows<<<exact_blocks(std::size_t(ncomp) * std::size_t(g.rows())), ElementwisePolicy::kBlock>>>(t, ncomp, g.nx, g.ny,
                                                                                                       true);
      NBODY_CUDA_CHECK_LAUNCH();
    } else if (!px) {
      drop_x_guards<<<exact_blocks(std::size_t(ncomp) * std::size_t(g.rows())), ElementwisePolicy::kBlock>>>(
          table, ncomp, g.nx, g.ny, so.left < 0, so.right < 0);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    if (cut()) swap_guards(0, false, table, ncomp, -kGuard, g.nx, 0, g.nx - kGuard, true);
  }
  void free_work() {
    for (void* p : {static_cast<void*>(contrib), static_cast<void*>(keys), static_cast<void*>(keys_sorted),
                    static_cast<void*>(order), static_cast<void*>(order_sorted), static_cast<void*>(offs),
                    static_cast<void*>(sel), static_cast<void*>(id_sorted)})
      if (p) NBODY_CUDA_CHECK(cudaFree(p));
    contrib = nullptr, keys = keys_sorted = order = order_sorted = nullptr, offs = nullptr;
    sel = nullptr, id_sorted = nullptr;
  }
  // The per-slot work buffers for `need` slots.
  void ensure_work(std::size_t need) {
    if (need <= work_cap) return;
    free_work();
    if (opt.deposit == DepositKernel::deterministic) {
      const int K = s.shape == ShapeOrder::tsc ? ShapeTSC::support + 2 : ShapeCIC::support + 2;
      contrib = alloc<double>(std::size_t(3 * K * K) * need);
    }
    keys = alloc<unsigned>(need), keys_sorted = alloc<unsigned>(need);
    order = alloc<unsigned>(need), order_sorted = alloc<unsigned>(need);
    offs = alloc<signed char>(2 * need);
    sel = alloc<double>(need);
    id_sorted = alloc<std::uint64_t>(need);
    work_cap = need;
  }
  // Room for `need` particles of species k (the present ones kept).
  void ensure_capacity(std::size_t k, std::size_t need) {
    DevParticles& d = sp[k];
    if (need <= d.cap) return;
    const std::size_t cap = std::max(need, d.cap + d.cap / 2 + 1024);
    for (double** a : {&d.x, &d.y, &d.ux, &d.uy, &d.uz, &d.w}) {
      double* p = alloc<double>(cap);
      if (d.n > 0) NBODY_CUDA_CHECK(cudaMemcpy(p, *a, d.n * sizeof(double), cudaMemcpyDeviceToDevice));
      NBODY_CUDA_CHECK(cudaFree(*a));
      *a = p;
    }
    std::uint64_t* id = alloc<std::uint64_t>(cap);
    if (d.n > 0) NBODY_CUDA_CHECK(cudaMemcpy(id, d.id, d.n * sizeof(std::uint64_t), cudaMemcpyDeviceToDevice));
    NBODY_CUDA_CHECK(cudaFree(d.id));
    d.id = id;
    unsigned char* alive = alloc<unsigned char>(cap);
    if (d.n > 0) NBODY_CUDA_CHECK(cudaMemcpy(alive, d.alive, d.n, cudaMemcpyDeviceToDevice));
    NBODY_CUDA_CHECK(cudaFree(d.alive));
    d.alive = alive;
    d.cap = cap;
    ensure_work(cap);
  }
  // The slots in [first, first + n) that empty (or, want = false, stay) into `out` in ascending
  // order, their number into *count on the device (no wait).
  void select_slots(std::size_t first, std::size_t n, const SlotEmpties& pred, unsigned* out, int* count) {
    if (first + n > std::size_t(0x7fffffff)) throw_input_error("pic: more than 2^31 particles of a species on one slab");
    const thrust::counting_iterator<unsigned> slots(static_cast<unsigned>(first));
    std::size_t need = 0;
    NBODY_CUDA_CHECK(cub::DeviceSelect::If(nullptr, need, slots, out, count, int(n), pred));
    ensure_cub(need);
    NBODY_CUDA_CHECK(cub::DeviceSelect::If(cub_temp, cub_bytes, slots, out, count, int(n), pred));
  }
  // Before a step's particle kernels over several blocks (atomic and warp kernels): room for each
  // mobile species' emptied slots, an eighth of its slots and 1024 (a step empties far fewer:
  // the block's edge cells), and the counts zeroed.
  [[nodiscard]] bool lists_on() const { return slab && so.ranks > 1 && opt.deposit != DepositKernel::deterministic; }
  void prepare_lists() {
    listed.assign(sp.size(), 0);
    if (!lists_on()) return;
    list_at.assign(sp.size(), 0);
    list_cap.assign(sp.size(), 0);
    std::size_t total = 0;
    for (std::size_t k = 0; k < sp.size(); ++k) {
      if (meta[k].immobile) continue;
      list_at[k] = total;
      list_cap[k] = std::min<std::size_t>(sp[k].n / 8 + 1024, 0x7fffffff);
      total += list_cap[k];
    }
    if (total > lists_cap) {
      if (lists) NBODY_CUDA_CHECK(cudaFree(lists));
      lists = nullptr;
      lists_cap = 0;
      lists = alloc<unsigned>(total);
      lists_cap = total;
    }
    if (list_counts_len < sp.size() + 2) {
      if (list_counts) NBODY_CUDA_CHECK(cudaFree(list_counts));
      list_counts = nullptr;
      list_counts_len = 0;
      list_counts = alloc<unsigned>(sp.size() + 2);
      list_counts_len = sp.size() + 2;
    }
    NBODY_CUDA_CHECK(cudaMemsetAsync(list_counts, 0, list_counts_len * sizeof(unsigned)));
  }
  // Species k's list for its particle kernel (off where prepare_lists made none); marks it noted.
  EmptiedList emptied_list(std::size_t k) {
    if (!lists_on() || !lists || k >= list_cap.size() || list_cap[k] == 0) return {};
    listed[k] = 1;
    return EmptiedList{lists + list_at[k], list_counts + k, unsigned(list_cap[k]), owner(), row_owner(), so.bx, so.by};
  }
  // The migration buffer for `words` words.
  void ensure_mig(std::size_t words) {
    if (words <= mig_cap) return;
    const std::size_t cap = std::max(words, mig_cap + mig_cap / 2 + 4096);
    if (mig) NBODY_CUDA_CHECK(cudaFree(mig));
    mig = nullptr;
    mig_cap = 0;
    mig = alloc<std::uint64_t>(cap);
    mig_cap = cap;
  }
  // Species k sorted by id (the deterministic mode's order of the slots).
  void sort_by_id(std::size_t k) {
    DevParticles& d = sp[k];
    if (d.n < 2) return;
    iota_kernel<<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(order, d.n);
    NBODY_CUDA_CHECK_LAUNCH();
    std::size_t need = 0;
    NBODY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, need, d.id, id_sorted, order, order_sorted, int(d.n)));
    ensure_cub(need);
    NBODY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(cub_temp, cub_bytes, d.id, id_sorted, order, order_sorted, int(d.n)));
    for (double* a : {d.x, d.y, d.ux, d.uy, d.uz, d.w}) {
      gather_by<<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(sel, a, order_sorted, d.n);
      NBODY_CUDA_CHECK_LAUNCH();
      NBODY_CUDA_CHECK(cudaMemcpy(a, sel, d.n * sizeof(double), cudaMemcpyDeviceToDevice));
    }
    NBODY_CUDA_CHECK(cudaMemcpy(d.id, id_sorted, d.n * sizeof(std::uint64_t), cudaMemcpyDeviceToDevice));
  }
  // The particles of species k leaving the block: their records appended to `out` by direction
  // (in the order of their slots); their slots and the absorbed particles' filled from the end.
  // Two waits: the number of slots that empty, and their records on the host. Returns whether
  // any slot changed.
  bool take_leavers(std::size_t k, const SlabOwner& own, const SlabOwner& rown, const BlockNeighbours& nb,
                    std::vector<std::uint64_t>* out) {
    DevParticles& d = sp[k];
    const std::size_t n = d.n;
    SlotEmpties empties{d, own, rown, nb, true};
    select_slots(0, n, empties, order, nsel);
    int mc = 0;
    NBODY_CUDA_CHECK(cudaMemcpy(&mc, nsel, sizeof mc, cudaMemcpyDeviceToHost));
    if (mc < 0 || std::size_t(mc) > n) throw_runtime_error("pic: the slot selection returned a bad count");
    const std::size_t m = std::size_t(mc);
    if (m == 0) return false;
    // the emptied slots' records (to the host), then the ones staying in the last m into them
    // (counters[3]: counters[0] and [1] hold the step's counts for the sorting policy)
    ensure_mig(m * kDeviceRecordWords);
    NBODY_CUDA_CHECK(cudaMemsetAsync(counters + 3, 0, sizeof(unsigned long long)));
    pack_emptied<<<blocks_for(m), ElementwisePolicy::kBlock>>>(d, own, rown, nb, order, m, std::uint64_t(k), mig,
                                                               counters + 3);
    NBODY_CUDA_CHECK_LAUNCH();
    SlotEmpties stays = empties;
    stays.want = false;
    select_slots(n - m, m, stays, order_sorted, nsel + 1);
    fill_holes<<<blocks_for(m), ElementwisePolicy::kBlock>>>(d, order, order_sorted, nsel + 1);
    NBODY_CUDA_CHECK_LAUNCH();
    d.n = n - m;
    std::vector<std::uint64_t> rec(m * kDeviceRecordWords);
    NBODY_CUDA_CHECK(cudaMemcpy(rec.data(), mig, rec.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
    unsigned long long bad = 0;
    NBODY_CUDA_CHECK(cudaMemcpy(&bad, counters + 3, sizeof bad, cudaMemcpyDeviceToHost));
    if (bad > 0)
      throw_runtime_error("pic: " + std::to_string(bad) + " particles of " + meta[k].name + " left rank " +
                          std::to_string(so.rank) + "'s block beyond its neighbours in one step");
    sort_records(rec, out);
    return true;
  }
  // The emptied slots' records (pack_emptied's) to the neighbours by direction (`out`: left,
  // right, down, up); the absorbed particles' skipped.
  static void sort_records(const std::vector<std::uint64_t>& rec, std::vector<std::uint64_t>* out) {
    for (std::size_t p = 0; p < rec.size() / kDeviceRecordWords; ++p) {
      const std::uint64_t* r = &rec[p * kDeviceRecordWords];
      if (r[0] == kSlotEmpty) continue;
      const std::uint64_t move = r[0] - kSlotLeaves;
      if (r[0] < kSlotLeaves || move < std::uint64_t(BlockMove::left) || move > std::uint64_t(BlockMove::up))
        throw_runtime_error("pic: a leaving particle's record of a bad direction");
      std::vector<std::uint64_t>& o = out[move - std::uint64_t(BlockMove::left)];
      o.insert(o.end(), r + 1, r + kDeviceRecordWords);
    }
  }
  // Species k's m slots that the particle kernel noted (prepare_lists): their records into mig
  // from record `at`, and the holes filled from the end, no wait (the caller copies the records).
  void take_listed(std::size_t k, std::size_t m, std::size_t at, const SlabOwner& own, const SlabOwner& rown,
                   const BlockNeighbours& nb) {
    DevParticles& d = sp[k];
    const std::size_t n = d.n;
    if (m > n) throw_runtime_error("pic: more emptied slots than slots");
    const unsigned* list = lists + list_at[k];
    pack_emptied<<<blocks_for(m), ElementwisePolicy::kBlock>>>(d, own, rown, nb, list, m, std::uint64_t(k),
                                                               mig + at * kDeviceRecordWords, counters + 3);
    NBODY_CUDA_CHECK_LAUNCH();
    // (the holes before the last m into order, the particles staying in the last m into
    // order_sorted, the tail's flags in keys; the two counts after the species' counts)
    unsigned* split_counts = list_counts + sp.size();
    NBODY_CUDA_CHECK(cudaMemsetAsync(keys, 0, m * sizeof(unsigned)));
    NBODY_CUDA_CHECK(cudaMemsetAsync(split_counts, 0, 2 * sizeof(unsigned)));
    split_emptied<<<blocks_for(m), ElementwisePolicy::kBlock>>>(list, m, n, keys, order, split_counts);
    NBODY_CUDA_CHECK_LAUNCH();
    collect_staying<<<blocks_for(m), ElementwisePolicy::kBlock>>>(keys, m, n, order_sorted, split_counts + 1);
    NBODY_CUDA_CHECK_LAUNCH();
    fill_holes<<<blocks_for(m), ElementwisePolicy::kBlock>>>(d, order, order_sorted, split_counts);
    NBODY_CUDA_CHECK_LAUNCH();
    d.n = n - m;
  }
  // The arrived records of species k appended (in id order). Returns whether any arrived.
  bool append_arrivals(std::size_t k, const std::vector<std::uint64_t>& arrived) {
    const std::vector<std::uint64_t> rec = arrivals_of(arrived, k);
    if (rec.empty()) return false;
    if (meta[k].immobile) throw_runtime_error("pic: an immobile particle arrived from another block");
    const std::size_t na = rec.size() / kMigrationWords;
    ensure_capacity(k, sp[k].n + na);
    DevParticles& d = sp[k];
    // 7 arrays of na words (id, x, y, ux, uy, uz, w), one copy to the device
    std::vector<std::uint64_t> packed(7 * na);
    for (std::size_t p = 0; p < na; ++p)
      for (std::size_t q = 0; q < 7; ++q) packed[q * na + p] = rec[p * kMigrationWords + 1 + q];
    ensure_mig(packed.size());
    NBODY_CUDA_CHECK(cudaMemcpy(mig, packed.data(), packed.size() * sizeof(std::uint64_t), cudaMemcpyHostToDevice));
    unpack_arrivals<<<blocks_for(na), ElementwisePolicy::kBlock>>>(d, d.n, mig, na);
    NBODY_CUDA_CHECK_LAUNCH();
    d.n += na;
    return true;
  }
  // DomainPic::migrate on the device: those whose block column changed sent along x, then those
  // whose block row changed, with the x arrivals of another block row, along y (a corner crossing
  // takes two hops); the arrivals appended in id order. The slots that empty are those the atomic
  // and warp kernels noted as they moved the particles (EmptiedList: no pass over every slot), or
  // for the deterministic kernel (and a list that overflowed) those selected from the positions.
  // They are filled from the species' end (not compacted: a step moves only the leavers and as
  // many from the end), so the slots' order changes: the atomic kernel adds in no fixed order
  // anyway, the warp kernel's sorting policy counts the particles out of their warp's cells, and
  // the deterministic mode sorts the species by id again (its fixed order of each cell's sum; the
  // outputs and checkpoints are in id order in every mode: DomainPic::gather and redistribute
  // sort by id on the host).
  void migrate_slab() {
    const SlabOwner own = owner(), rown = row_owner();
    const BlockNeighbours nb = block_neighbours(so.bx, so.by, so.ranks_x, so.left, so.right, so.down, so.up);
    std::vector<std::uint64_t> to[4];  // left, right, down, up
    std::vector<char> changed(sp.size(), 0);
    // The slots the particle kernels noted (atomic and warp kernels): their counts (one wait).
    // A species without a list, or with more than its list holds, selects them itself first.
    std::vector<unsigned> counts(sp.size(), 0);
    const bool any_listed = std::find(listed.begin(), listed.end(), char(1)) != listed.end();
    if (any_listed) NBODY_CUDA_CHECK(cudaMemcpy(counts.data(), list_counts, sp.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    auto use_list = [&](std::size_t k) { return k < listed.size() && listed[k] && counts[k] <= list_cap[k]; };
    for (std::size_t k = 0; k < sp.size(); ++k)
      if (!meta[k].immobile && sp[k].n > 0 && !use_list(k)) changed[k] = take_leavers(k, own, rown, nb, to) ? 1 : 0;
    // The listed species: their records one after another in mig, the holes filled, then one
    // copy of all the records to the host (the second wait; the count gone too far the third).
    std::size_t total = 0;
    for (std::size_t k = 0; k < sp.size(); ++k)
      if (!meta[k].immobile && use_list(k)) total += counts[k];
    if (total > 0) {
      ensure_mig(total * kDeviceRecordWords);
      NBODY_CUDA_CHECK(cudaMemsetAsync(counters + 3, 0, sizeof(unsigned long long)));
      std::size_t at = 0;
      for (std::size_t k = 0; k < sp.size(); ++k) {
        if (meta[k].immobile || !use_list(k) || counts[k] == 0) continue;
        take_listed(k, counts[k], at, own, rown, nb);
        at += counts[k];
        changed[k] = 1;
      }
      std::vector<std::uint64_t> rec(total * kDeviceRecordWords);
      NBODY_CUDA_CHECK(cudaMemcpy(rec.data(), mig, rec.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
      unsigned long long bad = 0;
      NBODY_CUDA_CHECK(cudaMemcpy(&bad, counters + 3, sizeof bad, cudaMemcpyDeviceToHost));
      if (bad > 0)
        throw_runtime_error("pic: " + std::to_string(bad) + " particles left rank " + std::to_string(so.rank) +
                            "'s block beyond its neighbours in one step");
      sort_records(rec, to);
    }
    std::vector<std::uint64_t>&to_left = to[0], &to_right = to[1], &to_down = to[2], &to_up = to[3];
    std::vector<std::uint64_t> arrived;
    auto exchange = [&](bool along_y, const std::vector<std::uint64_t>& lo, const std::vector<std::uint64_t>& hi,
                        std::vector<std::uint64_t>& in) {
      const bool any = along_y ? (so.down >= 0 || so.up >= 0) : (so.left >= 0 || so.right >= 0);
      if (!any) {
        if (!lo.empty() || !hi.empty()) throw_runtime_error("pic: particles to send from a block without neighbours");
        return;
      }
      if (!so.exchange) throw_runtime_error("pic: a block with neighbours and no exchange");
      const auto t0 = std::chrono::steady_clock::now();
      if (along_y) so.exchange->migrate_y(lo, hi, in);
      else so.exchange->migrate(lo, hi, in);
      comm_now += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    exchange(false, to_left, to_right, arrived);
    if (so.ranks_y > 1) {
      // The x arrivals of another block row go on along y.
      if (arrived.size() % kMigrationWords != 0) throw_runtime_error("pic: a migration message of a broken length");
      const SlabOwner host_rows{so.global.y0, so.global.dy, so.global.ny, so.ranks_y, so.rows.data()};
      std::vector<std::uint64_t> stay;
      for (std::size_t r = 0; r < arrived.size() / kMigrationWords; ++r) {
        const std::uint64_t* rec = &arrived[r * kMigrationWords];
        double y;
        std::memcpy(&y, &rec[3], sizeof y);
        const BlockMove move = nb(so.bx, host_rows(y));
        if (move == BlockMove::beyond)
          throw_runtime_error("pic: a particle arrived at rank " + std::to_string(so.rank) + " beyond its neighbours");
        std::vector<std::uint64_t>& dest = move == BlockMove::up ? to_up : (move == BlockMove::down ? to_down : stay);
        dest.insert(dest.end(), rec, rec + kMigrationWords);
      }
      std::vector<std::uint64_t> more;
      exchange(true, to_down, to_up, more);
      arrived = std::move(stay);
      arrived.insert(arrived.end(), more.begin(), more.end());
    }
    for (std::size_t k = 0; k < sp.size(); ++k) {
      if (!arrived.empty() && append_arrivals(k, arrived)) changed[k] = 1;
      if (changed[k] && opt.deposit == DepositKernel::deterministic) sort_by_id(k);
    }
  }
  // The deterministic deposition of a slab (particles_classed, reduce_classes into cls).
  template <class Shape>
  void push_classed(std::size_t k, const PushParams& pp, const FieldViews& v) {
    const DevParticles& d = sp[k];
    constexpr int K = Shape::support + 2;
    if (d.n > std::size_t(0x7fffffff)) throw_input_error("pic: more than 2^31 particles of a species on one slab");
    NBODY_CUDA_CHECK(cudaMemset(contrib, 0, std::size_t(3 * K * K) * d.n * sizeof(double)));
    LocalAccumulate<K> acc{{f[kJx], f[kJy], f[kJz]}, g.size(), g.stride(), 0, 0, contrib, d.n, 0};
    const unsigned sentinel = unsigned(g.size());
    const SlabOwner own = owner();
    particles_classed<Shape><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(d, v, pp, acc, own, row_owner(), so.i_offset,
                                                                             so.j_offset, g.rows(), keys, order, offs,
                                                                             sentinel);
    NBODY_CUDA_CHECK_LAUNCH();
    int bits = 1;
    while ((std::size_t(1) << bits) <= g.size()) ++bits;
    std::size_t need = 0;
    NBODY_CUDA_CHECK(
        cub::DeviceRadixSort::SortPairs(nullptr, need, keys, keys_sorted, order, order_sorted, int(d.n), 0, bits));
    ensure_cub(need);
    NBODY_CUDA_CHECK(
        cub::DeviceRadixSort::SortPairs(cub_temp, cub_bytes, keys, keys_sorted, order, order_sorted, int(d.n), 0, bits));
    NBODY_CUDA_CHECK(cudaMemset(cell_start, 0, g.size() * sizeof(unsigned)));
    NBODY_CUDA_CHECK(cudaMemset(cell_end, 0, g.size() * sizeof(unsigned)));
    cell_ranges<<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(keys_sorted, d.n, sentinel, cell_start, cell_end);
    NBODY_CUDA_CHECK_LAUNCH();
    reduce_classes<K><<<blocks_for(g.size()), ElementwisePolicy::kBlock>>>(cls, class_m, so.i_offset, so.j_offset, g.stride(),
                                                                         g.rows(), g.size(), cell_start, cell_end,
                                                                         order_sorted, offs, contrib, d.n);
    NBODY_CUDA_CHECK_LAUNCH();
  }
  // Document 004's policy, before a step of the tiled (warp = false) or warp kernel: sort when
  // the share of slots out of place passes empty_ratio (or every sort_every steps); always before
  // the first step. Out of place: for tiled, particles outside their tile's cells; for warp, the
  // particles that could not share their warp's window beyond those of the first step after the
  // sort (warps across cell boundaries, and on a slab the arrivals appended at its end); the
  // empty slots of absorbed particles (a slab among several compacts those every step).
  void sort_if_due(bool warp) {
    bool due = !sorted || (opt.sort_every > 0 && step % opt.sort_every == 0);
    if (!due && opt.empty_ratio >= 0) {
      unsigned long long c[2];
      NBODY_CUDA_CHECK(cudaMemcpy(c, counters, sizeof c, cudaMemcpyDeviceToHost));
      if (!(slab && so.ranks > 1)) dead_slots += c[1];
      double out = double(c[0]);
      if (warp) {
        if (alone_after_sort < 0) alone_after_sort = out;
        out = std::max(0.0, out - alone_after_sort);
      }
      // Over several blocks the share is the run's: every rank sorts at the same step (one
      // GPU's decision, and no step waits for one block's sort while the others sort later).
      double share[2] = {out + double(dead_slots), double(slots())};
      if (slab && so.ranks > 1 && so.exchange) so.exchange->sum(share, 2);
      due = share[1] > 0 && share[0] > opt.empty_ratio * share[1];
    }
    if (due) {
      for (std::size_t k = 0; k < sp.size(); ++k) sort_particles(k, warp);
      sorted = true;
      dead_slots = 0;
      alone_after_sort = -1;
      ++sort_count;
    }
    NBODY_CUDA_CHECK(cudaMemset(counters, 0, 2 * sizeof(unsigned long long)));
  }
  // One step of a slab (DomainPic::step), with the host clock's split.
  void slab_step() {
    using clock = std::chrono::steady_clock;
    auto secs = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
    NBODY_CUDA_CHECK(cudaDeviceSynchronize());
    const auto t0 = clock::now();
    comm_now = 0;
    const bool det = opt.deposit == DepositKernel::deterministic;
    for (int c = kJx; c <= kJz; ++c) NBODY_CUDA_CHECK(cudaMemset(f[c], 0, g.size() * sizeof(double)));
    if (det) NBODY_CUDA_CHECK(cudaMemset(cls, 0, std::size_t(3 * classes) * g.size() * sizeof(double)));
    // (the warp kernel's sorts by cell: counted with the particles, as on one GPU)
    if (opt.deposit == DepositKernel::warp && s.deposit) sort_if_due(true);
    prepare_lists();
    for (std::size_t k = 0; k < sp.size(); ++k) {
      if (meta[k].immobile) continue;
      if (s.shape == ShapeOrder::tsc) push<ShapeTSC>(k);
      else push<ShapeCIC>(k);
    }
    NBODY_CUDA_CHECK(cudaDeviceSynchronize());
    const auto t1 = clock::now();
    if (det) {
      fold_slab_sources(cls_table, 3 * classes);
      sum_classes<<<blocks_for(g.size()), ElementwisePolicy::kBlock>>>(f[kJx], f[kJy], f[kJz], cls, classes, g.size());
      NBODY_CUDA_CHECK_LAUNCH();
    } else {
      fold_slab_sources(view_table + 6, 3);
    }
    if (s.solve_fields) {
      const double t = s.t0 + double(step) * s.dt;
      advance_b(0.5 * s.dt, false);
      advance_e(s.dt, t);
      advance_b(0.5 * s.dt, true);
    }
    // (the Poynting fluxes of a block run: flux_rows, summed by the caller)
    NBODY_CUDA_CHECK(cudaDeviceSynchronize());
    const auto t2 = clock::now();
    const double comm_fields = comm_now;
    comm_now = 0;
    // (one rank: nothing leaves; the absorbed particles' slots stay empty, which changes no
    // order: the live particles' slots are in id order either way)
    if (so.ranks > 1) migrate_slab();
    NBODY_CUDA_CHECK(cudaDeviceSynchronize());
    const auto t3 = clock::now();
    last.particles = secs(t0, t1);
    last.fields = std::max(0.0, secs(t1, t2) - comm_fields);
    last.comm = comm_fields + comm_now;
    last.sort = std::max(0.0, secs(t2, t3) - comm_now);
    last.step = secs(t0, t3);
    total.particles += last.particles, total.fields += last.fields, total.comm += last.comm, total.sort += last.sort;
    total.step += last.step;
    particle_seconds += last.particles;
    ++step;
  }

  template <class Shape>
  void push(std::size_t k) {
    const DevParticles& d = sp[k];
    if (d.n == 0) return;
    const PushParams pp = make_push_params(push_settings(), meta[k], step);
    const FieldViews v = views();
    const DepositKernel kind = s.deposit ? opt.deposit : DepositKernel::atomic;
    if (slab && kind == DepositKernel::deterministic) {
      push_classed<Shape>(k, pp, v);
      return;
    }
    switch (kind) {
      case DepositKernel::atomic:
        particles_with<Shape><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(d, v, pp, AtomicAccumulate{},
                                                                              emptied_list(k));
        NBODY_CUDA_CHECK_LAUNCH();
        return;
      case DepositKernel::separate:
        gather_kernel<Shape><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(d, v, pp, eb);
        NBODY_CUDA_CHECK_LAUNCH();
        push_kernel<<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(d, pp, eb, moves, active);
        NBODY_CUDA_CHECK_LAUNCH();
        deposit_kernel<Shape><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(d, v, pp, moves, active);
        NBODY_CUDA_CHECK_LAUNCH();
        return;
      case DepositKernel::warp: {
        int& resident = warp_resident[Shape::support == ShapeTSC::support];
        if (resident == 0) {  // the blocks the SMs hold at once, asked once
          int per_sm = 0, sms = 0;
          NBODY_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, particles_warp<Shape>, kWarpBlock, 0));
          NBODY_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, opt.device));
          resident = std::max(per_sm, 1) * sms;
        }
        const std::size_t most = (d.n + kWarpBlock - 1) / kWarpBlock;
        const int blocks = int(std::max<std::size_t>(1, std::min<std::size_t>(most, std::size_t(resident))));
        particles_warp<Shape><<<blocks, kWarpBlock>>>(d, v, pp, counters, emptied_list(k));
        NBODY_CUDA_CHECK_LAUNCH();
        return;
      }
      case DepositKernel::cas:
        particles_with<Shape><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(d, v, pp, CasAccumulate{});
        NBODY_CUDA_CHECK_LAUNCH();
        return;
      case DepositKernel::float32:
        particles_with<Shape><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(
            d, v, pp, Float32Accumulate{{f[kJx], f[kJy], f[kJz]}, {fj[0], fj[1], fj[2]}, g.size()});
        NBODY_CUDA_CHECK_LAUNCH();
        return;
      case DepositKernel::redundant:
        particles_redundant<Shape><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(
            d, v, pp, tg, f[kJx], f[kJy], f[kJz], g.size(), g.stride(), copies, pool, dense_slot);
        NBODY_CUDA_CHECK_LAUNCH();
        return;
      case DepositKernel::tiled:
        particles_tiled<Shape><<<tg.count(), kTileBlock>>>(d, v, pp, tile_start[k], tile_end[k], tg, f[kJx], f[kJy], f[kJz],
                                                           g.size(), g.stride(), g.rows(), counters);
        NBODY_CUDA_CHECK_LAUNCH();
        return;
      case DepositKernel::deterministic: break;
    }
    constexpr int K = Shape::support + 2;
    const std::size_t per = std::size_t(3 * K * K);
    NBODY_CUDA_CHECK(cudaMemset(contrib, 0, per * d.n * sizeof(double)));
    LocalAccumulate<K> acc{{f[kJx], f[kJy], f[kJz]}, g.size(), g.stride(), 0, 0, contrib, d.n, 0};
    const unsigned sentinel = unsigned(g.size());
    particles_ordered<Shape><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(d, v, pp, acc, keys, order, sentinel);
    NBODY_CUDA_CHECK_LAUNCH();
    int bits = 1;
    while ((std::size_t(1) << bits) <= g.size()) ++bits;
    std::size_t need = 0;
    NBODY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, need, keys, keys_sorted, order, order_sorted, d.n, 0, bits));
    ensure_cub(need);
    NBODY_CUDA_CHECK(
        cub::DeviceRadixSort::SortPairs(cub_temp, cub_bytes, keys, keys_sorted, order, order_sorted, d.n, 0, bits));
    NBODY_CUDA_CHECK(cudaMemset(cell_start, 0, g.size() * sizeof(unsigned)));
    NBODY_CUDA_CHECK(cudaMemset(cell_end, 0, g.size() * sizeof(unsigned)));
    cell_ranges<<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(keys_sorted, d.n, sentinel, cell_start, cell_end);
    NBODY_CUDA_CHECK_LAUNCH();
    reduce_ordered<K><<<blocks_for(g.size()), ElementwisePolicy::kBlock>>>(
        f[kJx], f[kJy], f[kJz], g.stride(), g.size(), cell_start, cell_end, order_sorted, contrib, d.n);
    NBODY_CUDA_CHECK_LAUNCH();
  }
};

namespace {
PicGpuOptions options_of(DepositMode mode, int device) {
  PicGpuOptions o;
  o.deposit = mode == DepositMode::deterministic ? DepositKernel::deterministic : DepositKernel::atomic;
  o.device = device;
  return o;
}
}  // namespace

PicGpu::PicGpu(const PicSimulation& from, DepositMode mode, int device) : PicGpu(from, options_of(mode, device)) {}

PicGpu::PicGpu(const PicSimulation& from, PicGpuOptions options) : impl_(std::make_unique<Impl>()) {
  std::string why;
  if (!pic_gpu_available(&why)) throw_input_error("pic: no usable CUDA device (" + why + ")");
  const int device = options.device;
  const DepositMode mode = options.deposit == DepositKernel::deterministic ? DepositMode::deterministic : DepositMode::atomic;
  NBODY_CUDA_CHECK(cudaSetDevice(device));
  Impl& m = *impl_;
  // (a block's particle ids, 8 bytes a particle, moved into m.so once, never copied)
  if (options.slab.enabled) m.so = std::move(options.slab);
  m.opt = options;
  m.s = from.settings();
  m.g = m.s.geom;
  m.tg.nx = m.g.nx, m.tg.ny = m.g.ny, m.tg.x0 = m.g.x0, m.tg.y0 = m.g.y0, m.tg.dx = m.g.dx, m.tg.dy = m.g.dy;
  m.tg.tiles_x = (m.g.nx + kTile - 1) / kTile;
  m.tg.tiles_y = (m.g.ny + kTile - 1) / kTile;
  m.step = from.step_count();
  m.slab = options.slab.enabled;
  if (m.slab) {
    if (options.deposit != DepositKernel::atomic && options.deposit != DepositKernel::warp &&
        options.deposit != DepositKernel::deterministic)
      throw_input_error("pic: over slabs on GPUs solver.deposit must be \"atomic\", \"warp\" or \"deterministic\"");
    if ((m.so.cut_lo || m.so.cut_hi || m.so.cut_y_lo || m.so.cut_y_hi) && !m.so.exchange)
      throw_runtime_error("pic: a block with a cut side needs an exchange");
    if (m.so.guards == GuardExchange::automatic)
      throw_runtime_error("pic: a block's guard exchange \"auto\" must be resolved first (resolve_guard_exchange)");
    if (m.so.ids.size() != from.species().size()) throw_runtime_error("pic: the slab's particle ids do not match its species");
    for (std::size_t k = 0; k < m.so.ids.size(); ++k)
      if (m.so.ids[k].size() != from.species()[k].size())
        throw_runtime_error("pic: the slab's particle ids do not match the particles of " + from.species()[k].name);
    if (m.g.nx < 2 * kGuard) throw_input_error("pic: a GPU slab needs at least " + std::to_string(2 * kGuard) + " cell columns");
    if (m.so.ranks_y > 1 && m.g.ny < 2 * kGuard)
      throw_input_error("pic: a GPU block needs at least " + std::to_string(2 * kGuard) + " cell rows");
    if (m.so.ranks_x * m.so.ranks_y != m.so.ranks || m.so.bx + m.so.by * m.so.ranks_x != m.so.rank)
      throw_runtime_error("pic: the block shape does not match the ranks");
    if (int(m.so.starts.size()) != m.so.ranks_x + 1 || m.so.starts.front() != 0 || m.so.starts.back() != m.so.global.nx)
      throw_runtime_error("pic: the slab starts do not match the ranks and the grid");
    if (m.so.rows.empty()) m.so.rows = {0, m.so.global.ny};
    if (int(m.so.rows.size()) != m.so.ranks_y + 1 || m.so.rows.front() != 0 || m.so.rows.back() != m.so.global.ny)
      throw_runtime_error("pic: the block rows do not match the ranks and the grid");
    m.class_m = m.s.shape == ShapeOrder::tsc ? 6 : 4;  // pic/domain.hpp's deposit_classes
    m.classes = m.class_m * m.class_m;
    // (the sort by cell of the warp kernel: the block's cells)
    m.tg.y0 = m.so.global.y0 + m.so.j_offset * m.so.global.dy;
  }
  if (m.g.size() >= std::size_t(0xffffffffu)) throw_input_error("pic: the grid is too large for the GPU path's 32-bit cell keys");
  {
    // Everything this object allocates, checked before the first allocation: one clear error for
    // a grid or a plasma that does not fit on the device.
    std::size_t particles = 0, most = 0;
    for (const Species& s : from.species()) particles += s.size(), most = std::max(most, s.size());
    const int K = m.s.shape == ShapeOrder::tsc ? ShapeTSC::support + 2 : ShapeCIC::support + 2;
    std::size_t bytes = std::size_t(kComponents) * m.g.size() * sizeof(double) + particles * (6 * sizeof(double) + 1);
    if (from.solver().pml().cells > 0) bytes += std::size_t(kPsiCount) * m.g.size() * sizeof(double);
    if (mode == DepositMode::deterministic)
      bytes += most * (std::size_t(3 * K * K) * sizeof(double) + 4 * sizeof(unsigned)) + 2 * m.g.size() * sizeof(unsigned);
    if (options.deposit == DepositKernel::float32) bytes += 3 * m.g.size() * sizeof(float);
    if (options.deposit == DepositKernel::separate) bytes += most * (6 * sizeof(double) + sizeof(ParticleMove) + 1);
    if (options.deposit == DepositKernel::redundant) {
      const std::size_t tiles = std::size_t(m.tg.count()), dense = std::max<std::size_t>(1, tiles / 4);
      bytes += std::size_t(K * K) * 3 * m.g.size() * sizeof(double) +
               dense * std::size_t(K * K) * kSubCopies * 3 * kTileSpan * kTileSpan * sizeof(double) +
               tiles * (sizeof(int) + 2 * sizeof(unsigned));
    }
    if (options.deposit == DepositKernel::tiled)
      bytes += most * (sizeof(double) + 4 * sizeof(unsigned)) +
               2 * std::size_t(m.tg.count()) * from.species().size() * sizeof(unsigned);
    if (options.deposit == DepositKernel::warp && !options.slab.enabled)
      bytes += most * (sizeof(double) + 4 * sizeof(unsigned));
    if (options.slab.enabled) {
      // The slots' room for arrivals and their ids, and the per-slot work buffers of ensure_work
      // (which the sorts by cell use too): 4 unsigned keys and orders, 2 offsets, a double and a
      // 64-bit id. (The migration's records buffer grows with the leavers, 72 bytes
      // each: a slab's boundary cells at most.)
      const bool room = options.slab.ranks > 1;
      const std::size_t slots = particles + (room ? particles / 8 + 1024 * from.species().size() : 0);
      const std::size_t work = most + (room ? most / 8 + 1024 : 0);
      // (and the emptied slots' lists of the atomic and warp kernels, an eighth of the slots)
      if (room && mode != DepositMode::deterministic) bytes += (slots / 8 + 1024 * from.species().size()) * sizeof(unsigned);
      bytes += (slots - particles) * (6 * sizeof(double) + 1) + slots * sizeof(std::uint64_t) +
               work * (4 * sizeof(unsigned) + 2 + sizeof(double) + sizeof(std::uint64_t));
      // the deterministic mode's class arrays (3 M^2 of the block's size) and guard staging
      const std::size_t M = m.s.shape == ShapeOrder::tsc ? 6 : 4;
      if (mode == DepositMode::deterministic) bytes += 3 * M * M * m.g.size() * sizeof(double);
      bytes += 3 * M * M * std::size_t(std::max(m.g.rows(), m.g.stride())) * kGuard * sizeof(double);
    }
    require_memory(Location::cuda(device), bytes,
                   "pic: " + std::to_string(m.g.nx) + " x " + std::to_string(m.g.ny) + " cells and " +
                       std::to_string(particles) + " particles" +
                       (mode == DepositMode::deterministic ? " (deterministic deposition)" : ""));
  }
  for (int c = 0; c < kComponents; ++c) {
    m.f[c] = m.alloc<double>(m.g.size());
    NBODY_CUDA_CHECK(cudaMemcpy(m.f[c], from.fields().data[c].data(), m.g.size() * sizeof(double), cudaMemcpyHostToDevice));
  }
  m.pml = from.solver().pml();
  if (m.slab && m.pml.cells > 0) m.pml.nx = m.so.global.nx;  // (MaxwellSolver::set_slab)
  if (m.pml.cells > 0)
    for (int c = 0; c < kPsiCount; ++c) {
      m.psi[c] = m.alloc<double>(m.g.size());
      const std::vector<double>& h = from.fields().psi[c];
      if (h.size() == m.g.size()) {
        NBODY_CUDA_CHECK(cudaMemcpy(m.psi[c], h.data(), m.g.size() * sizeof(double), cudaMemcpyHostToDevice));
      } else {
        NBODY_CUDA_CHECK(cudaMemset(m.psi[c], 0, m.g.size() * sizeof(double)));
      }
    }
  std::vector<FieldView> table;
  for (int c : {kEx, kEy, kEz, kBx, kBy, kBz, kJx, kJy, kJz}) table.push_back(m.view(c));
  m.view_table = m.alloc<FieldView>(table.size());
  NBODY_CUDA_CHECK(cudaMemcpy(m.view_table, table.data(), table.size() * sizeof(FieldView), cudaMemcpyHostToDevice));
  {
    const FieldView rho = m.view(kRho);
    m.rho_table = m.alloc<FieldView>(1);
    NBODY_CUDA_CHECK(cudaMemcpy(m.rho_table, &rho, sizeof(FieldView), cudaMemcpyHostToDevice));
  }
  m.partials = m.alloc<double>(2 * std::size_t(kReduceBlocks));
  m.track = m.alloc<double>(4);
  NBODY_CUDA_CHECK(cudaMemset(m.track, 0, 4 * sizeof(double)));
  m.save_x = m.alloc<double>(8 * std::size_t(m.g.ny + 1));
  m.save_y = m.alloc<double>(8 * std::size_t(m.g.nx + 1));
  std::size_t most = 0;
  for (std::size_t sk = 0; sk < from.species().size(); ++sk) {
    const Species& s = from.species()[sk];
    Species meta = s;
    meta.resize(0);
    m.meta.push_back(meta);
    DevParticles d{};
    d.n = s.size();
    // On a slab: room for arrivals (grown when needed), and the ids.
    d.cap = m.slab && m.so.ranks > 1 ? d.n + d.n / 8 + 1024 : d.n;
    most = std::max(most, d.cap);
    double** arrays[6] = {&d.x, &d.y, &d.ux, &d.uy, &d.uz, &d.w};
    const std::vector<double>* src[6] = {&s.x, &s.y, &s.ux, &s.uy, &s.uz, &s.w};
    for (int k = 0; k < 6; ++k) {
      *arrays[k] = m.alloc<double>(d.cap);
      NBODY_CUDA_CHECK(cudaMemcpy(*arrays[k], src[k]->data(), d.n * sizeof(double), cudaMemcpyHostToDevice));
    }
    d.alive = m.alloc<unsigned char>(d.cap);
    NBODY_CUDA_CHECK(cudaMemset(d.alive, 1, d.n));
    if (m.slab) {
      d.id = m.alloc<std::uint64_t>(d.cap);
      NBODY_CUDA_CHECK(cudaMemcpy(d.id, m.so.ids[sk].data(), d.n * sizeof(std::uint64_t), cudaMemcpyHostToDevice));
    }
    m.sp.push_back(d);
  }
  if (options.deposit == DepositKernel::float32)
    for (float*& p : m.fj) p = m.alloc<float>(m.g.size());
  if (options.deposit == DepositKernel::redundant) {
    const int K = m.s.shape == ShapeOrder::tsc ? ShapeTSC::support + 2 : ShapeCIC::support + 2;
    m.ncopies = K * K;
    m.max_dense = std::max(1, int(m.tg.count() / 4));
    m.copies = m.alloc<double>(std::size_t(m.ncopies) * 3 * m.g.size());
    m.pool = m.alloc<double>(std::size_t(m.max_dense) * m.pool_slab());
    m.dense_slot = m.alloc<int>(m.tg.count());
    m.dense_tiles = m.alloc<unsigned>(m.tg.count());
    m.tile_counts = m.alloc<unsigned>(m.tg.count());
  }
  if (options.deposit == DepositKernel::separate) {
    m.eb = m.alloc<double>(6 * most);
    m.moves = m.alloc<ParticleMove>(most);
    m.active = m.alloc<unsigned char>(most);
  }
  m.counters = m.alloc<unsigned long long>(4);
  NBODY_CUDA_CHECK(cudaMemset(m.counters, 0, 4 * sizeof(unsigned long long)));
  if ((options.deposit == DepositKernel::tiled || options.deposit == DepositKernel::warp) && !m.slab) {
    m.keys = m.alloc<unsigned>(most);
    m.keys_sorted = m.alloc<unsigned>(most);
    m.order = m.alloc<unsigned>(most);
    m.order_sorted = m.alloc<unsigned>(most);
    m.scratch = m.alloc<double>(most);
  }
  if (options.deposit == DepositKernel::tiled) {
    for (std::size_t k = 0; k < m.sp.size(); ++k) {
      m.tile_start.push_back(m.alloc<unsigned>(m.tg.count()));
      m.tile_end.push_back(m.alloc<unsigned>(m.tg.count()));
    }
  }
  if (m.slab) {
    m.so.ids.clear();
    m.starts = m.alloc<int>(m.so.starts.size());
    NBODY_CUDA_CHECK(cudaMemcpy(m.starts, m.so.starts.data(), m.so.starts.size() * sizeof(int), cudaMemcpyHostToDevice));
    m.rows = m.alloc<int>(m.so.rows.size());
    NBODY_CUDA_CHECK(cudaMemcpy(m.rows, m.so.rows.data(), m.so.rows.size() * sizeof(int), cudaMemcpyHostToDevice));
    m.flux = m.alloc<double>(std::size_t(m.g.ny));
    m.ensure_work(std::max<std::size_t>(most, 1));
    m.nsel = m.alloc<int>(2);
    m.stage_len = std::size_t(std::max(3 * m.classes, 6)) * std::size_t(std::max(m.g.rows(), m.g.stride())) * kGuard;
    m.stage = m.alloc<double>(m.stage_len);
    if (mode == DepositMode::deterministic) {
      m.cell_start = m.alloc<unsigned>(m.g.size());
      m.cell_end = m.alloc<unsigned>(m.g.size());
      m.cls = m.alloc<double>(std::size_t(3 * m.classes) * m.g.size());
      NBODY_CUDA_CHECK(cudaMemset(m.cls, 0, std::size_t(3 * m.classes) * m.g.size() * sizeof(double)));
      std::vector<FieldView> ct;
      for (int r = 0; r < 3 * m.classes; ++r) ct.push_back(FieldView{m.cls + std::size_t(r) * m.g.size(), m.g.stride()});
      m.cls_table = m.alloc<FieldView>(ct.size());
      NBODY_CUDA_CHECK(cudaMemcpy(m.cls_table, ct.data(), ct.size() * sizeof(FieldView), cudaMemcpyHostToDevice));
    }
  } else if (mode == DepositMode::deterministic) {
    const int K = m.s.shape == ShapeOrder::tsc ? ShapeTSC::support + 2 : ShapeCIC::support + 2;
    m.contrib = m.alloc<double>(std::size_t(3 * K * K) * most);
    m.keys = m.alloc<unsigned>(most);
    m.keys_sorted = m.alloc<unsigned>(most);
    m.order = m.alloc<unsigned>(most);
    m.order_sorted = m.alloc<unsigned>(most);
    m.cell_start = m.alloc<unsigned>(m.g.size());
    m.cell_end = m.alloc<unsigned>(m.g.size());
  }
}

PicGpu::~PicGpu() {
  if (!impl_) return;
  Impl& m = *impl_;
  for (double* p : m.f) cudaFree(p);
  for (double* p : m.psi)
    if (p) cudaFree(p);
  cudaFree(m.view_table);
  for (void* p : {static_cast<void*>(m.rho_table), static_cast<void*>(m.partials), static_cast<void*>(m.gauss_ref),
                  static_cast<void*>(m.track)})
    if (p) cudaFree(p);
  cudaFree(m.save_x);
  cudaFree(m.save_y);
  for (DevParticles& d : m.sp) {
    for (double* p : {d.x, d.y, d.ux, d.uy, d.uz, d.w}) cudaFree(p);
    cudaFree(d.alive);
    if (d.id) cudaFree(d.id);
  }
  for (void* p : {static_cast<void*>(m.cls), static_cast<void*>(m.cls_table), static_cast<void*>(m.stage),
                  static_cast<void*>(m.offs), static_cast<void*>(m.sel),
                  static_cast<void*>(m.id_sorted), static_cast<void*>(m.nsel), static_cast<void*>(m.starts),
                  static_cast<void*>(m.rows), static_cast<void*>(m.flux), static_cast<void*>(m.mig),
                  static_cast<void*>(m.lists), static_cast<void*>(m.list_counts)})
    if (p) cudaFree(p);
  for (double* p : m.mpi_buf)
    if (p) cudaFree(p);
  // (exported buffers are freed only after every neighbour unmapped them: close_peers on every
  // rank, then a barrier; otherwise, on an error's way out, they are left to the process's end)
  for (auto& set : m.peer_buf)
    for (double* p : set)
      if (p) cudaIpcCloseMemHandle(p);
  if (m.peers_closed || !m.exported)
    for (auto& set : m.out_buf)
      for (double* p : set)
        if (p) cudaFree(p);
  for (float* p : m.fj)
    if (p) cudaFree(p);
  for (auto* v : {&m.tile_start, &m.tile_end})
    for (unsigned* p : *v) cudaFree(p);
  if (m.scratch) cudaFree(m.scratch);
  for (void* p : {static_cast<void*>(m.eb), static_cast<void*>(m.moves), static_cast<void*>(m.active),
                  static_cast<void*>(m.copies), static_cast<void*>(m.pool), static_cast<void*>(m.dense_slot),
                  static_cast<void*>(m.dense_tiles), static_cast<void*>(m.tile_counts)})
    if (p) cudaFree(p);
  if (m.counters) cudaFree(m.counters);
  for (void* p : {static_cast<void*>(m.contrib), static_cast<void*>(m.keys), static_cast<void*>(m.keys_sorted),
                  static_cast<void*>(m.order), static_cast<void*>(m.order_sorted), static_cast<void*>(m.cell_start),
                  static_cast<void*>(m.cell_end), m.cub_temp})
    if (p) cudaFree(p);
  for (cudaEvent_t e : {m.ev0, m.ev1, m.ev_start, m.ev_end})
    if (e) cudaEventDestroy(e);
}

void PicGpu::step() {
  Impl& m = *impl_;
  if (m.slab) {
    m.slab_step();
    return;
  }
  if (m.timing) NBODY_CUDA_CHECK(cudaEventRecord(m.ev_start));
  for (int c = kJx; c <= kJz; ++c) NBODY_CUDA_CHECK(cudaMemset(m.f[c], 0, m.g.size() * sizeof(double)));
  const bool tiled = m.opt.deposit == DepositKernel::tiled && m.s.deposit;
  const bool warp = m.opt.deposit == DepositKernel::warp && m.s.deposit;
  if (tiled || warp) m.sort_if_due(warp);
  if (m.opt.deposit == DepositKernel::float32)
    for (float* p : m.fj) NBODY_CUDA_CHECK(cudaMemset(p, 0, m.g.size() * sizeof(float)));
  const bool redundant = m.opt.deposit == DepositKernel::redundant && m.s.deposit;
  if (redundant) {
    if (m.dense_step < 0 || m.step - m.dense_step >= kRedundancyRefresh) {
      m.choose_dense_tiles();
      m.dense_step = m.step;
    }
    NBODY_CUDA_CHECK(cudaMemset(m.copies, 0, std::size_t(m.ncopies) * 3 * m.g.size() * sizeof(double)));
    NBODY_CUDA_CHECK(cudaMemset(m.pool, 0, std::size_t(m.dense_count) * m.pool_slab() * sizeof(double)));
  }
  if (m.timing) NBODY_CUDA_CHECK(cudaEventRecord(m.ev0));
  for (std::size_t k = 0; k < m.sp.size(); ++k) {
    if (m.meta[k].immobile) continue;
    if (m.s.shape == ShapeOrder::tsc) m.push<ShapeTSC>(k);
    else m.push<ShapeCIC>(k);
  }
  if (redundant) {
    reduce_copies<<<blocks_for(m.g.size()), ElementwisePolicy::kBlock>>>(m.f[kJx], m.f[kJy], m.f[kJz], m.copies, m.ncopies,
                                                                          m.g.size());
    NBODY_CUDA_CHECK_LAUNCH();
    if (m.dense_count > 0) {
      reduce_pool<<<m.dense_count, ElementwisePolicy::kBlock>>>(m.f[kJx], m.f[kJy], m.f[kJz], m.pool, m.dense_tiles,
                                                                m.ncopies * kSubCopies, m.tg, m.g.stride(), m.g.rows());
      NBODY_CUDA_CHECK_LAUNCH();
    }
  }
  if (m.opt.deposit == DepositKernel::float32) {
    add_float_currents<<<blocks_for(m.g.size()), ElementwisePolicy::kBlock>>>(m.f[kJx], m.f[kJy], m.f[kJz], m.fj[0], m.fj[1],
                                                                              m.fj[2], m.g.size());
    NBODY_CUDA_CHECK_LAUNCH();
  }
  if (m.timing) {
    NBODY_CUDA_CHECK(cudaEventRecord(m.ev1));
    NBODY_CUDA_CHECK(cudaEventSynchronize(m.ev1));
    float ms = 0;
    NBODY_CUDA_CHECK(cudaEventElapsedTime(&ms, m.ev0, m.ev1));
    m.particle_seconds += 1e-3 * double(ms);
    m.last.particles = 1e-3 * double(ms);
  }
  if (m.s.solve_fields) {
    const double t = m.s.t0 + double(m.step) * m.s.dt;
    m.fold_currents();
    m.advance_b(0.5 * m.s.dt, false);
    m.advance_e(m.s.dt, t);
    m.advance_b(0.5 * m.s.dt, true);
  }
  if (m.tracking) {
    poynting_step<<<2, kReduceBlock>>>(m.view(kEy), m.view(kEz), m.view(kBy), m.view(kBz), m.i_left, m.i_right, m.g.ny,
                                       m.g.dy, m.s.dt, m.track);
    NBODY_CUDA_CHECK_LAUNCH();
  }
  if (m.timing) {
    NBODY_CUDA_CHECK(cudaEventRecord(m.ev_end));
    NBODY_CUDA_CHECK(cudaEventSynchronize(m.ev_end));
    float ms = 0;
    NBODY_CUDA_CHECK(cudaEventElapsedTime(&ms, m.ev_start, m.ev_end));
    m.last.step = 1e-3 * double(ms);
  }
  ++m.step;
}

PicGpu::StepTimes PicGpu::last_step_times() const { return impl_->last; }

void PicGpu::track_poynting(int i_left, int i_right, double energy_in, double energy_out) {
  Impl& m = *impl_;
  if (m.slab) throw_runtime_error("pic: a block run's Poynting fluxes come from flux_rows (DomainPicGpu)");
  const int hi = m.g.nx - 2;
  if (i_left < 0 || i_right < 0 || i_left > hi || i_right > hi)
    throw_input_error("pic: the Poynting planes must lie inside the grid");
  m.i_left = i_left, m.i_right = i_right;
  m.tracking = true;
  const double start[4] = {0, 0, energy_in, energy_out};
  NBODY_CUDA_CHECK(cudaMemcpy(m.track, start, 4 * sizeof(double), cudaMemcpyHostToDevice));
}

void PicGpu::set_gauss_reference(const std::vector<double>& residual) {
  Impl& m = *impl_;
  if (residual.size() != m.g.size()) throw_runtime_error("pic: the Gauss reference has the wrong size");
  if (!m.gauss_ref) m.gauss_ref = m.alloc<double>(m.g.size());
  NBODY_CUDA_CHECK(cudaMemcpy(m.gauss_ref, residual.data(), m.g.size() * sizeof(double), cudaMemcpyHostToDevice));
}

DeviceDiagnostics PicGpu::diagnostics() {
  using nbody::cuda::Max;
  using nbody::cuda::Sum;
  Impl& m = *impl_;
  if (m.slab) throw_runtime_error("pic: device diagnostics of one slab (gather the slabs and take the host's)");
  const GridGeometry& g = m.g;
  DeviceDiagnostics out;
  // Field energy over the host's node range.
  const int nxe = m.s.field_bc.x == FieldBoundary::periodic ? g.nx : g.nx + 1;
  const int nye = m.s.field_bc.y == FieldBoundary::periodic ? g.ny : g.ny + 1;
  const auto sq = m.reduce<2, Sum>(FieldSquares{m.view(kEx), m.view(kEy), m.view(kEz), m.view(kBx), m.view(kBy),
                                                m.view(kBz), nxe},
                                   std::size_t(nxe) * std::size_t(nye));
  out.energies.e_field = 0.5 * sq[0] * g.dx * g.dy;
  out.energies.b_field = 0.5 * sq[1] * g.dx * g.dy;
  out.energies.field = out.energies.e_field + out.energies.b_field;
  out.energies.total = out.energies.field;
  for (std::size_t k = 0; k < m.sp.size(); ++k) {
    const auto kc = m.reduce<2, Sum>(KineticSum{m.sp[k]}, m.sp[k].n);
    const double kinetic = kc[0] * m.meta[k].mass;
    out.energies.kinetic.push_back(kinetic);
    out.energies.total += kinetic;
    out.counts.push_back(std::size_t(kc[1]));
  }
  // Gauss's law over the host's checked nodes (gauss_residual_field).
  if (m.s.shape == ShapeOrder::tsc) m.deposit_rho_all<ShapeTSC>();
  else m.deposit_rho_all<ShapeCIC>();
  auto range = [](FieldBoundary b, int n, int& lo, int& hi) {
    lo = b == FieldBoundary::periodic ? 0 : 3;
    hi = b == FieldBoundary::periodic ? n - 1 : n - 3;
  };
  int ilo, ihi, jlo, jhi;
  range(m.s.field_bc.x, g.nx, ilo, ihi);
  range(m.s.field_bc.y, g.ny, jlo, jhi);
  if (ihi >= ilo && jhi >= jlo) {
    const int w = ihi - ilo + 1;
    out.gauss_change_max = m.reduce<1, Max>(GaussChange{m.view(kEx), m.view(kEy), m.view(kRho), m.gauss_ref, g.stride(),
                                                        ilo, jlo, w, g.dx, g.dy},
                                            std::size_t(w) * std::size_t(jhi - jlo + 1))[0];
  }
  const PoyntingTrack t = poynting();
  out.flux_left = t.flux_left, out.flux_right = t.flux_right;
  out.energy_in_left = t.energy_in_left, out.energy_out_right = t.energy_out_right;
  return out;
}

void PicGpu::close_peers() {
  Impl& m = *impl_;
  for (auto& set : m.peer_buf)
    for (double*& p : set) {
      if (p) NBODY_CUDA_CHECK(cudaIpcCloseMemHandle(p));
      p = nullptr;
    }
  m.direct_open[0] = m.direct_open[1] = false;
  m.peers_closed = true;
}

std::vector<double> PicGpu::flux_rows(int i) const {
  const Impl& m = *impl_;
  if (!m.slab) throw_runtime_error("pic: flux rows of a run without blocks (track_poynting)");
  if (i < 0 || i > m.g.nx - 1) throw_runtime_error("pic: a Poynting plane outside the block");
  std::vector<double> out(std::size_t(m.g.ny));
  poynting_rows<<<exact_blocks(std::size_t(m.g.ny)), ElementwisePolicy::kBlock>>>(m.view(kEy), m.view(kEz), m.view(kBy),
                                                                                  m.view(kBz), i, m.g.ny, m.g.dy, m.flux);
  NBODY_CUDA_CHECK_LAUNCH();
  NBODY_CUDA_CHECK(cudaMemcpy(out.data(), m.flux, out.size() * sizeof(double), cudaMemcpyDeviceToHost));
  return out;
}

std::vector<std::uint64_t> PicGpu::column_counts() const {
  const Impl& m = *impl_;
  if (!m.slab) throw_runtime_error("pic: column counts of a run without slabs");
  const int ncols = m.g.nx;
  unsigned long long* counts = device_alloc<unsigned long long>(std::size_t(ncols));
  std::vector<std::uint64_t> out(std::size_t(ncols), 0);
  try {
    NBODY_CUDA_CHECK(cudaMemset(counts, 0, std::size_t(ncols) * sizeof(unsigned long long)));
    // Shared-memory counters where the columns fit the default 48 KiB; four blocks a
    // multiprocessor, each going over the slots with a grid stride (a block's nonzero counts
    // added once: a few hundred thousand additions, not one a warp).
    const std::size_t shared_bytes = std::size_t(ncols) * sizeof(unsigned);
    const bool shared = shared_bytes <= 48u * 1024u;
    int sms = 0;
    NBODY_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, m.opt.device));
    for (std::size_t k = 0; k < m.sp.size(); ++k) {
      const DevParticles& d = m.sp[k];
      if (m.meta[k].immobile || d.n == 0) continue;
      const std::size_t most = (d.n + ElementwisePolicy::kBlock - 1) / ElementwisePolicy::kBlock;
      const int blocks = int(std::min<std::size_t>(most, std::size_t(4 * std::max(sms, 1))));
      count_columns<<<blocks, ElementwisePolicy::kBlock, shared ? shared_bytes : 0>>>(d, m.owner(), m.so.i_offset, ncols,
                                                                                     counts, shared);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t));
    NBODY_CUDA_CHECK(cudaMemcpy(out.data(), counts, std::size_t(ncols) * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  } catch (...) {
    cudaFree(counts);
    throw;
  }
  NBODY_CUDA_CHECK(cudaFree(counts));
  return out;
}

PoyntingTrack PicGpu::poynting() const {
  const Impl& m = *impl_;
  PoyntingTrack out;
  if (!m.tracking) return out;
  double t[4];
  NBODY_CUDA_CHECK(cudaMemcpy(t, m.track, sizeof t, cudaMemcpyDeviceToHost));
  out.flux_left = t[0], out.flux_right = t[1], out.energy_in_left = t[2], out.energy_out_right = t[3];
  return out;
}

std::int64_t PicGpu::step_count() const { return impl_->step; }

void PicGpu::enable_timing(bool on) {
  Impl& m = *impl_;
  if (on && !m.ev0) {
    for (cudaEvent_t* e : {&m.ev0, &m.ev1, &m.ev_start, &m.ev_end}) NBODY_CUDA_CHECK(cudaEventCreate(e));
  }
  m.timing = on;
}

double PicGpu::particle_kernel_seconds() const { return impl_->particle_seconds; }
std::int64_t PicGpu::sorts() const { return impl_->sort_count; }
PicGpu::StepTimes PicGpu::total_times() const { return impl_->total; }

std::vector<std::size_t> PicGpu::slot_counts() const {
  std::vector<std::size_t> n;
  for (const DevParticles& d : impl_->sp) n.push_back(d.n);
  return n;
}

std::vector<std::vector<std::uint64_t>> PicGpu::ids() const {
  const Impl& m = *impl_;
  std::vector<std::vector<std::uint64_t>> out(m.sp.size());
  if (!m.slab) return out;
  NBODY_CUDA_CHECK(cudaDeviceSynchronize());
  for (std::size_t k = 0; k < m.sp.size(); ++k) {
    const DevParticles& d = m.sp[k];
    std::vector<std::uint64_t> id(d.n);
    std::vector<unsigned char> alive(d.n);
    if (d.n > 0) {
      NBODY_CUDA_CHECK(cudaMemcpy(id.data(), d.id, d.n * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
      NBODY_CUDA_CHECK(cudaMemcpy(alive.data(), d.alive, d.n, cudaMemcpyDeviceToHost));
    }
    // (every slot live, as a block among several keeps them after its migration: the copy itself)
    if (std::find(alive.begin(), alive.end(), 0) == alive.end()) {
      out[k] = std::move(id);
      continue;
    }
    out[k].reserve(d.n);
    for (std::size_t p = 0; p < d.n; ++p)
      if (alive[p]) out[k].push_back(id[p]);
  }
  return out;
}
std::size_t PicGpu::device_bytes() const { return impl_->bytes; }

void PicGpu::copy_to(PicSimulation& to) const {
  const Impl& m = *impl_;
  NBODY_CUDA_CHECK(cudaDeviceSynchronize());
  for (int c = 0; c < kComponents; ++c)
    NBODY_CUDA_CHECK(cudaMemcpy(to.fields().data[c].data(), m.f[c], m.g.size() * sizeof(double), cudaMemcpyDeviceToHost));
  for (int c = 0; c < kPsiCount; ++c) {
    if (!m.psi[c]) continue;
    to.fields().psi[c].resize(m.g.size());
    NBODY_CUDA_CHECK(cudaMemcpy(to.fields().psi[c].data(), m.psi[c], m.g.size() * sizeof(double), cudaMemcpyDeviceToHost));
  }
  if (to.species().size() != m.sp.size()) throw_runtime_error("pic: copy_to a simulation with other species");
  for (std::size_t k = 0; k < m.sp.size(); ++k) {
    const DevParticles& d = m.sp[k];
    const double* src[6] = {d.x, d.y, d.ux, d.uy, d.uz, d.w};
    std::vector<unsigned char> alive(d.n);
    NBODY_CUDA_CHECK(cudaMemcpy(alive.data(), d.alive, d.n, cudaMemcpyDeviceToHost));
    Species& s = to.species()[k];
    // (every slot live, as a block among several keeps them after its migration: straight into
    // the species' arrays)
    if (std::find(alive.begin(), alive.end(), 0) == alive.end()) {
      std::vector<double>* dst[6] = {&s.x, &s.y, &s.ux, &s.uy, &s.uz, &s.w};
      for (int q = 0; q < 6; ++q) {
        dst[q]->resize(d.n);
        NBODY_CUDA_CHECK(cudaMemcpy(dst[q]->data(), src[q], d.n * sizeof(double), cudaMemcpyDeviceToHost));
      }
      continue;
    }
    std::vector<double> a[6];
    for (int q = 0; q < 6; ++q) {
      a[q].resize(d.n);
      NBODY_CUDA_CHECK(cudaMemcpy(a[q].data(), src[q], d.n * sizeof(double), cudaMemcpyDeviceToHost));
    }
    s.resize(0);
    for (std::size_t p = 0; p < d.n; ++p)
      if (alive[p]) s.push_back(a[0][p], a[1][p], a[2][p], a[3][p], a[4][p], a[5][p]);
  }
  to.set_time(m.s.t0 + double(m.step) * m.s.dt, m.step);
}

TransferRoundTrips pic_transfer_round_trips(comm::Communicator& comm, std::size_t bytes, int repeats) {
  TransferRoundTrips out;
  const int me = comm.rank();
  if (comm.size() < 2) throw_runtime_error("pic: a transfer needs two ranks");
  if (me > 1) return out;
  const int other = 1 - me;
  const int devices = pic_gpu_device_count();
  if (devices < 1) throw_input_error("pic: no usable CUDA device for the transfers");
  NBODY_CUDA_CHECK(cudaSetDevice(me % devices));
  constexpr int kTag = 7900;
  // Each rank's message (a byte pattern of its own), and where the other's arrives.
  std::vector<unsigned char> mine(bytes), theirs(bytes);
  for (std::size_t k = 0; k < bytes; ++k) {
    mine[k] = static_cast<unsigned char>((k * 7 + 13 * std::size_t(me) + 1) & 0xff);
    theirs[k] = static_cast<unsigned char>((k * 7 + 13 * std::size_t(other) + 1) & 0xff);
  }
  unsigned char* send = device_alloc<unsigned char>(bytes);
  unsigned char* recv = device_alloc<unsigned char>(bytes);
  void* peer = nullptr;
  auto cleanup = [&] {
    if (peer) cudaIpcCloseMemHandle(peer);
    peer = nullptr;
  };
  try {
    NBODY_CUDA_CHECK(cudaMemcpy(send, mine.data(), bytes, cudaMemcpyHostToDevice));
    auto check = [&](const char* how) {
      std::vector<unsigned char> got(bytes);
      NBODY_CUDA_CHECK(cudaMemcpy(got.data(), recv, bytes, cudaMemcpyDeviceToHost));
      if (got != theirs)
        throw_runtime_error(std::string("pic: a ") + how + " transfer of " + std::to_string(bytes) + " bytes arrived wrong");
      NBODY_CUDA_CHECK(cudaMemset(recv, 0, bytes));
    };
    NBODY_CUDA_CHECK(cudaMemset(recv, 0, bytes));
    // One warm-up and `repeats` timed round trips of one way of moving (`leg(true)` sends, `leg(false)`
    // receives): rank 0's seconds of each into `into`.
    auto round_trips = [&](const auto& leg, std::vector<double>& into) {
      for (int r = -1; r < repeats; ++r) {
        comm.barrier();
        const auto t0 = std::chrono::steady_clock::now();
        leg(me == 0);
        leg(me == 1);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (r >= 0 && me == 0) into.push_back(s);
      }
    };
    std::vector<unsigned char> stage(bytes);
    // Host-staged: rank 0 sends first, rank 1 answers.
    auto host_leg = [&](bool sending) {
      if (sending) {
        NBODY_CUDA_CHECK(cudaMemcpy(stage.data(), send, bytes, cudaMemcpyDeviceToHost));
        comm.send(stage.data(), std::int64_t(bytes), comm::DataType::byte, other, kTag);
      } else {
        comm.recv(stage.data(), std::int64_t(bytes), comm::DataType::byte, other, kTag);
        NBODY_CUDA_CHECK(cudaMemcpy(recv, stage.data(), bytes, cudaMemcpyHostToDevice));
      }
    };
    round_trips(host_leg, out.host_s);
    check("host-staged");
    // GPU to GPU: the send buffers exported and mapped by the other rank.
    const cudaIpcMemHandle_t h = ipc_handle(send);
    cudaIpcMemHandle_t theirs_h;
    if (me == 0) {
      comm.send(&h, std::int64_t(sizeof h), comm::DataType::byte, other, kTag + 1);
      comm.recv(&theirs_h, std::int64_t(sizeof h), comm::DataType::byte, other, kTag + 1);
    } else {
      comm.recv(&theirs_h, std::int64_t(sizeof h), comm::DataType::byte, other, kTag + 1);
      comm.send(&h, std::int64_t(sizeof h), comm::DataType::byte, other, kTag + 1);
    }
    peer = ipc_map(theirs_h, "the GPU-to-GPU transfers");
    std::int64_t token = 1;
    auto direct_leg = [&](bool sending) {
      if (sending) {
        comm.send(&token, 1, comm::DataType::i64, other, kTag + 2);  // (its buffer holds the message)
      } else {
        comm.recv(&token, 1, comm::DataType::i64, other, kTag + 2);
        NBODY_CUDA_CHECK(cudaMemcpy(recv, peer, bytes, cudaMemcpyDeviceToDevice));
        NBODY_CUDA_CHECK(cudaDeviceSynchronize());  // (a device-to-device copy returns before it ends)
      }
    };
    round_trips(direct_leg, out.direct_s);
    // (the last copy done on both sides before either unmaps or frees)
    comm.barrier();
    check("GPU-to-GPU");
    cleanup();
    comm.barrier();
    // CUDA-aware MPI: the device buffers to send / recv as they are. Only where both ranks'
    // library reports it (asked together, so that neither waits for a message the other never
    // sends); a library that does not take device pointers would fail or crash inside MPI.
    const comm::DeviceBufferSupport support = comm::device_buffer_support_everywhere(comm);
    if (support.supported) {
      NBODY_CUDA_CHECK(cudaDeviceSynchronize());  // (check's memset done before MPI writes into recv)
      auto mpi_leg = [&](bool sending) {
        if (sending) comm.send(send, std::int64_t(bytes), comm::DataType::byte, other, kTag + 3);
        else comm.recv(recv, std::int64_t(bytes), comm::DataType::byte, other, kTag + 3);
      };
      round_trips(mpi_leg, out.mpi_s);
      check("CUDA-aware MPI");
    } else {
      out.mpi_unavailable = support.how;
    }
  } catch (...) {
    cleanup();
    cudaFree(send);
    cudaFree(recv);
    throw;
  }
  NBODY_CUDA_CHECK(cudaFree(send));
  NBODY_CUDA_CHECK(cudaFree(recv));
  return out;
}

}  // namespace nbody::pic
