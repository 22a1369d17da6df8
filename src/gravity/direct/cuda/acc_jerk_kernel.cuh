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

// The mixed-precision Plummer law of the acceleration-and-jerk pass (as Sapporo and phiGPU): the
// differences of the float64 predicted positions and velocities are taken in float64 (no
// cancellation of the large coordinates), the pair term in float32 (rsqrt, the products), and
// summed in float64. Guarded: a coincident pair (the target itself) contributes exactly zero.
struct MixedPlummerJerk {
  float eps2;
  __device__ __forceinline__ void accumulate_jerk(double dx, double dy, double dz, double dvx, double dvy,
                                                  double dvz, double mj, double& ax, double& ay, double& az,
                                                  double& jx, double& jy, double& jz) const {
    const float x = static_cast<float>(dx), y = static_cast<float>(dy), z = static_cast<float>(dz);
    const float u = static_cast<float>(dvx), v = static_cast<float>(dvy), w = static_cast<float>(dvz);
    const float r2 = eps2 + x * x + y * y + z * z;
    const float inv = r2 > 0.0f ? rsqrtf(r2) : 0.0f;
    const float inv2 = inv * inv;
    const float s = static_cast<float>(mj) * inv * inv2;
    const float c = 3.0f * (x * u + y * v + z * w) * inv2;
    ax += static_cast<double>(x * s);
    ay += static_cast<double>(y * s);
    az += static_cast<double>(z * s);
    jx += static_cast<double>((u - c * x) * s);
    jy += static_cast<double>((v - c * y) * s);
    jz += static_cast<double>((w - c * z) * s);
  }
};

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
// last), from zero. Every thread of the block calls it (the tiles are loaded together).
template <class T, class Policy, class Pair>
__device__ __forceinline__ AccJerkSum<T> fold_chunk(const MotionView<T>& s, int begin, int end, const Pair& pair,
                                                    T xi, T yi, T zi, T ui, T vi, T wi,
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
    const int valid = end - base < Policy::kBlock ? end - base : Policy::kBlock;
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
  const int i = live ? index[k] : 0;
  const T xi = live ? s.x.x[i] : T(0), yi = live ? s.x.y[i] : T(0), zi = live ? s.x.z[i] : T(0);
  const T ui = live ? s.v.x[i] : T(0), vi = live ? s.v.y[i] : T(0), wi = live ? s.v.z[i] : T(0);
  const int n = s.n;
  auto chunk_sum = [&](int h) {
    const int begin = h * shape.chunk;
    const int end = begin + shape.chunk < n ? begin + shape.chunk : n;
    return fold_chunk<T, Policy>(s, begin, end, pair, xi, yi, zi, ui, vi, wi, tile_pos, tile_vel);
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

// Component c of target k from the partials of a split pass, in the order of the whole pass:
// chunks into their groups, groups into the sum, each from zero.
template <class T, class Policy>
__device__ __forceinline__ T fold_component(const T* __restrict__ partial, int count, const AccJerkShape& shape, int k,
                                            int c) {
  T total = T(0);
  if (shape.mode == AccJerkMode::groups) {
    for (int g = 0; g < shape.groups; ++g) total += partial[(std::size_t(g) * 6 + c) * count + k];
  } else {
    for (int g = 0; g < shape.groups; ++g) {
      T group = T(0);
      const int first = g * Policy::kChunksPerGroup;
      const int last = first + Policy::kChunksPerGroup < shape.chunks ? first + Policy::kChunksPerGroup : shape.chunks;
      for (int h = first; h < last; ++h) group += partial[(std::size_t(h) * 6 + c) * count + k];
      total += group;
    }
  }
  return total;
}

// The fold of a split pass's partials into acc, jerk: one thread a (target, component), element
// e = c * count + k (targets fastest: the partials' layout), grid-stride.
template <class T, class Policy>
__device__ __forceinline__ void fold_elements(const T* __restrict__ partial, int count, const AccJerkShape& shape, T G,
                                              const Vec3Span<T>& acc, const Vec3Span<T>& jerk) {
  const int elements = 6 * count;
  for (int e = int(blockIdx.x * blockDim.x + threadIdx.x); e < elements; e += int(gridDim.x * blockDim.x)) {
    const int c = e / count, k = e - c * count;
    // selected, not indexed: an array of the six pointers would live in local memory
    T* const out = c == 0 ? acc.x : c == 1 ? acc.y : c == 2 ? acc.z : c == 3 ? jerk.x : c == 4 ? jerk.y : jerk.z;
    out[k] = G * fold_component<T, Policy>(partial, count, shape, k, c);
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
