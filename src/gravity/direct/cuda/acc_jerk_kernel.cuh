#pragma once
// Acceleration and jerk of a set of active targets from all (predicted) sources, tiled through
// shared memory, for the Hermite integrator. Deterministic: every launch mode makes the same
// additions in the same order (acc_jerk_shape.hpp), no atomics. Include from .cu files only.
#include <cuda_runtime.h>

#include <cstdint>

#include "gravity/direct/cuda/acc_jerk_shape.hpp"
#include "gravity/interaction.hpp"
#include "particles/views.hpp"

namespace nbody::direct::cuda {

template <class T>
struct alignas(4 * sizeof(T)) HermiteSourcePosition {
  T x, y, z, m;
};

template <class T>
struct alignas(4 * sizeof(T)) HermiteSourceVelocity {
  T x, y, z, unused;
};

// The mixed-precision Plummer law of the acceleration-and-jerk pass (as Sapporo and phiGPU): no
// float64 arithmetic in the pair loop. Each float64 coordinate is split once, where the tile is
// loaded, into two float32 parts hi + lo (hi = the float nearest, lo = the float nearest the
// rest), so that a difference (xj_hi - xi_hi) + (xj_lo - xi_lo) keeps about 48 bits of the
// coordinates (no cancellation of the large coordinates); velocities are rounded to float32 (their
// differences are not small against them: a pair's relative velocity is of the order of the
// velocities); the pair terms (rsqrt, the products) are float32 and summed in float32 over one
// tile of sources, each tile's sums then added to the float64 running sums. Guarded (a softening
// too small for float32): a coincident pair (the target itself) contributes exactly zero; else
// eps2 keeps r2 > 0 and 1/r^3 finite for every pair. The law's arithmetic is fold_chunk_mixed's;
// this type carries its parameter.
template <bool Guarded>
struct MixedPlummerJerk {
  float eps2;
  static constexpr bool kGuarded = Guarded;
  // The smallest float32 eps2 without the guard: 1/eps^3 <= 1e18 (no overflow of m / r^3).
  static constexpr float kSafeEps2 = 1e-12f;
};

template <class Pair>
inline constexpr bool kMixedLaw = false;
template <bool Guarded>
inline constexpr bool kMixedLaw<MixedPlummerJerk<Guarded>> = true;

// A float64 value as hi + lo in float32.
struct SplitFloat {
  float hi, lo;
};
__device__ __forceinline__ SplitFloat split_float(double v) {
  const float hi = static_cast<float>(v);
  return {hi, static_cast<float>(v - static_cast<double>(hi))};
}

// The mixed law's tile entry of one source: the hi and lo parts of its position and its mass and
// velocity in float32, in the 32 + 32 bytes of the float64 entries (the mixed fold reuses their
// shared arrays).
struct alignas(32) MixedSourcePosition {
  float4 hi;  // x, y, z, m
  float4 lo;  // x, y, z, unused
};
struct alignas(32) MixedSourceVelocity {
  float4 v;  // vx, vy, vz, unused
  float4 unused;
};
static_assert(sizeof(MixedSourcePosition) == sizeof(HermiteSourcePosition<double>));
static_assert(sizeof(MixedSourceVelocity) == sizeof(HermiteSourceVelocity<double>));

// Six running sums (a and jerk).
template <class T>
struct AccJerkSum {
  T v[6] = {T(0), T(0), T(0), T(0), T(0), T(0)};
  __device__ __forceinline__ void add(const AccJerkSum& o) {
#pragma unroll
    for (int c = 0; c < 6; ++c) v[c] += o.v[c];
  }
};

// The target's fold over the sources [begin, end) of one chunk (a whole number of tiles but the
// last), from zero. Every thread of the block calls it (the tiles are loaded together); a warp
// whose targets are all past the count (warp_live false) computes nothing.
template <class T, class Policy, class Pair>
__device__ __forceinline__ AccJerkSum<T> fold_chunk(const MotionView<T>& s, int begin, int end, const Pair& pair,
                                                    T xi, T yi, T zi, T ui, T vi, T wi, bool warp_live,
                                                    HermiteSourcePosition<T>* tile_pos,
                                                    HermiteSourceVelocity<T>* tile_vel) {
  AccJerkSum<T> r;
  for (int base = begin; base < end; base += Policy::kBlock) {
    const int j = base + threadIdx.x;
    if (j < end) {
      tile_pos[threadIdx.x] = HermiteSourcePosition<T>{s.x.x[j], s.x.y[j], s.x.z[j], s.m[j]};
      tile_vel[threadIdx.x] = HermiteSourceVelocity<T>{s.v.x[j], s.v.y[j], s.v.z[j], T(0)};
    }
    __syncthreads();
    const int valid = !warp_live ? 0 : end - base < Policy::kBlock ? end - base : Policy::kBlock;
    if (valid == Policy::kBlock) {
#pragma unroll Policy::kUnroll
      for (int q = 0; q < Policy::kBlock; ++q) {
        const HermiteSourcePosition<T> p = tile_pos[q];
        const HermiteSourceVelocity<T> v = tile_vel[q];
        pair.accumulate_jerk(p.x - xi, p.y - yi, p.z - zi, v.x - ui, v.y - vi, v.z - wi, p.m, r.v[0], r.v[1], r.v[2],
                             r.v[3], r.v[4], r.v[5]);
      }
    } else {
      for (int q = 0; q < valid; ++q) {
        const HermiteSourcePosition<T> p = tile_pos[q];
        const HermiteSourceVelocity<T> v = tile_vel[q];
        pair.accumulate_jerk(p.x - xi, p.y - yi, p.z - zi, v.x - ui, v.y - vi, v.z - wi, p.m, r.v[0], r.v[1], r.v[2],
                             r.v[3], r.v[4], r.v[5]);
      }
    }
    __syncthreads();
  }
  return r;
}

// fold_chunk for the mixed law (MixedPlummerJerk): the same tiles and the same order of tiles;
// within a tile the float32 terms are summed in float32 from zero, and each tile's sums are
// added to the float64 sums.
template <class Policy, bool Guarded>
__device__ __forceinline__ AccJerkSum<double> fold_chunk_mixed(const MotionView<double>& s, int begin, int end,
                                                               float eps2, double xi, double yi, double zi,
                                                               double ui, double vi, double wi, bool warp_live,
                                                               HermiteSourcePosition<double>* tile_pos,
                                                               HermiteSourceVelocity<double>* tile_vel) {
  auto* pos = reinterpret_cast<MixedSourcePosition*>(tile_pos);
  auto* vel = reinterpret_cast<MixedSourceVelocity*>(tile_vel);
  const SplitFloat x = split_float(xi), y = split_float(yi), z = split_float(zi);
  const float u = static_cast<float>(ui), v = static_cast<float>(vi), w = static_cast<float>(wi);
  AccJerkSum<double> r;
  for (int base = begin; base < end; base += Policy::kBlock) {
    const int j = base + threadIdx.x;
    if (j < end) {
      const SplitFloat sx = split_float(s.x.x[j]), sy = split_float(s.x.y[j]), sz = split_float(s.x.z[j]);
      pos[threadIdx.x] = {make_float4(sx.hi, sy.hi, sz.hi, static_cast<float>(s.m[j])),
                          make_float4(sx.lo, sy.lo, sz.lo, 0.0f)};
      vel[threadIdx.x].v = make_float4(static_cast<float>(s.v.x[j]), static_cast<float>(s.v.y[j]),
                                       static_cast<float>(s.v.z[j]), 0.0f);
    }
    __syncthreads();
    const int valid = !warp_live ? 0 : end - base < Policy::kBlock ? end - base : Policy::kBlock;
    float ax = 0.0f, ay = 0.0f, az = 0.0f, jx = 0.0f, jy = 0.0f, jz = 0.0f;
    auto term = [&](int q) {
      const float4 ph = pos[q].hi, pl = pos[q].lo, vj = vel[q].v;
      const float dx = (ph.x - x.hi) + (pl.x - x.lo), dy = (ph.y - y.hi) + (pl.y - y.lo),
                  dz = (ph.z - z.hi) + (pl.z - z.lo);
      const float du = vj.x - u, dv = vj.y - v, dw = vj.z - w;
      const float r2 = eps2 + dx * dx + dy * dy + dz * dz;
      float inv = rsqrtf(r2);
      if constexpr (Guarded) inv = r2 > 0.0f ? inv : 0.0f;
      const float inv2 = inv * inv;
      const float m3 = ph.w * inv * inv2;
      const float c = (dx * du + dy * dv + dz * dw) * (3.0f * inv2);
      ax += dx * m3;
      ay += dy * m3;
      az += dz * m3;
      jx += (du - c * dx) * m3;
      jy += (dv - c * dy) * m3;
      jz += (dw - c * dz) * m3;
    };
    if (valid == Policy::kBlock) {
#pragma unroll Policy::kUnroll
      for (int q = 0; q < Policy::kBlock; ++q) term(q);
    } else {
      for (int q = 0; q < valid; ++q) term(q);
    }
    r.v[0] += static_cast<double>(ax);
    r.v[1] += static_cast<double>(ay);
    r.v[2] += static_cast<double>(az);
    r.v[3] += static_cast<double>(jx);
    r.v[4] += static_cast<double>(jy);
    r.v[5] += static_cast<double>(jz);
    __syncthreads();
  }
  return r;
}

// One work item of the pass: the targets of tile `tile` (k = tile * kBlock + threadIdx.x < count,
// body index[k]) against the sources of `part`:
//   Mode whole:  acc[k], jerk[k] = G * (fold over all groups);
//   Mode groups: partial[(g * 6 + c) * count + k] = component c of group g = part;
//   Mode chunks: partial[(h * 6 + c) * count + k] = component c of chunk h = part.
// a = G sum_j m_j d_ij g(|d_ij|), jerk = G sum_j m_j [dv_ij g + d_ij (d_ij . dv_ij) q] (the pair
// law gives g and q; the i = j term is exactly zero). Every thread of the block calls it.
template <class T, class Policy, AccJerkMode Mode, class Pair>
__device__ __forceinline__ void acc_jerk_item(const MotionView<T>& s, const std::int32_t* __restrict__ index,
                                              int count, const Pair& pair, T G, const AccJerkShape& shape,
                                              const Vec3Span<T>& acc, const Vec3Span<T>& jerk,
                                              T* __restrict__ partial, int tile, int part,
                                              HermiteSourcePosition<T>* tile_pos,
                                              HermiteSourceVelocity<T>* tile_vel) {
  const int k = tile * Policy::kBlock + threadIdx.x;
  const bool live = k < count;
  // a warp with no target left (the last tile of an active set) loads its share of the tiles
  // and computes nothing: its SM's other warps go faster
  const bool warp_live = __any_sync(0xffffffffu, live);
  const int i = live ? index[k] : 0;
  const T xi = live ? s.x.x[i] : T(0), yi = live ? s.x.y[i] : T(0), zi = live ? s.x.z[i] : T(0);
  const T ui = live ? s.v.x[i] : T(0), vi = live ? s.v.y[i] : T(0), wi = live ? s.v.z[i] : T(0);
  const int n = s.n;
  auto chunk_sum = [&](int h) {
    const int begin = h * shape.chunk;
    const int end = begin + shape.chunk < n ? begin + shape.chunk : n;
    if constexpr (kMixedLaw<Pair>) {
      return fold_chunk_mixed<Policy, Pair::kGuarded>(s, begin, end, pair.eps2, xi, yi, zi, ui, vi, wi, warp_live,
                                                      tile_pos, tile_vel);
    } else {
      return fold_chunk<T, Policy>(s, begin, end, pair, xi, yi, zi, ui, vi, wi, warp_live, tile_pos, tile_vel);
    }
  };
  auto group_sum = [&](int g) {
    AccJerkSum<T> sum;
    const int first = g * Policy::kChunksPerGroup;
    const int last = first + Policy::kChunksPerGroup < shape.chunks ? first + Policy::kChunksPerGroup : shape.chunks;
    for (int h = first; h < last; ++h) sum.add(chunk_sum(h));
    return sum;
  };
  if constexpr (Mode == AccJerkMode::whole) {
    AccJerkSum<T> total;
    for (int g = 0; g < shape.groups; ++g) total.add(group_sum(g));
    if (live) {
      acc.x[k] = G * total.v[0];
      acc.y[k] = G * total.v[1];
      acc.z[k] = G * total.v[2];
      jerk.x[k] = G * total.v[3];
      jerk.y[k] = G * total.v[4];
      jerk.z[k] = G * total.v[5];
    }
  } else {
    const AccJerkSum<T> sum = Mode == AccJerkMode::groups ? group_sum(part) : chunk_sum(part);
    if (live) {
#pragma unroll
      for (int c = 0; c < 6; ++c) partial[(std::size_t(part) * 6 + c) * count + k] = sum.v[c];
    }
  }
}

// The pass shaped on the host: block (x, y) is the item (tile x, part y).
template <class T, class Policy, AccJerkMode Mode, class Pair>
__global__ void __launch_bounds__(Policy::kBlock, Policy::kBlocksPerSm)
    acc_jerk_kernel(MotionView<T> s, IndexView targets, Pair pair, T G, AccJerkShape shape, Vec3Span<T> acc,
                    Vec3Span<T> jerk, T* __restrict__ partial) {
  __shared__ HermiteSourcePosition<T> tile_pos[Policy::kBlock];
  __shared__ HermiteSourceVelocity<T> tile_vel[Policy::kBlock];
  acc_jerk_item<T, Policy, Mode>(s, targets.index, targets.count, pair, G, shape, acc, jerk, partial,
                                 int(blockIdx.x), int(blockIdx.y), tile_pos, tile_vel);
}

// The pass for a count read on the device (*count_at targets): the shape acc_jerk_shape gives for
// that count on `sm_count` SMs, its items (tile, part) visited by a fixed grid, item w by block
// w mod gridDim.x, tiles fastest. The same items as acc_jerk_kernel's launch: the same bits.
template <class T, class Policy, class Pair>
__global__ void __launch_bounds__(Policy::kBlock, Policy::kBlocksPerSm)
    acc_jerk_counted_kernel(MotionView<T> s, const std::int32_t* __restrict__ index, const int* __restrict__ count_at,
                            int sm_count, Pair pair, T G, Vec3Span<T> acc, Vec3Span<T> jerk, T* __restrict__ partial) {
  __shared__ HermiteSourcePosition<T> tile_pos[Policy::kBlock];
  __shared__ HermiteSourceVelocity<T> tile_vel[Policy::kBlock];
  const int count = *count_at;
  if (count <= 0) return;
  const AccJerkShape shape = acc_jerk_shape(s.n, count, sm_count, sizeof(T));
  const int parts = shape.parts() > 0 ? shape.parts() : 1;
  const int items = shape.target_blocks * parts;
  for (int w = int(blockIdx.x); w < items; w += int(gridDim.x)) {
    const int tile = w % shape.target_blocks, part = w / shape.target_blocks;
    switch (shape.mode) {
      case AccJerkMode::whole:
        acc_jerk_item<T, Policy, AccJerkMode::whole>(s, index, count, pair, G, shape, acc, jerk, partial, tile, part,
                                                     tile_pos, tile_vel);
        break;
      case AccJerkMode::groups:
        acc_jerk_item<T, Policy, AccJerkMode::groups>(s, index, count, pair, G, shape, acc, jerk, partial, tile, part,
                                                      tile_pos, tile_vel);
        break;
      case AccJerkMode::chunks:
        acc_jerk_item<T, Policy, AccJerkMode::chunks>(s, index, count, pair, G, shape, acc, jerk, partial, tile, part,
                                                      tile_pos, tile_vel);
        break;
    }
  }
}

// The fold of a split pass's partials into acc, jerk, in the order of the whole pass (chunks into
// their groups, groups into the sum, each from zero): one warp an element e = c * count + k
// (component c of target k), warp-stride. Lane g < groups holds group g (chunks mode: the fold of
// its chunks, loaded together; groups mode: its partial), and lane 0 folds the groups in order
// from the others' registers: a few memory latencies an element, not one a chunk.
template <class T, class Policy>
__device__ __forceinline__ void fold_elements(const T* __restrict__ partial, int count, const AccJerkShape& shape, T G,
                                              const Vec3Span<T>& acc, const Vec3Span<T>& jerk) {
  static_assert(Policy::kMaxChunks / Policy::kChunksPerGroup <= 32, "a lane a group");
  const int lane = int(threadIdx.x) & 31;
  const int warps = int(gridDim.x * blockDim.x) >> 5;
  const int elements = 6 * count;
  for (int e = int(blockIdx.x * blockDim.x + threadIdx.x) >> 5; e < elements; e += warps) {
    const int c = e / count, k = e - c * count;
    T mine = T(0);
    if (lane < shape.groups) {
      if (shape.mode == AccJerkMode::groups) {
        mine = partial[(std::size_t(lane) * 6 + c) * count + k];
      } else {
        const int first = lane * Policy::kChunksPerGroup;
        const int in_group = shape.chunks - first < Policy::kChunksPerGroup ? shape.chunks - first
                                                                            : Policy::kChunksPerGroup;
        T value[Policy::kChunksPerGroup];
#pragma unroll
        for (int q = 0; q < Policy::kChunksPerGroup; ++q) {
          value[q] = q < in_group ? partial[(std::size_t(first + q) * 6 + c) * count + k] : T(0);
        }
#pragma unroll
        for (int q = 0; q < Policy::kChunksPerGroup; ++q) {
          if (q < in_group) mine += value[q];
        }
      }
    }
    T total = T(0);
    for (int g = 0; g < shape.groups; ++g) total += __shfl_sync(0xffffffffu, mine, g);
    if (lane == 0) {
      // selected, not indexed: an array of the six pointers would live in local memory
      T* const out = c == 0 ? acc.x : c == 1 ? acc.y : c == 2 ? acc.z : c == 3 ? jerk.x : c == 4 ? jerk.y : jerk.z;
      out[k] = G * total;
    }
  }
}

template <class T, class Policy>
__global__ void __launch_bounds__(Policy::kFoldBlock)
    fold_acc_jerk_partials(const T* __restrict__ partial, int count, AccJerkShape shape, T G, Vec3Span<T> acc,
                           Vec3Span<T> jerk) {
  fold_elements<T, Policy>(partial, count, shape, G, acc, jerk);
}

// The same for a count read on the device; nothing to fold where its shape is whole.
template <class T, class Policy>
__global__ void __launch_bounds__(Policy::kFoldBlock)
    fold_acc_jerk_counted(const T* __restrict__ partial, const int* __restrict__ count_at, int sources, int sm_count,
                          T G, Vec3Span<T> acc, Vec3Span<T> jerk) {
  const int count = *count_at;
  if (count <= 0) return;
  const AccJerkShape shape = acc_jerk_shape(sources, count, sm_count, sizeof(T));
  if (shape.mode == AccJerkMode::whole) return;
  fold_elements<T, Policy>(partial, count, shape, G, acc, jerk);
}

}  // namespace nbody::direct::cuda
