#pragma once
// The production direct-sum kernels on the GPU: one thread per target, sources staged through
// shared memory in tiles of one block. Include from .cu files only.
#include <cuda_runtime.h>

#include "cuda/block_reduce.cuh"
#include "gravity/interaction.hpp"

namespace nbody::direct::cuda {

// Launch shape of the tiled kernel. One place; kernels take it as a template parameter.
struct TiledPolicy {
  static constexpr int kBlock = 256;  // threads per block = sources per shared-memory tile
  static constexpr int kUnroll = 8;   // inner-loop unroll over the tile
  static_assert(kBlock % 32 == 0 && kBlock <= 1024, "block must be whole warps");
  static_assert(kBlock % kUnroll == 0, "unroll must divide the tile");
};

template <class T>
struct alignas(4 * sizeof(T)) Source4 {
  T x, y, z, m;
};

// a_i = G sum_j m_j d_ij / (|d_ij|^2 + eps^2)^{3/2}. Each thread sums its sources in the same
// order every run (no atomics), so the result is bitwise reproducible. The last tile is padded
// with massless sources, which contribute exactly zero.
template <class T, class Policy, class Pair>
__global__ void __launch_bounds__(Policy::kBlock)
    tiled_accelerations(const T* __restrict__ x, const T* __restrict__ y, const T* __restrict__ z,
                        const T* __restrict__ m, int n, Pair pair, T G, T* __restrict__ ax, T* __restrict__ ay,
                        T* __restrict__ az) {
  __shared__ Source4<T> tile[Policy::kBlock];
  const int i = blockIdx.x * Policy::kBlock + threadIdx.x;
  const T xi = i < n ? x[i] : T(0);
  const T yi = i < n ? y[i] : T(0);
  const T zi = i < n ? z[i] : T(0);
  T sx = 0, sy = 0, sz = 0;
  for (int base = 0; base < n; base += Policy::kBlock) {
    const int j = base + threadIdx.x;
    tile[threadIdx.x] = j < n ? Source4<T>{x[j], y[j], z[j], m[j]} : Source4<T>{T(0), T(0), T(0), T(0)};
    __syncthreads();
#pragma unroll Policy::kUnroll
    for (int k = 0; k < Policy::kBlock; ++k) {
      const Source4<T> s = tile[k];
      pair.accumulate(s.x - xi, s.y - yi, s.z - zi, s.m, sx, sy, sz);
    }
    __syncthreads();
  }
  if (i < n) {
    ax[i] = G * sx;
    ay[i] = G * sy;
    az[i] = G * sz;
  }
}

// Per-block partial sums of m_i phi_i (phi_i excluding j = i), each target's sum in float64.
template <class T, class Policy, class Pair>
__global__ void __launch_bounds__(Policy::kBlock)
    tiled_potential(const T* __restrict__ x, const T* __restrict__ y, const T* __restrict__ z,
                    const T* __restrict__ m, int n, Pair pair, double* __restrict__ block_sums) {
  __shared__ Source4<T> tile[Policy::kBlock];
  __shared__ double scratch[Policy::kBlock / 32];
  const int i = blockIdx.x * Policy::kBlock + threadIdx.x;
  const T xi = i < n ? x[i] : T(0);
  const T yi = i < n ? y[i] : T(0);
  const T zi = i < n ? z[i] : T(0);
  double phi = 0;
  for (int base = 0; base < n; base += Policy::kBlock) {
    const int j = base + threadIdx.x;
    tile[threadIdx.x] = j < n ? Source4<T>{x[j], y[j], z[j], m[j]} : Source4<T>{T(0), T(0), T(0), T(0)};
    __syncthreads();
    const int count = min(Policy::kBlock, n - base);
    for (int k = 0; k < count; ++k) {
      if (base + k == i) continue;
      const Source4<T> s = tile[k];
      phi += double(pair.potential(s.x - xi, s.y - yi, s.z - zi, s.m));
    }
    __syncthreads();
  }
  const double w = i < n ? double(m[i]) * phi : 0.0;
  const double total = nbody::cuda::block_sum<Policy::kBlock>(w, scratch);
  if (threadIdx.x == 0) block_sums[blockIdx.x] = total;
}

}  // namespace nbody::direct::cuda
