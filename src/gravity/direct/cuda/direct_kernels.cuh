#pragma once
// The production direct-sum kernels on the GPU. Include from .cu files only.
//
// One kernel template covers every N. A block of Block threads owns Block x R targets (R per
// thread, so one shared-memory load of a source feeds R interactions) and walks one slice of
// the sources through shared memory in tiles of Block sources. With one slice (large N) each
// block sums over all sources and finishes its targets itself. With S > 1 slices (small N, where
// N / (Block R) blocks could not fill the GPU) the S blocks of a target group write partial sums,
// and the last of them to finish adds the S partials in slice order: the same bits on every run,
// whichever block finishes last, and no floating-point atomics.
#include <cuda_runtime.h>

#include <type_traits>

#include "cuda/block_reduce.cuh"
#include "gravity/interaction.hpp"
#include "particles/views.hpp"

namespace nbody::direct::cuda {

template <class T>
struct alignas(4 * sizeof(T)) Source4 {
  T x, y, z, m;
};

// Source j, or past `end` a massless source at the origin, which contributes exactly zero.
template <class T>
__device__ __forceinline__ Source4<T> load_source(const SourceView<T>& b, int j, int end) {
  return j < end ? Source4<T>{b.x[j], b.y[j], b.z[j], b.m[j]} : Source4<T>{T(0), T(0), T(0), T(0)};
}

// Programmatic dependent launch (launch_programmatic() in direct_launch.cuh). A kernel so launched
// may start while the work before it in the stream is still running: it waits here, before its
// first read of anything that work writes, until that work has finished and its memory is
// visible. It then lets the next launch in the stream be scheduled early in turn (that kernel
// waits the same way, for this whole grid). No-ops before compute capability 9.0 and for kernels
// launched the ordinary way.
__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Where split launches keep their partial sums: S slices x `stride` targets per component, and
// one ticket counter per target group (all zero between launches).
template <class Acc>
struct SplitScratch {
  Acc* __restrict__ px;
  Acc* __restrict__ py;
  Acc* __restrict__ pz;
  unsigned* __restrict__ tickets;
  int stride;
};

// An epilogue finishes target i from its sums: `prefetch(i)` reads what it needs besides them
// (called early, so that the loads' latency hides behind the pair loop), and
// `operator()(i, prefetched, x_i, y_i, z_i, sx, sy, sz)` writes the result; x_i is the target's
// position as the kernel read it.

// Epilogue: a_i = G sum.
template <class Acc, class Out>
struct StoreAccelerations {
  struct Prefetched {};
  Out G;
  Out* __restrict__ ax;
  Out* __restrict__ ay;
  Out* __restrict__ az;
  __device__ __forceinline__ Prefetched prefetch(int) const { return {}; }
  template <class T>
  __device__ __forceinline__ void operator()(int i, Prefetched, T, T, T, Acc sx, Acc sy, Acc sz) const {
    ax[i] = G * Out(sx);
    ay[i] = G * Out(sy);
    az[i] = G * Out(sz);
  }
};

// Epilogue: the documents' Euler step fused into the force kernel: v_i += a_i dt, then
// x_i += v_i dt written to the other position buffer (other blocks still read the old one).
template <class T>
struct EulerUpdate {
  struct Prefetched {
    T vx, vy, vz;
  };
  T G, dt;
  T* __restrict__ x_out;
  T* __restrict__ y_out;
  T* __restrict__ z_out;
  T* __restrict__ vx;
  T* __restrict__ vy;
  T* __restrict__ vz;
  __device__ __forceinline__ Prefetched prefetch(int i) const { return {vx[i], vy[i], vz[i]}; }
  __device__ __forceinline__ void operator()(int i, const Prefetched& v0, T x, T y, T z, T sx, T sy, T sz) const {
    const T ax = G * sx, ay = G * sy, az = G * sz;
    const T u = v0.vx + ax * dt, v = v0.vy + ay * dt, w = v0.vz + az * dt;
    vx[i] = u;
    vy[i] = v;
    vz[i] = w;
    x_out[i] = x + u * dt;
    y_out[i] = y + v * dt;
    z_out[i] = z + w * dt;
  }
};

// Shared by both kernels: when a target group's sources were split over gridDim.y blocks, each
// block publishes its partial sums and the last block to finish adds them in slice order and
// finishes the targets. Returns true in that last block (sums then hold the totals). The same
// bits on every run, whichever block finishes last; no floating-point atomics.
template <class Acc, int Count>
__device__ __forceinline__ bool combine_slices(const int (&target)[Count], Acc (&sx)[Count], Acc (&sy)[Count],
                                               Acc (&sz)[Count], const SplitScratch<Acc>& scratch) {
  __shared__ bool last_block;
  const std::size_t slice_offset = std::size_t(blockIdx.y) * scratch.stride;
#pragma unroll
  for (int r = 0; r < Count; ++r) {
    if (target[r] < 0) continue;
    scratch.px[slice_offset + target[r]] = sx[r];
    scratch.py[slice_offset + target[r]] = sy[r];
    scratch.pz[slice_offset + target[r]] = sz[r];
  }
  __threadfence();  // partials visible device-wide before the ticket is taken
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned ticket = atomicAdd(&scratch.tickets[blockIdx.x], 1u);
    last_block = ticket == gridDim.y - 1;
  }
  __syncthreads();
  if (!last_block) return false;
  __threadfence();
#pragma unroll
  for (int r = 0; r < Count; ++r) {
    if (target[r] < 0) continue;
    Acc tx = Acc(0), ty = Acc(0), tz = Acc(0);
    for (int s = 0; s < int(gridDim.y); ++s) {
      const std::size_t k = std::size_t(s) * scratch.stride + target[r];
      tx += __ldcg(&scratch.px[k]);  // from L2, never a stale L1 line
      ty += __ldcg(&scratch.py[k]);
      tz += __ldcg(&scratch.pz[k]);
    }
    sx[r] = tx;
    sy[r] = ty;
    sz[r] = tz;
  }
  if (threadIdx.x == 0) scratch.tickets[blockIdx.x] = 0u;  // ready for the next launch
  return true;
}

// The R targets a thread holds, i = first + stride r (a target past n sits at the origin and is
// never written), and their sums set to zero.
template <class T, class Acc, int R>
__device__ __forceinline__ void load_targets(const TargetView<T>& b, int first, int stride, T (&xi)[R], T (&yi)[R],
                                             T (&zi)[R], Acc (&sx)[R], Acc (&sy)[R], Acc (&sz)[R]) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int i = first + stride * r;
    xi[r] = i < b.n ? b.x[i] : T(0);
    yi[r] = i < b.n ? b.y[i] : T(0);
    zi[r] = i < b.n ? b.z[i] : T(0);
    sx[r] = sy[r] = sz[r] = Acc(0);
  }
}

// The pair loop of both kernels: sources src[0], src[Step], ... (Count of them, in shared memory)
// added to the R targets' sums. In mixed precision (Acc wider than T), and where PerChunk asks
// for it, the chunk is summed apart first and then added to the running sums: a float32 sum over
// millions of sources, added one term at a time, reaches the size where each term is a few units
// of its last place and the roundings no longer cancel (a slice of 2^23 sources: 29 times the
// bound of the bench's check); chunk partials of Count terms keep each addition well above that.
template <int Count, int Step, int Unroll, bool PerChunk, class T, class Acc, int R, class Pair>
__device__ __forceinline__ void accumulate_sources(const Source4<T>* src, const Pair& pair, const T (&xi)[R],
                                                   const T (&yi)[R], const T (&zi)[R], Acc (&sx)[R], Acc (&sy)[R],
                                                   Acc (&sz)[R]) {
  if constexpr (std::is_same_v<Acc, T> && !PerChunk) {
#pragma unroll Unroll
    for (int k = 0; k < Count; ++k) {
      const Source4<T> s = src[k * Step];
#pragma unroll
      for (int r = 0; r < R; ++r) pair.accumulate(s.x - xi[r], s.y - yi[r], s.z - zi[r], s.m, sx[r], sy[r], sz[r]);
    }
  } else {
    T tx[R], ty[R], tz[R];
#pragma unroll
    for (int r = 0; r < R; ++r) tx[r] = ty[r] = tz[r] = T(0);
#pragma unroll Unroll
    for (int k = 0; k < Count; ++k) {
      const Source4<T> s = src[k * Step];
#pragma unroll
      for (int r = 0; r < R; ++r) pair.accumulate(s.x - xi[r], s.y - yi[r], s.z - zi[r], s.m, tx[r], ty[r], tz[r]);
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
      sx[r] += Acc(tx[r]);
      sy[r] += Acc(ty[r]);
      sz[r] += Acc(tz[r]);
    }
  }
}

// T: the arithmetic of a pair and of the positions read. Acc: what each target's sum is kept in
// across tiles (T, or double for mixed precision: each tile's partial is summed in T, then added
// in float64). Block: threads per block = sources per tile. R: targets per thread. TileSums:
// each tile's partial summed apart in T too (float32 over long slices: see accumulate_sources
// and kPlainSumMaxSources; it costs registers, so short slices go without).
template <class T, class Acc, int Block, int R, class Pair, class Epilogue, bool TileSums = false>
__global__ void __launch_bounds__(Block)
    direct_sum(TargetView<T> t, SourceView<T> b, int slice_len, Pair pair, Epilogue finish,
               SplitScratch<Acc> scratch) {
  static_assert(Block % 32 == 0 && Block <= 1024, "block must be whole warps");
  static_assert(R >= 1 && R <= 16, "targets per thread");
  __shared__ Source4<T> tile[Block];
  wait_for_previous_grid();

  const int group_first = blockIdx.x * Block * R + threadIdx.x;
  T xi[R], yi[R], zi[R];
  Acc sx[R], sy[R], sz[R];
  load_targets(t, group_first, Block, xi, yi, zi, sx, sy, sz);

  const int j_begin = blockIdx.y * slice_len;
  const int j_end = min(b.n, j_begin + slice_len);
  // Each thread fetches its source of the next tile while the block works on this one, so the
  // loads' latency hides behind a tile of arithmetic instead of stalling at the barrier.
  Source4<T> next = load_source(b, j_begin + int(threadIdx.x), j_end);
  for (int base = j_begin; base < j_end; base += Block) {
    tile[threadIdx.x] = next;
    __syncthreads();
    next = load_source(b, base + Block + int(threadIdx.x), j_end);
    accumulate_sources<Block, 1, 16, TileSums>(tile, pair, xi, yi, zi, sx, sy, sz);
    __syncthreads();
  }

  if (gridDim.y == 1) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int i = group_first + r * Block;
      if (i < t.n) finish(i, finish.prefetch(i), xi[r], yi[r], zi[r], sx[r], sy[r], sz[r]);
    }
    return;
  }

  // Split: the last block of the group adds the slices' partials in order and finishes.
  int target[R];
#pragma unroll
  for (int r = 0; r < R; ++r) target[r] = group_first + r * Block;  // padded targets have scratch rows too
  if (!combine_slices<Acc, R>(target, sx, sy, sz, scratch)) return;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    if (target[r] < t.n) finish(target[r], finish.prefetch(target[r]), xi[r], yi[r], zi[r], sx[r], sy[r], sz[r]);
  }
}

// The warp-sliced kernel, for small N where there are too few targets to give every scheduler
// enough warps. A block of W warps owns (32 / L) R targets: the L lanes l, l + 32/L, ... of a
// warp share a target and take alternate sources, each thread holds R targets, and warp w walks
// its own 1/W of the block's sources, staged 32 at a time (prefetched a chunk ahead) through a
// private strip of shared memory, with no block-wide barrier in the loop. The L lanes' sums are
// then added by a fixed butterfly of shuffles and the W warps' sums in warp order through shared
// memory. With W = 32, L = 2, R = 1 a 4096-body step is 256 blocks of 1024 threads: two per SM,
// 16 warps per scheduler, and no sums crossing blocks.
// One float32 target per thread fits in 32 registers: ask for full occupancy (64 warps per SM).
// Two fit in 64: ask for room for two blocks of up to 16 warps, so that the next step's block
// (launched early, see wait_for_previous_grid) can be resident beside the running one.
template <class T, class Acc, int W, int R>
inline constexpr int kWarpKernelMinBlocks =
    (sizeof(T) == 4 && sizeof(Acc) == 4) ? (R == 1 ? 64 / W : (R == 2 && W <= 16 ? 2 : 1)) : 1;

template <class T, class Acc, int W, int R, int L, class Pair, class Epilogue>
__global__ void __launch_bounds__(32 * W, (kWarpKernelMinBlocks<T, Acc, W, R>))
    direct_sum_warps(TargetView<T> t, SourceView<T> b, int slice_len, Pair pair, Epilogue finish,
                     SplitScratch<Acc> scratch) {
  constexpr int kRow = 32 / L;  // targets per warp row
  static_assert(W >= 1 && W <= 32 && R >= 1 && R <= W, "warps and targets per thread");
  static_assert(L == 1 || L == 2 || L == 4, "lanes per target");
  __shared__ Source4<T> strip[W][32];
  __shared__ Acc partial[W][R][kRow][3];
  wait_for_previous_grid();
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int column = lane % kRow;  // which target of the row
  const int phase = lane / kRow;   // which of the L lanes sharing it
  const int group_first = blockIdx.x * kRow * R + column;
  T xi[R], yi[R], zi[R];
  Acc sx[R], sy[R], sz[R];
  load_targets(t, group_first, kRow, xi, yi, zi, sx, sy, sz);
  // Warp r < R finishes row r (its lanes of phase 0): what the epilogue needs is read now.
  const int own = group_first + kRow * warp;
  const bool finisher = warp < R && phase == 0 && own < t.n;
  typename Epilogue::Prefetched prefetched{};
  if (finisher) prefetched = finish.prefetch(own);

  // This block's sources [j_begin, j_end), split into W strips of whole 32-source chunks.
  const int j_begin = blockIdx.y * slice_len;
  const int j_end = min(b.n, j_begin + slice_len);
  const int per_warp = ((j_end - j_begin + W - 1) / W + 31) / 32 * 32;
  const int w_begin = j_begin + warp * per_warp;
  const int w_end = min(j_end, w_begin + per_warp);
  Source4<T> next = load_source(b, w_begin + lane, w_end);  // prefetched a chunk ahead
  for (int base = w_begin; base < w_end; base += 32) {
    strip[warp][lane] = next;
    __syncwarp();
    next = load_source(b, base + 32 + lane, w_end);
    accumulate_sources<32 / L, L, 32 / L, false>(&strip[warp][phase], pair, xi, yi, zi, sx, sy, sz);
    __syncwarp();
  }

  // The L lanes of a target: a butterfly, so every one of them ends with the same bits.
#pragma unroll
  for (int offset = kRow; offset < 32; offset *= 2) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      sx[r] += __shfl_xor_sync(0xffffffffu, sx[r], offset);
      sy[r] += __shfl_xor_sync(0xffffffffu, sy[r], offset);
      sz[r] += __shfl_xor_sync(0xffffffffu, sz[r], offset);
    }
  }

  // The W warps' sums, target by target, in warp order (one barrier for all R rows); warp r
  // finishes row r.
  if (phase == 0) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      partial[warp][r][column][0] = sx[r];
      partial[warp][r][column][1] = sy[r];
      partial[warp][r][column][2] = sz[r];
    }
  }
  __syncthreads();
  Acc tx[1] = {Acc(0)}, ty[1] = {Acc(0)}, tz[1] = {Acc(0)};
  int target[1] = {finisher ? own : -1};
  T x = T(0), y = T(0), z = T(0);
  if (warp < R && phase == 0) {
#pragma unroll
    for (int w = 0; w < W; ++w) {
      tx[0] += partial[w][warp][column][0];
      ty[0] += partial[w][warp][column][1];
      tz[0] += partial[w][warp][column][2];
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {  // the row's position, without indexing registers at run time
      if (r == warp) {
        x = xi[r];
        y = yi[r];
        z = zi[r];
      }
    }
  }

  if (gridDim.y > 1 && !combine_slices<Acc, 1>(target, tx, ty, tz, scratch)) return;
  if (target[0] >= 0) finish(target[0], prefetched, x, y, z, tx[0], ty[0], tz[0]);
}

// Launch shape of the potential pass (diagnostics only; speed does not matter).
struct PotentialPolicy {
  static constexpr int kBlock = 256;
};

// Per-block partial sums of m_i phi_i (phi_i excluding j = i), each target's sum in float64.
template <class T, class Policy, class Pair>
__global__ void __launch_bounds__(Policy::kBlock)
    tiled_potential(SourceView<T> b, Pair pair, double* __restrict__ block_sums) {
  __shared__ Source4<T> tile[Policy::kBlock];
  __shared__ double scratch[Policy::kBlock / 32];
  const int i = blockIdx.x * Policy::kBlock + threadIdx.x;
  const T xi = i < b.n ? b.x[i] : T(0);
  const T yi = i < b.n ? b.y[i] : T(0);
  const T zi = i < b.n ? b.z[i] : T(0);
  double phi = 0;
  for (int base = 0; base < b.n; base += Policy::kBlock) {
    const int j = base + threadIdx.x;
    tile[threadIdx.x] = j < b.n ? Source4<T>{b.x[j], b.y[j], b.z[j], b.m[j]} : Source4<T>{T(0), T(0), T(0), T(0)};
    __syncthreads();
    const int count = min(Policy::kBlock, b.n - base);
    for (int k = 0; k < count; ++k) {
      if (base + k == i) continue;
      const Source4<T> s = tile[k];
      phi += double(pair.potential(s.x - xi, s.y - yi, s.z - zi, s.m));
    }
    __syncthreads();
  }
  const double w = i < b.n ? double(b.m[i]) * phi : 0.0;
  const double total = nbody::cuda::block_reduce<Policy::kBlock, nbody::cuda::Sum>(w, scratch);
  if (threadIdx.x == 0) block_sums[blockIdx.x] = total;
}

}  // namespace nbody::direct::cuda
