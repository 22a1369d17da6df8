#pragma once
// Deterministic block-wide sums: a fixed shuffle tree inside each warp, then the warp sums in
// index order. The same inputs give the same bits on every run.

namespace nbody::cuda {

template <class T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Sums v over the block; the result is valid in thread 0. `scratch` holds Block/32 values.
// Every thread of the block must call it.
template <int Block, class T>
__device__ __forceinline__ T block_sum(T v, T* scratch) {
  static_assert(Block % 32 == 0 && Block <= 1024, "block size must be a whole number of warps");
  constexpr int kWarps = Block / 32;
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  v = warp_sum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  T total = T(0);
  if (threadIdx.x == 0) {
#pragma unroll
    for (int w = 0; w < kWarps; ++w) total += scratch[w];
  }
  __syncthreads();  // scratch may be reused by the next call
  return total;
}

}  // namespace nbody::cuda

namespace nbody::cuda {

// The largest v over the block (exact, so any order gives the same bits); valid in thread 0.
// `scratch` holds Block/32 values. Every thread of the block must call it.
template <int Block, class T>
__device__ __forceinline__ T block_max(T v, T* scratch) {
  static_assert(Block % 32 == 0 && Block <= 1024, "block size must be a whole number of warps");
  constexpr int kWarps = Block / 32;
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    const T other = __shfl_down_sync(0xffffffffu, v, offset);
    v = other > v ? other : v;
  }
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  T best = v;
  if (threadIdx.x == 0) {
#pragma unroll
    for (int w = 0; w < kWarps; ++w) best = scratch[w] > best ? scratch[w] : best;
  }
  __syncthreads();  // scratch may be reused by the next call
  return best;
}

}  // namespace nbody::cuda
