// The Barnes-Hut tree on a CUDA device (cuda_tree.hpp): keys, CUB sort, a breadth-first build
// level by level, float64 multipoles bottom-up, groups, and a warp-per-group walk.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "gravity/pair_law.hpp"
#include "gravity/tree/cuda_tree.hpp"
#include "gravity/tree/keys.hpp"
#include "gravity/tree/multipole.hpp"
#include "gravity/tree/opening.hpp"
#include "nbody/error.hpp"

namespace nbody::gravity::tree {

bool cuda_tree_available(std::string* why) { return nbody::cuda::query_device(0, nullptr, why); }

namespace {

constexpr int kBlock = 256;
constexpr int kWalkWarps = 4;  // warps a block of the walk
constexpr int kMaxGroupTargets = 64;
constexpr int kListCapacity = 8192;  // entries of each of a warp's lists and queues

int blocks_for(std::size_t n) { return int(std::min<std::size_t>((n + kBlock - 1) / kBlock, 65535)); }

// A device array that grows (keeping its contents when asked).
template <class T>
struct DeviceArray {
  T* p = nullptr;
  std::size_t n = 0;
  DeviceArray() = default;
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() {
    if (p) cudaFree(p);
  }
  void reserve(std::size_t k, bool keep = false) {
    if (k <= n) return;
    const std::size_t cap = std::max<std::size_t>(k, n + n / 2);
    T* q = nullptr;
    NBODY_CUDA_CHECK(cudaMalloc(&q, cap * sizeof(T)));
    if (keep && n > 0) NBODY_CUDA_CHECK(cudaMemcpy(q, p, n * sizeof(T), cudaMemcpyDeviceToDevice));
    if (p) NBODY_CUDA_CHECK(cudaFree(p));
    p = q;
    n = cap;
  }
  void swap(DeviceArray& o) noexcept {
    std::swap(p, o.p);
    std::swap(n, o.n);
  }
  [[nodiscard]] std::vector<T> to_host(std::size_t count) const {
    std::vector<T> h(count);
    if (count > 0) NBODY_CUDA_CHECK(cudaMemcpy(h.data(), p, count * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
};

// The cells as device pointers (kernel arguments).
struct Cells {
  std::int32_t *body_begin, *body_count, *child_begin, *child_count, *level;
  double *cx, *cy, *cz, *half;
  double *m, *mx, *my, *mz, *qxx, *qxy, *qxz, *qyy, *qyz, *qzz, *tr, *rcrit2;
};

struct CellArrays {
  DeviceArray<std::int32_t> body_begin, body_count, child_begin, child_count, level;
  DeviceArray<double> cx, cy, cz, half, m, mx, my, mz, qxx, qxy, qxz, qyy, qyz, qzz, tr, rcrit2;
  int size = 0;
  std::vector<int> level_start;  // host: the first cell of each level, and the end

  void reserve(std::size_t k) {
    for (auto* a : {&body_begin, &body_count, &child_begin, &child_count, &level}) a->reserve(k, true);
    for (auto* a : {&cx, &cy, &cz, &half, &m, &mx, &my, &mz, &qxx, &qxy, &qxz, &qyy, &qyz, &qzz, &tr, &rcrit2})
      a->reserve(k, true);
  }
  [[nodiscard]] Cells view() {
    return {body_begin.p, body_count.p, child_begin.p, child_count.p, level.p, cx.p, cy.p, cz.p, half.p, m.p,
            mx.p,         my.p,         mz.p,          qxx.p,         qxy.p,   qxz.p, qyy.p, qyz.p, qzz.p, tr.p, rcrit2.p};
  }
};

// ---- keys -------------------------------------------------------------------------------------

// Per block: min and max of each coordinate, and whether a coordinate is not finite.
template <class T>
__global__ void bounds_partials(const T* x, const T* y, const T* z, int n, double* out, int* bad) {
  __shared__ double s[6][kBlock];
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const double p[3] = {double(x[i]), double(y[i]), double(z[i])};
    for (int d = 0; d < 3; ++d) {
      if (!isfinite(p[d])) atomicMin(bad, i);
      lo[d] = fmin(lo[d], p[d]);
      hi[d] = fmax(hi[d], p[d]);
    }
  }
  for (int d = 0; d < 3; ++d) s[d][threadIdx.x] = lo[d], s[3 + d][threadIdx.x] = hi[d];
  __syncthreads();
  for (int w = kBlock / 2; w > 0; w >>= 1) {
    if (int(threadIdx.x) < w)
      for (int d = 0; d < 3; ++d) {
        s[d][threadIdx.x] = fmin(s[d][threadIdx.x], s[d][threadIdx.x + w]);
        s[3 + d][threadIdx.x] = fmax(s[3 + d][threadIdx.x], s[3 + d][threadIdx.x + w]);
      }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    for (int d = 0; d < 6; ++d) out[blockIdx.x * 6 + d] = s[d][0];
}

template <class T>
__global__ void make_keys(const T* x, const T* y, const T* z, int n, KeyBox<double> box, std::uint64_t* keys,
                          std::int32_t* index) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    keys[i] = box.key(double(x[i]), double(y[i]), double(z[i]));
    index[i] = i;
  }
}

template <class T>
__global__ void permute_sources(const T* x, const T* y, const T* z, const T* m, const std::int32_t* index, int n,
                                double* sx, double* sy, double* sz, double* sm) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
    const int i = index[k];
    sx[k] = double(x[i]), sy[k] = double(y[i]), sz[k] = double(z[i]), sm[k] = double(m[i]);
  }
}

// ---- build ------------------------------------------------------------------------------------

// The first position in [b, e) whose key's octant at `lvl` exceeds o (keys sorted).
__device__ int octant_end(const std::uint64_t* keys, int b, int e, int lvl, unsigned o) {
  while (b < e) {
    const int mid = b + (e - b) / 2;
    if (octant(keys[mid], lvl) <= o) {
      b = mid + 1;
    } else {
      e = mid;
    }
  }
  return b;
}

// A cell is split when it holds more than `leaf` bodies above the deepest level.
__device__ bool splits(int count, int lvl, int leaf) { return count > leaf && lvl < kKeyBits; }

__global__ void count_children(Cells c, const std::uint64_t* keys, int lb, int le, int leaf, int* nchild) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < le - lb; t += gridDim.x * blockDim.x) {
    const int cell = lb + t;
    const int count = c.body_count[cell], lvl = c.level[cell];
    int k = 0;
    if (splits(count, lvl, leaf)) {
      int b = c.body_begin[cell];
      const int e = b + count;
      for (unsigned o = 0; o < 8 && b < e; ++o) {
        const int end = octant_end(keys, b, e, lvl, o);
        k += end > b;
        b = end;
      }
    }
    nchild[t] = k;
  }
}

// `end` is the inclusive scan of nchild: a cell's children start at le + end[t] - nchild[t].
__global__ void write_children(Cells c, const std::uint64_t* keys, int lb, int le, int leaf, const int* nchild,
                               const int* end) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < le - lb; t += gridDim.x * blockDim.x) {
    const int cell = lb + t;
    c.child_begin[cell] = 0;
    c.child_count[cell] = 0;
    if (nchild[t] == 0) continue;
    const int lvl = c.level[cell];
    const int first = le + end[t] - nchild[t];
    c.child_begin[cell] = first;
    c.child_count[cell] = nchild[t];
    const double h = 0.5 * c.half[cell];
    int b = c.body_begin[cell];
    const int e = b + c.body_count[cell];
    int k = first;
    for (unsigned o = 0; o < 8 && b < e; ++o) {
      const int end = octant_end(keys, b, e, lvl, o);
      if (end > b) {
        c.body_begin[k] = b;
        c.body_count[k] = end - b;
        c.level[k] = lvl + 1;
        c.child_begin[k] = 0;
        c.child_count[k] = 0;
        c.cx[k] = c.cx[cell] + ((o & 4u) ? h : -h);
        c.cy[k] = c.cy[cell] + ((o & 2u) ? h : -h);
        c.cz[k] = c.cz[cell] + ((o & 1u) ? h : -h);
        c.half[k] = h;
        ++k;
      }
      b = end;
    }
  }
}

// ---- multipoles -------------------------------------------------------------------------------

__global__ void multipoles_level(Cells c, int lb, int le, const double* x, const double* y, const double* z,
                                 const double* m, double theta) {
  for (int cell = lb + blockIdx.x * blockDim.x + threadIdx.x; cell < le; cell += gridDim.x * blockDim.x) {
    const MultipoleArrays<double> arrays{c.m, c.mx, c.my, c.mz, c.qxx, c.qxy, c.qxz, c.qyy, c.qyz, c.qzz, c.tr};
    const Multipole<double> q =
        c.child_count[cell] == 0
            ? bodies_multipole(x, y, z, m, c.body_begin[cell], c.body_begin[cell] + c.body_count[cell], c.cx[cell],
                               c.cy[cell], c.cz[cell])
            : children_multipole(arrays, c.child_begin[cell], c.child_begin[cell] + c.child_count[cell], c.cx[cell],
                                 c.cy[cell], c.cz[cell]);
    c.m[cell] = q.m, c.mx[cell] = q.x, c.my[cell] = q.y, c.mz[cell] = q.z;
    c.qxx[cell] = q.qxx, c.qxy[cell] = q.qxy, c.qxz[cell] = q.qxz;
    c.qyy[cell] = q.qyy, c.qyz[cell] = q.qyz, c.qzz[cell] = q.qzz;
    c.tr[cell] = q.tr;
    const double dx = q.x - c.cx[cell], dy = q.y - c.cy[cell], dz = q.z - c.cz[cell];
    c.rcrit2[cell] = barnes_hut_radius2(c.half[cell], sqrt(dx * dx + dy * dy + dz * dz), theta, HUGE_VAL);
  }
}

// ---- groups -----------------------------------------------------------------------------------

// Marks the first body of every group (split_groups): the leaves of a tree built with leaf =
// kGroupCellFactor x group size, each cut into the fewest pieces of at most the group size.
__device__ void mark_pieces(const Cells& c, int cell, int capacity, unsigned char* start) {
  const int b = c.body_begin[cell], count = c.body_count[cell];
  const int pieces = group_pieces(count, capacity);
  for (int j = 0; j < pieces; ++j) start[b + piece_start(count, pieces, j)] = 1;
}

__global__ void mark_groups(Cells c, int cells, int capacity, unsigned char* start) {
  for (int cell = blockIdx.x * blockDim.x + threadIdx.x; cell < cells; cell += gridDim.x * blockDim.x)
    if (c.child_count[cell] == 0) mark_pieces(c, cell, capacity, start);
}

// The same marks from the tree itself when its leaf size is at most the groups' cell size G =
// kGroupCellFactor x group size: the split rule is the same (more bodies than the leaf size, above
// the deepest level), so the groups' tree is the top of this one, and its leaves are the root when
// it holds at most G bodies or is a leaf, and otherwise the children holding at most G bodies (or
// being leaves) of the cells holding more than G.
__global__ void mark_groups_in_tree(Cells c, int cells, int cell_bodies, int capacity, unsigned char* start) {
  for (int cell = blockIdx.x * blockDim.x + threadIdx.x; cell < cells; cell += gridDim.x * blockDim.x) {
    const int count = c.body_count[cell], nchild = c.child_count[cell];
    if (count <= cell_bodies || nchild == 0) {
      if (cell == 0) mark_pieces(c, 0, capacity, start);
      continue;
    }
    for (int k = c.child_begin[cell], ke = k + nchild; k < ke; ++k)
      if (c.body_count[k] <= cell_bodies || c.child_count[k] == 0) mark_pieces(c, k, capacity, start);
  }
}

__global__ void group_ranges(const int* starts, int ngroups, int n, int2* groups) {
  for (int g = blockIdx.x * blockDim.x + threadIdx.x; g < ngroups; g += gridDim.x * blockDim.x)
    groups[g] = make_int2(starts[g], g + 1 < ngroups ? starts[g + 1] : n);
}

// ---- walk -------------------------------------------------------------------------------------
//
// One warp a group of at most 64 targets (two a lane), the tree breadth first from the root: each
// lane tests one cell of the frontier (in float64, so that the lists are the oracle's), accepted
// cells and the bodies of opened leaves are appended to the warp's short lists in shared memory,
// and whenever 32 of either are pending they are evaluated: each lane loads one entry into shared
// memory (packed in the arithmetic T) and every lane then reads all 32 entries by broadcast for
// its targets. The frontier lives in global memory (per warp), the lists never leave the SM.
// A target's terms come in the order of the walk, the same on every run.

// Four values of T as one aligned load.
template <class T>
struct alignas(4 * sizeof(T)) Vec4 {
  T v[4];
};

// What the Barnes-Hut test reads of a cell, in one place (three 16-byte loads): its centre of
// mass, the squared Barnes-Hut radius, children and bodies. The cube (geometric centre, half
// side) and the mass are read apart, only by the spline law's near test and the relative
// criterion.
struct alignas(16) CellOpen {
  double mx, my, mz, rcrit2;
  int child_begin, child_count, body_begin, body_count;
};

// A cell's multipole in T: (m, x, y, z), (qxx, qxy, qxz, qyy), (qyz, qzz, tr, 0).
template <class T>
struct CellMultipole {
  Vec4<T> a, b, c;
};

template <class T>
__global__ void pack_cells(Cells c, int cells, CellOpen* open, CellMultipole<T>* mp) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < cells; k += gridDim.x * blockDim.x) {
    open[k] = CellOpen{c.mx[k],          c.my[k],          c.mz[k],         c.rcrit2[k],
                       c.child_begin[k], c.child_count[k], c.body_begin[k], c.body_count[k]};
    mp[k] = CellMultipole<T>{{{T(c.m[k]), T(c.mx[k]), T(c.my[k]), T(c.mz[k])}},
                             {{T(c.qxx[k]), T(c.qxy[k]), T(c.qxz[k]), T(c.qyy[k])}},
                             {{T(c.qyz[k]), T(c.qzz[k]), T(c.tr[k]), T(0)}}};
  }
}

template <class T>
__global__ void pack_sources(const double* x, const double* y, const double* z, const double* m, int n, Vec4<T>* src) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x)
    src[k] = Vec4<T>{{T(x[k]), T(y[k]), T(z[k]), T(m[k])}};
}

template <class T>
struct WalkArgs {
  const CellOpen* open;
  const CellMultipole<T>* mp;
  const double *cell_cx, *cell_cy, *cell_cz, *cell_half, *cell_m;  // the near test, the relative criterion
  bool cube;  // whether the test reads the cells' cubes and masses
  const double *x, *y, *z;      // sorted sources (the group boxes)
  const Vec4<T>* src;           // sorted sources (x, y, z, m) in T
  const int2* groups;
  int ngroups;
  const std::int32_t* index;  // sorted position -> body
  const double* last_acc;     // |a| of the previous pass by body, or null
  OpeningTest<double> test;
  MultipoleEval<T> eval;
  double G;
  int* scratch;  // per warp: the two frontier queues, kListCapacity ints each
  int* next_group;  // the first group no warp has taken yet
  int* overflow;
  unsigned long long* counts;  // m2p, p2p
  T *ax, *ay, *az;             // by body
  double* phi;                 // by body (potential mode)
};

__device__ __forceinline__ unsigned lanes_below() {
  unsigned m;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}

__device__ __forceinline__ int warp_inclusive_sum(int v, int lane) {
  for (int d = 1; d < 32; d <<= 1) {
    const int o = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += o;
  }
  return v;
}

__device__ __forceinline__ double warp_min(double v) {
  for (int d = 16; d > 0; d >>= 1) v = fmin(v, __shfl_xor_sync(0xffffffffu, v, d));
  return v;
}
__device__ __forceinline__ double warp_max(double v) {
  for (int d = 16; d > 0; d >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, d));
  return v;
}

// A warp's lists and the entries being evaluated, in shared memory. At most 31 cells and 31
// leaf ranges wait between evaluations, and at most 32 arrive in one step of the walk.
template <class T>
struct WarpLists {
  Box<double> box;       // the group's bounding box
  double a_min;          // the smallest previous |a| of the group's targets (0: none)
  Vec4<T> data[3 * 32];  // 32 cells' multipoles or 32 bodies
  int body[32];          // the sorted positions of the bodies in data
  int cell[64];          // accepted cells waiting
  int rb[64], re[64];    // opened leaves' body ranges waiting
};

// The targets of a lane: sorted positions b + lane and b + 32 + lane (when inside the group).
template <class T>
struct LaneTargets {
  int k[2];
  bool on[2];
  T x[2], y[2], z[2];
  T ax[2] = {T(0), T(0)}, ay[2] = {T(0), T(0)}, az[2] = {T(0), T(0)};
  double phi[2] = {0, 0};
};

// Evaluates the first `count` (<= 32) waiting cells for the lane's targets.
template <class T, bool kPotential>
__device__ void eval_cells(const WalkArgs<T>& a, WarpLists<T>& w, int count, LaneTargets<T>& t, int lane) {
  if (lane < count) {
    const CellMultipole<T> q = a.mp[w.cell[lane]];
    w.data[3 * lane] = q.a, w.data[3 * lane + 1] = q.b, w.data[3 * lane + 2] = q.c;
  }
  __syncwarp();
#pragma unroll 1
  for (int j = 0; j < count; ++j) {
    const Vec4<T> p = w.data[3 * j], q = w.data[3 * j + 1], r = w.data[3 * j + 2];
    const Multipole<T> mp{p.v[0], p.v[1], p.v[2], p.v[3], q.v[0], q.v[1], q.v[2], q.v[3], r.v[0], r.v[1], r.v[2]};
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      if (!t.on[s]) continue;
      const T dx = p.v[1] - t.x[s], dy = p.v[2] - t.y[s], dz = p.v[3] - t.z[s];
      if constexpr (kPotential) {
        t.phi[s] += double(a.eval.potential(dx, dy, dz, mp));
      } else {
        a.eval.accumulate(dx, dy, dz, mp, t.ax[s], t.ay[s], t.az[s]);
      }
    }
  }
  __syncwarp();
}

// Evaluates the first `take` (<= 32) bodies of the waiting ranges [0, nr) and drops them from
// the ranges (a range partly taken keeps its rest).
template <class T, bool kPotential, class Law>
__device__ void eval_bodies(const WalkArgs<T>& a, const Law& law, WarpLists<T>& w, int take, int& nr,
                            LaneTargets<T>& t, int lane) {
  // Ranges 0..31 hold at least 32 bodies when 32 or more ranges wait (no range is empty).
  const int rb = lane < nr ? w.rb[lane] : 0;
  const int cnt = lane < nr ? w.re[lane] - rb : 0;
  const int incl = warp_inclusive_sum(cnt, lane);
  const int excl = incl - cnt;
  // Body slot `lane` belongs to the last range that starts at or before it.
  const unsigned starts = __reduce_or_sync(0xffffffffu, (cnt > 0 && excl < 32) ? (1u << excl) : 0u);
  const int r = __popc(starts & (lane == 31 ? 0xffffffffu : ((2u << lane) - 1u))) - 1;
  const int from = __shfl_sync(0xffffffffu, rb - excl, r < 0 ? 0 : r);
  if (lane < take) {
    const int k = from + lane;
    w.data[lane] = a.src[k];
    w.body[lane] = k;
  }
  __syncwarp();
#pragma unroll 2
  for (int j = 0; j < take; ++j) {
    const Vec4<T> p = w.data[j];
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      if (!t.on[s]) continue;
      const T dx = p.v[0] - t.x[s], dy = p.v[1] - t.y[s], dz = p.v[2] - t.z[s];
      if constexpr (kPotential) {
        if (w.body[j] != t.k[s]) t.phi[s] += double(law.potential(dx, dy, dz, p.v[3]));
      } else {
        law.accumulate(dx, dy, dz, p.v[3], t.ax[s], t.ay[s], t.az[s]);
      }
    }
  }
  // The ranges used up leave; the one cut keeps its rest.
  const int done = __popc(__ballot_sync(0xffffffffu, lane < nr && incl <= take));
  if (lane < nr && excl < take && take < incl) w.rb[lane] = rb + (take - excl);
  __syncwarp();
  int keep_b[2], keep_e[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int from_at = lane + 32 * h + done;
    keep_b[h] = from_at < nr ? w.rb[from_at] : 0;
    keep_e[h] = from_at < nr ? w.re[from_at] : 0;
  }
  __syncwarp();
#pragma unroll
  for (int h = 0; h < 2; ++h)
    if (lane + 32 * h < nr - done) w.rb[lane + 32 * h] = keep_b[h], w.re[lane + 32 * h] = keep_e[h];
  nr -= done;
  __syncwarp();
}

// Blocks an SM should hold (registers a thread: 65536 / (128 blocks)): 8 in float32 (64 registers,
// a few spilled, 13 % faster than 6 blocks without spills on an H100), 5 in float64.
template <class T>
constexpr int kWalkBlocksPerSm = sizeof(T) == 4 ? 8 : 5;

template <class T, bool kPotential, class Law>
__global__ void __launch_bounds__(32 * kWalkWarps, kWalkBlocksPerSm<T>) walk_groups(WalkArgs<T> a, Law law) {
  __shared__ WarpLists<T> lists[kWalkWarps];
  const int lane = threadIdx.x & 31;
  WarpLists<T>& w = lists[threadIdx.x >> 5];
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int* const queue0 = a.scratch + std::size_t(warp) * 2 * kListCapacity;
  int* const queue1 = queue0 + kListCapacity;
  unsigned long long m2p = 0, p2p = 0;
  // Each warp takes the next group when it is done with one (the groups' costs differ widely);
  // what a group computes does not depend on the warp that takes it.
  while (true) {
    int g = 0;
    if (lane == 0) g = atomicAdd(a.next_group, 1);
    g = __shfl_sync(0xffffffffu, g, 0);
    if (g >= a.ngroups) break;
    const int2 gr = a.groups[g];
    const int b = gr.x, e = gr.y;
    LaneTargets<T> t;
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    double a_min = a.last_acc ? HUGE_VAL : 0.0;
    for (int s = 0; s < 2; ++s) {
      t.k[s] = b + lane + 32 * s;
      t.on[s] = t.k[s] < e;
      const Vec4<T> p = t.on[s] ? a.src[t.k[s]] : Vec4<T>{{T(0), T(0), T(0), T(0)}};
      t.x[s] = p.v[0], t.y[s] = p.v[1], t.z[s] = p.v[2];
      if (t.on[s]) {
        const double px = a.x[t.k[s]], py = a.y[t.k[s]], pz = a.z[t.k[s]];
        lo[0] = fmin(lo[0], px), hi[0] = fmax(hi[0], px);
        lo[1] = fmin(lo[1], py), hi[1] = fmax(hi[1], py);
        lo[2] = fmin(lo[2], pz), hi[2] = fmax(hi[2], pz);
        if (a.last_acc) a_min = fmin(a_min, a.last_acc[a.index[t.k[s]]]);
      }
    }
    for (int d = 0; d < 3; ++d) lo[d] = warp_min(lo[d]), hi[d] = warp_max(hi[d]);
    if (a.last_acc) a_min = warp_min(a_min);
    // The box and a_min wait in shared memory (read by every test; registers stay free).
    if (lane == 0) {
      w.box = Box<double>{0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2]),
                          0.5 * (hi[0] - lo[0]), 0.5 * (hi[1] - lo[1]), 0.5 * (hi[2] - lo[2])};
      w.a_min = a_min;
    }
    // Breadth first from the root; nc cells and nr ranges (nb bodies) waiting.
    int* cur = queue0;
    int* next = queue1;
    int ncur = 1, nc = 0, nr = 0, nb = 0;
    if (lane == 0) cur[0] = 0;
    __syncwarp();
    bool failed = false;
    while (ncur > 0 && !failed) {
      int nnext = 0;
      for (int base = 0; base < ncur; base += 32) {
        const int idx = base + lane;
        const bool valid = idx < ncur;
        const int c = valid ? cur[idx] : 0;
        bool accept = false, leaf = false, open = false;
        int children = 0, first = 0, bb = 0, bn = 0;
        if (valid) {
          const CellOpen o = a.open[c];
          CellView<double> cv{0, 0, 0, 0, 0, o.mx, o.my, o.mz, o.rcrit2};
          if (a.cube) cv.cx = a.cell_cx[c], cv.cy = a.cell_cy[c], cv.cz = a.cell_cz[c], cv.half = a.cell_half[c], cv.m = a.cell_m[c];
          const bool opens = a.test.opens(w.box, w.a_min, cv);
          children = o.child_count;
          first = o.child_begin;
          bb = o.body_begin, bn = o.body_count;
          accept = !opens;
          leaf = opens && children == 0;
          open = opens && children > 0;
          if (!open) children = 0;
        }
        const unsigned am = __ballot_sync(0xffffffffu, accept), lm = __ballot_sync(0xffffffffu, leaf);
        if (accept) w.cell[nc + __popc(am & lanes_below())] = c;
        if (leaf) {
          const int r = nr + __popc(lm & lanes_below());
          w.rb[r] = bb;
          w.re[r] = bb + bn;
        }
        nc += __popc(am);
        nr += __popc(lm);
        nb += __reduce_add_sync(0xffffffffu, leaf ? unsigned(bn) : 0u);
        // The frontier's next level (global memory).
        const int incl = warp_inclusive_sum(children, lane);
        const int total = __shfl_sync(0xffffffffu, incl, 31);
        if (nnext + total > kListCapacity) {
          failed = true;
          break;
        }
        if (open) {
          const int at = nnext + incl - children;
          for (int k = 0; k < children; ++k) next[at + k] = first + k;
        }
        nnext += total;
        __syncwarp();
        // Evaluate what is waiting, 32 at a time.
        while (nc >= 32) {
          eval_cells<T, kPotential>(a, w, 32, t, lane);
          m2p += 32;
          nc -= 32;
          const int rest = lane < nc ? w.cell[32 + lane] : 0;
          __syncwarp();
          if (lane < nc) w.cell[lane] = rest;
          __syncwarp();
        }
        while (nb >= 32) {
          eval_bodies<T, kPotential>(a, law, w, 32, nr, t, lane);
          p2p += 32;
          nb -= 32;
        }
      }
      int* const done = cur;
      cur = next;
      next = done;
      ncur = nnext;
    }
    if (failed) {
      if (lane == 0) atomicExch(a.overflow, 1);
      continue;
    }
    if (nc > 0) eval_cells<T, kPotential>(a, w, nc, t, lane);
    if (nb > 0) eval_bodies<T, kPotential>(a, law, w, nb, nr, t, lane);
    m2p += static_cast<unsigned long long>(nc);
    p2p += static_cast<unsigned long long>(nb);
    for (int s = 0; s < 2; ++s) {
      if (!t.on[s]) continue;
      const int out = a.index[t.k[s]];
      if constexpr (kPotential) {
        a.phi[out] = a.G * t.phi[s];
      } else {
        a.ax[out] = T(a.G) * t.ax[s];
        a.ay[out] = T(a.G) * t.ay[s];
        a.az[out] = T(a.G) * t.az[s];
      }
    }
    // Interaction counts (warp-uniform): cells x targets, bodies x targets.
    const auto targets = static_cast<unsigned long long>(e - b);
    if (lane == 0) {
      atomicAdd(a.counts, m2p * targets);
      atomicAdd(a.counts + 1, p2p * targets);
    }
    m2p = 0, p2p = 0;
  }
}

template <class T>
__global__ void acc_norm_t(const T* ax, const T* ay, const T* az, int n, double* out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const double x = ax[i], y = ay[i], z = az[i];
    out[i] = sqrt(x * x + y * y + z * z);
  }
}

double seconds(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  NBODY_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
  return 1e-3 * double(ms);
}

}  // namespace

struct CudaTree::Impl {
  GravityParams gravity;
  TreeParams params;
  int device = 0;
  TreeStats stats;
  int n = 0;
  DeviceArray<std::uint64_t> keys, keys_sorted;
  DeviceArray<std::int32_t> index_in, index;
  DeviceArray<double> x, y, z, m;          // sorted sources
  DeviceArray<double> bounds;              // per-block partials
  DeviceArray<int> flag;                   // non-finite body; overflow
  DeviceArray<int> nchild, offset, starts, nselected;
  DeviceArray<unsigned char> start_flags;
  DeviceArray<int2> groups;
  DeviceArray<char> cub_temp;
  DeviceArray<int> scratch;
  DeviceArray<unsigned long long> counts;
  DeviceArray<double> last_acc;  // |a| of the previous acceleration pass, by body
  bool have_last_acc = false;
  int last_acc_n = -1;  // the body count of that pass
  // The history that pass read (CpuTree::used_history), for a checkpoint after which the pass
  // is made again; the two arrays swap after each pass (the pass's |a| goes into the spare).
  DeviceArray<double> used_acc;
  bool have_used_acc = false;
  int used_acc_n = -1;
  CellArrays cells, group_cells;
  // The walk's packed copies: the cells' opening data, their multipoles and the sorted sources
  // in the arithmetic of the last prepare (float or double).
  DeviceArray<CellOpen> open;
  DeviceArray<CellMultipole<float>> mp_f;
  DeviceArray<CellMultipole<double>> mp_d;
  DeviceArray<Vec4<float>> src_f;
  DeviceArray<Vec4<double>> src_d;
  int ngroups = 0;

  template <class T>
  std::pair<DeviceArray<CellMultipole<T>>*, DeviceArray<Vec4<T>>*> packed() {
    if constexpr (std::is_same_v<T, float>) {
      return {&mp_f, &src_f};
    } else {
      return {&mp_d, &src_d};
    }
  }
  cudaEvent_t ev[6] = {};

  void cub_reserve(std::size_t bytes) { cub_temp.reserve(bytes); }

  // The octree of the sorted keys with leaves of at most `leaf` bodies into `t`.
  void build(CellArrays& t, int leaf, const KeyBox<double>& box) {
    t.size = 1;
    t.level_start.assign(1, 0);
    t.reserve(std::max<std::size_t>(16, std::size_t(2 * n / std::max(leaf, 1) + 16)));
    const double h0 = 0.5 * box.size;
    const std::int32_t root_i[5] = {0, n, 0, 0, 0};
    const double root_d[4] = {box.x0 + h0, box.y0 + h0, box.z0 + h0, h0};
    NBODY_CUDA_CHECK(cudaMemcpy(t.body_begin.p, &root_i[0], sizeof(std::int32_t), cudaMemcpyHostToDevice));
    NBODY_CUDA_CHECK(cudaMemcpy(t.body_count.p, &root_i[1], sizeof(std::int32_t), cudaMemcpyHostToDevice));
    NBODY_CUDA_CHECK(cudaMemcpy(t.child_begin.p, &root_i[2], sizeof(std::int32_t), cudaMemcpyHostToDevice));
    NBODY_CUDA_CHECK(cudaMemcpy(t.child_count.p, &root_i[3], sizeof(std::int32_t), cudaMemcpyHostToDevice));
    NBODY_CUDA_CHECK(cudaMemcpy(t.level.p, &root_i[4], sizeof(std::int32_t), cudaMemcpyHostToDevice));
    NBODY_CUDA_CHECK(cudaMemcpy(t.cx.p, &root_d[0], sizeof(double), cudaMemcpyHostToDevice));
    NBODY_CUDA_CHECK(cudaMemcpy(t.cy.p, &root_d[1], sizeof(double), cudaMemcpyHostToDevice));
    NBODY_CUDA_CHECK(cudaMemcpy(t.cz.p, &root_d[2], sizeof(double), cudaMemcpyHostToDevice));
    NBODY_CUDA_CHECK(cudaMemcpy(t.half.p, &root_d[3], sizeof(double), cudaMemcpyHostToDevice));
    int lb = 0, le = 1;
    while (true) {
      const int width = le - lb;
      nchild.reserve(std::size_t(width));
      offset.reserve(std::size_t(width));
      count_children<<<blocks_for(std::size_t(width)), kBlock>>>(t.view(), keys_sorted.p, lb, le, leaf, nchild.p);
      NBODY_CUDA_CHECK_LAUNCH();
      std::size_t need = 0;
      NBODY_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, need, nchild.p, offset.p, width));
      cub_reserve(need);
      NBODY_CUDA_CHECK(cub::DeviceScan::InclusiveSum(cub_temp.p, need, nchild.p, offset.p, width));
      // The level's one round trip: how many children it has.
      int total = 0;
      NBODY_CUDA_CHECK(cudaMemcpy(&total, offset.p + width - 1, sizeof(int), cudaMemcpyDeviceToHost));
      if (total > 0) t.reserve(std::size_t(le + total));
      write_children<<<blocks_for(std::size_t(width)), kBlock>>>(t.view(), keys_sorted.p, lb, le, leaf, nchild.p,
                                                                 offset.p);
      NBODY_CUDA_CHECK_LAUNCH();
      t.level_start.push_back(le);
      if (total == 0) break;
      lb = le;
      le += total;
    }
    t.size = le;
  }

  template <class T>
  void prepare(const T* px, const T* py, const T* pz, const T* pm, int count) {
    n = count;
    stats = TreeStats{};
    stats.bodies = n;
    for (cudaEvent_t& e : ev)
      if (!e) NBODY_CUDA_CHECK(cudaEventCreate(&e));
    NBODY_CUDA_CHECK(cudaEventRecord(ev[0]));
    // The bounding cube (the oracle's bounding_cube from the same bounds).
    const int nb = std::max(1, std::min(blocks_for(std::size_t(n)), 1024));
    bounds.reserve(std::size_t(nb) * 6);
    flag.reserve(3);
    const int none = std::numeric_limits<int>::max();
    NBODY_CUDA_CHECK(cudaMemcpy(flag.p, &none, sizeof(int), cudaMemcpyHostToDevice));
    if (n > 0) {
      bounds_partials<<<nb, kBlock>>>(px, py, pz, n, bounds.p, flag.p);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    int bad = none;
    NBODY_CUDA_CHECK(cudaMemcpy(&bad, flag.p, sizeof(int), cudaMemcpyDeviceToHost));
    if (bad != none) throw_runtime_error("gravity tree: body " + std::to_string(bad) + " has a non-finite position");
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    if (n > 0) {
      const std::vector<double> h = bounds.to_host(std::size_t(nb) * 6);
      for (int b = 0; b < nb; ++b)
        for (int d = 0; d < 3; ++d) lo[d] = std::min(lo[d], h[b * 6 + d]), hi[d] = std::max(hi[d], h[b * 6 + 3 + d]);
    }
    const KeyBox<double> box = cube_from_bounds(lo, hi, n);
    // Keys and the sort.
    keys.reserve(std::size_t(n));
    keys_sorted.reserve(std::size_t(n));
    index_in.reserve(std::size_t(n));
    index.reserve(std::size_t(n));
    if (n > 0) {
      make_keys<<<blocks_for(std::size_t(n)), kBlock>>>(px, py, pz, n, box, keys.p, index_in.p);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    NBODY_CUDA_CHECK(cudaEventRecord(ev[1]));
    std::size_t need = 0;
    NBODY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, need, keys.p, keys_sorted.p, index_in.p, index.p, n, 0, 63));
    cub_reserve(need);
    NBODY_CUDA_CHECK(
        cub::DeviceRadixSort::SortPairs(cub_temp.p, need, keys.p, keys_sorted.p, index_in.p, index.p, n, 0, 63));
    NBODY_CUDA_CHECK(cudaEventRecord(ev[2]));
    for (auto* a : {&x, &y, &z, &m}) a->reserve(std::size_t(n));
    if (n > 0) {
      permute_sources<<<blocks_for(std::size_t(n)), kBlock>>>(px, py, pz, pm, index.p, n, x.p, y.p, z.p, m.p);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    build(cells, std::max(1, params.leaf_size), box);
    NBODY_CUDA_CHECK(cudaEventRecord(ev[3]));
    // Multipoles, deepest level first.
    for (int L = int(cells.level_start.size()) - 2; L >= 0; --L) {
      const int lb = cells.level_start[std::size_t(L)], le = cells.level_start[std::size_t(L) + 1];
      if (le <= lb) continue;
      multipoles_level<<<blocks_for(std::size_t(le - lb)), kBlock>>>(cells.view(), lb, le, x.p, y.p, z.p, m.p,
                                                                     params.theta);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    // The walk's packed copies.
    auto [mp, src] = packed<T>();
    open.reserve(std::size_t(cells.size));
    mp->reserve(std::size_t(cells.size));
    src->reserve(std::max<std::size_t>(std::size_t(n), 1));
    pack_cells<T><<<blocks_for(std::size_t(cells.size)), kBlock>>>(cells.view(), cells.size, open.p, mp->p);
    NBODY_CUDA_CHECK_LAUNCH();
    if (n > 0) {
      pack_sources<T><<<blocks_for(std::size_t(n)), kBlock>>>(x.p, y.p, z.p, m.p, n, src->p);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    NBODY_CUDA_CHECK(cudaEventRecord(ev[4]));
    // Groups: the leaves of the tree with leaf = kGroupCellFactor x group size cut into pieces,
    // in key order; that tree is the top of this one unless the leaves are larger.
    const int capacity = std::clamp(params.group_size, 1, kMaxGroupTargets);
    const int cell_bodies = kGroupCellFactor * capacity;
    start_flags.reserve(std::size_t(n) + 1);
    NBODY_CUDA_CHECK(cudaMemset(start_flags.p, 0, std::size_t(n) + 1));
    if (std::max(1, params.leaf_size) <= cell_bodies) {
      mark_groups_in_tree<<<blocks_for(std::size_t(cells.size)), kBlock>>>(cells.view(), cells.size, cell_bodies,
                                                                           capacity, start_flags.p);
    } else {
      build(group_cells, cell_bodies, box);
      mark_groups<<<blocks_for(std::size_t(group_cells.size)), kBlock>>>(group_cells.view(), group_cells.size,
                                                                        capacity, start_flags.p);
    }
    NBODY_CUDA_CHECK_LAUNCH();
    starts.reserve(std::size_t(n) + 1);
    nselected.reserve(1);
    thrust::counting_iterator<int> iota(0);
    need = 0;
    NBODY_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, need, iota, start_flags.p, starts.p, nselected.p, n));
    cub_reserve(need);
    NBODY_CUDA_CHECK(cub::DeviceSelect::Flagged(cub_temp.p, need, iota, start_flags.p, starts.p, nselected.p, n));
    NBODY_CUDA_CHECK(cudaMemcpy(&ngroups, nselected.p, sizeof(int), cudaMemcpyDeviceToHost));
    groups.reserve(std::size_t(std::max(ngroups, 1)));
    if (ngroups > 0) {
      group_ranges<<<blocks_for(std::size_t(ngroups)), kBlock>>>(starts.p, ngroups, n, groups.p);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    NBODY_CUDA_CHECK(cudaEventRecord(ev[5]));
    NBODY_CUDA_CHECK(cudaEventSynchronize(ev[5]));
    stats.keys_s = seconds(ev[0], ev[1]);
    stats.sort_s = seconds(ev[1], ev[2]);
    stats.build_s = seconds(ev[2], ev[3]) + seconds(ev[4], ev[5]);
    stats.multipoles_s = seconds(ev[3], ev[4]);
    stats.cells = cells.size;
    stats.depth = int(cells.level_start.size()) - 2;
    stats.groups = ngroups;
  }

  template <class T, bool kPotential>
  void walk(T* ax, T* ay, T* az, double* phi) {
    if (n == 0 || ngroups == 0) return;
    int sms = 0;
    NBODY_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    // As many blocks as the SMs hold at once (the warps take groups as they go).
    const int blocks = std::max(1, std::min(sms * kWalkBlocksPerSm<T>, (ngroups + kWalkWarps - 1) / kWalkWarps));
    const std::size_t warps = std::size_t(blocks) * kWalkWarps;
    scratch.reserve(warps * 2 * kListCapacity);
    flag.reserve(3);
    NBODY_CUDA_CHECK(cudaMemset(flag.p + 1, 0, 2 * sizeof(int)));
    counts.reserve(2);
    NBODY_CUDA_CHECK(cudaMemset(counts.p, 0, 2 * sizeof(unsigned long long)));
    WalkArgs<T> a{};
    a.open = open.p;
    a.mp = packed<T>().first->p;
    a.cell_cx = cells.cx.p, a.cell_cy = cells.cy.p, a.cell_cz = cells.cz.p, a.cell_half = cells.half.p;
    a.cell_m = cells.m.p;
    a.x = x.p, a.y = y.p, a.z = z.p;
    a.src = packed<T>().second->p;
    a.groups = groups.p;
    a.ngroups = ngroups;
    a.index = index.p;
    const bool relative = params.criterion == Criterion::relative && have_last_acc && last_acc_n == n && !kPotential;
    a.last_acc = relative ? last_acc.p : nullptr;
    a.test.relative = relative;
    a.test.G = gravity.G;
    a.test.alpha = params.alpha;
    const bool spline = gravity.law == SofteningLaw::spline && gravity.eps2() > 0;
    if (spline) {
      const double h = SplinePair<double>::kSupportPerSoftening * gravity.softening;
      a.test.near2 = h * h;
    }
    a.cube = spline || relative;
    a.eval = MultipoleEval<T>{spline ? T(0) : T(gravity.eps2())};
    a.G = gravity.G;
    a.scratch = scratch.p;
    a.overflow = flag.p + 1;
    a.next_group = flag.p + 2;
    a.counts = counts.p;
    a.ax = ax, a.ay = ay, a.az = az, a.phi = phi;
    NBODY_CUDA_CHECK(cudaEventRecord(ev[0]));
    with_pair_law<T>(gravity, [&](const auto& law) {
      walk_groups<T, kPotential><<<blocks, 32 * kWalkWarps>>>(a, law);
      NBODY_CUDA_CHECK_LAUNCH();
    });
    NBODY_CUDA_CHECK(cudaEventRecord(ev[1]));
    NBODY_CUDA_CHECK(cudaEventSynchronize(ev[1]));
    stats.walk_s = seconds(ev[0], ev[1]);
    int overflow = 0;
    NBODY_CUDA_CHECK(cudaMemcpy(&overflow, flag.p + 1, sizeof(int), cudaMemcpyDeviceToHost));
    if (overflow)
      throw_runtime_error("gravity tree (GPU): a group's traversal frontier passed " + std::to_string(kListCapacity) +
                          " cells (theta too small for this N; raise theta or use the CPU tree)");
    unsigned long long c[2];
    NBODY_CUDA_CHECK(cudaMemcpy(c, counts.p, sizeof c, cudaMemcpyDeviceToHost));
    stats.m2p = c[0];
    stats.p2p = c[1];
    if constexpr (!kPotential) {
      if (params.criterion == Criterion::relative) {
        // The history this pass read is kept (used_acc), the spare array takes this pass's |a|.
        last_acc.swap(used_acc);
        std::swap(have_last_acc, have_used_acc);
        std::swap(last_acc_n, used_acc_n);
        if (!relative) have_used_acc = false, used_acc_n = -1;  // (it read none: Barnes-Hut)
        last_acc.reserve(std::size_t(n));
        acc_norm_t<T><<<blocks_for(std::size_t(n)), kBlock>>>(ax, ay, az, n, last_acc.p);
        NBODY_CUDA_CHECK_LAUNCH();
        have_last_acc = true;
        last_acc_n = n;
      }
    }
  }
};

CudaTree::CudaTree(const GravityParams& g, const TreeParams& p, int device) : impl_(std::make_unique<Impl>()) {
  std::string why;
  if (!cuda_tree_available(&why)) throw_input_error("gravity tree: no usable CUDA device (" + why + ")");
  if (p.group_size > kMaxGroupTargets)
    throw_input_error("gravity tree: the GPU walk takes groups of at most " + std::to_string(kMaxGroupTargets) + " bodies");
  NBODY_CUDA_CHECK(cudaSetDevice(device));
  impl_->gravity = g;
  impl_->params = p;
  impl_->device = device;
}

CudaTree::~CudaTree() {
  if (!impl_) return;
  for (cudaEvent_t e : impl_->ev)
    if (e) cudaEventDestroy(e);
}

template <class T>
void CudaTree::accelerations_device(const T* x, const T* y, const T* z, const T* m, int n, T* ax, T* ay, T* az) {
  impl_->prepare(x, y, z, m, n);
  impl_->walk<T, false>(ax, ay, az, nullptr);
}

template <class T>
void CudaTree::potentials_device(const T* x, const T* y, const T* z, const T* m, int n, double* phi) {
  impl_->prepare(x, y, z, m, n);
  impl_->walk<T, true>(nullptr, nullptr, nullptr, phi);
}

// Per body: keys and sorted keys (16), indices in and sorted (8), the sorted float64 sources (32)
// and their packed copy for the walk (at most 32), group flags and starts (5), |a| of the last
// pass and the history it read (16, the relative criterion only), CUB's temporary storage (the
// sort's, about 24). The cells (140 bytes each) of the tree and of the groups' tree: a split cell
// holds more than `leaf` bodies and has at most 8 children, so at most 8n/(leaf + 1) + 1 cells, and the arrays grow by half again; the tree's
// cells have packed copies for the walk (48 bytes of opening data, at most 96 of multipole). The
// walk's frontier: 2 queues of kListCapacity ints for each warp of at most 8 blocks an SM (132
// SMs of an H100: 4224 warps, 0.28 GB).
std::size_t CudaTree::device_bytes(std::size_t n, const TreeParams& p) {
  int dev = 0, sms = 132;
  if (cudaGetDevice(&dev) == cudaSuccess) (void)cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  const std::size_t leaf = std::size_t(std::max(p.leaf_size, 1)) + 1;
  const std::size_t group = std::size_t(std::clamp(p.group_size, 1, kMaxGroupTargets)) + 1;
  const std::size_t tree_cells = 8 * n / leaf + 64;
  const std::size_t cells = tree_cells + 8 * n / group + 64;
  const std::size_t packed = sizeof(CellOpen) + sizeof(CellMultipole<double>);
  const std::size_t scratch = std::size_t(sms) * 8 * kWalkWarps * 2 * kListCapacity * sizeof(int);
  const std::size_t history = p.criterion == Criterion::relative ? 2 * sizeof(double) : 0;
  return n * (16 + 8 + 32 + 32 + 5 + history + 24) + cells * 140 * 3 / 2 + tree_cells * packed * 3 / 2 + scratch +
         (std::size_t(64) << 20);
}

namespace {
template <class T>
struct Upload {
  DeviceArray<T> x, y, z, m;
  Upload(const std::vector<T>& hx, const std::vector<T>& hy, const std::vector<T>& hz, const std::vector<T>& hm) {
    const std::size_t n = hx.size();
    for (auto [d, h] : {std::pair{&x, &hx}, std::pair{&y, &hy}, std::pair{&z, &hz}, std::pair{&m, &hm}}) {
      d->reserve(std::max<std::size_t>(n, 1));
      if (n > 0) NBODY_CUDA_CHECK(cudaMemcpy(d->p, h->data(), n * sizeof(T), cudaMemcpyHostToDevice));
    }
  }
};
}  // namespace

template <class T>
void CudaTree::accelerations(const std::vector<T>& x, const std::vector<T>& y, const std::vector<T>& z,
                             const std::vector<T>& m, std::vector<T>& ax, std::vector<T>& ay, std::vector<T>& az) {
  const int n = int(x.size());
  Upload<T> in(x, y, z, m);
  DeviceArray<T> oa, ob, oc;
  for (auto* o : {&oa, &ob, &oc}) o->reserve(std::max<std::size_t>(x.size(), 1));
  accelerations_device(in.x.p, in.y.p, in.z.p, in.m.p, n, oa.p, ob.p, oc.p);
  ax = oa.to_host(x.size());
  ay = ob.to_host(x.size());
  az = oc.to_host(x.size());
}

template <class T>
void CudaTree::potentials(const std::vector<T>& x, const std::vector<T>& y, const std::vector<T>& z,
                          const std::vector<T>& m, std::vector<double>& phi) {
  const int n = int(x.size());
  Upload<T> in(x, y, z, m);
  DeviceArray<double> out;
  out.reserve(std::max<std::size_t>(x.size(), 1));
  impl_->prepare(in.x.p, in.y.p, in.z.p, in.m.p, n);
  impl_->walk<T, true>(nullptr, nullptr, nullptr, out.p);
  phi = out.to_host(x.size());
}

Octree CudaTree::octree() const {
  Impl& i = *impl_;
  const auto cells = std::size_t(i.cells.size);
  Octree t;
  t.body_begin = i.cells.body_begin.to_host(cells);
  t.body_count = i.cells.body_count.to_host(cells);
  t.child_begin = i.cells.child_begin.to_host(cells);
  t.child_count = i.cells.child_count.to_host(cells);
  t.level = i.cells.level.to_host(cells);
  t.cx = i.cells.cx.to_host(cells);
  t.cy = i.cells.cy.to_host(cells);
  t.cz = i.cells.cz.to_host(cells);
  t.half = i.cells.half.to_host(cells);
  t.m = i.cells.m.to_host(cells);
  t.mx = i.cells.mx.to_host(cells);
  t.my = i.cells.my.to_host(cells);
  t.mz = i.cells.mz.to_host(cells);
  t.qxx = i.cells.qxx.to_host(cells);
  t.qxy = i.cells.qxy.to_host(cells);
  t.qxz = i.cells.qxz.to_host(cells);
  t.qyy = i.cells.qyy.to_host(cells);
  t.qyz = i.cells.qyz.to_host(cells);
  t.qzz = i.cells.qzz.to_host(cells);
  t.tr = i.cells.tr.to_host(cells);
  t.rcrit2 = i.cells.rcrit2.to_host(cells);
  return t;
}

std::vector<std::int32_t> CudaTree::index() const { return impl_->index.to_host(std::size_t(impl_->n)); }

std::vector<std::pair<std::int32_t, std::int32_t>> CudaTree::groups() const {
  const std::vector<int2> g = impl_->groups.to_host(std::size_t(impl_->ngroups));
  std::vector<std::pair<std::int32_t, std::int32_t>> out;
  for (const int2& r : g) out.emplace_back(r.x, r.y);
  return out;
}

const TreeStats& CudaTree::stats() const noexcept { return impl_->stats; }

std::vector<double> CudaTree::history() const {
  if (!impl_->have_last_acc || impl_->last_acc_n <= 0) return {};
  NBODY_CUDA_CHECK(cudaSetDevice(impl_->device));
  NBODY_CUDA_CHECK(cudaDeviceSynchronize());  // (the pass that wrote it, on the legacy stream)
  return impl_->last_acc.to_host(std::size_t(impl_->last_acc_n));
}

std::vector<double> CudaTree::used_history() const {
  if (!impl_->have_used_acc || impl_->used_acc_n <= 0) return {};
  NBODY_CUDA_CHECK(cudaSetDevice(impl_->device));
  NBODY_CUDA_CHECK(cudaDeviceSynchronize());  // (the pass before, which wrote it)
  return impl_->used_acc.to_host(std::size_t(impl_->used_acc_n));
}

void CudaTree::set_history(const std::vector<double>& h) {
  NBODY_CUDA_CHECK(cudaSetDevice(impl_->device));
  impl_->have_used_acc = false;
  impl_->used_acc_n = -1;
  if (h.empty()) {
    impl_->have_last_acc = false;
    impl_->last_acc_n = -1;
    return;
  }
  impl_->last_acc.reserve(h.size());
  NBODY_CUDA_CHECK(cudaMemcpy(impl_->last_acc.p, h.data(), h.size() * sizeof(double), cudaMemcpyHostToDevice));
  impl_->have_last_acc = true;
  impl_->last_acc_n = static_cast<int>(h.size());
}

#define NBODY_CUDA_TREE(T)                                                                                          \
  template void CudaTree::accelerations_device<T>(const T*, const T*, const T*, const T*, int, T*, T*, T*);         \
  template void CudaTree::potentials_device<T>(const T*, const T*, const T*, const T*, int, double*);            \
  template void CudaTree::accelerations<T>(const std::vector<T>&, const std::vector<T>&, const std::vector<T>&,     \
                                           const std::vector<T>&, std::vector<T>&, std::vector<T>&, std::vector<T>&); \
  template void CudaTree::potentials<T>(const std::vector<T>&, const std::vector<T>&, const std::vector<T>&,        \
                                        const std::vector<T>&, std::vector<double>&);
NBODY_CUDA_TREE(float)
NBODY_CUDA_TREE(double)

}  // namespace nbody::gravity::tree
