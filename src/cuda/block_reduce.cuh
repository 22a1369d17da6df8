#pragma once
// Deterministic warp and block reductions: a fixed shuffle tree inside each warp, then the warp
// results in index order. The same inputs give the same bits on every run. One template for
// every operation (Sum, Max, MaxSigned).
#include <cuda/std/limits>

namespace nbody::cuda {

struct Sum {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return a + b;
  }
  template <class T>
  static __device__ __forceinline__ T identity() {
    return T(0);
  }
};

// The larger of two values. The identity: 0 for values >= 0 (norms: Max), -infinity (the lowest
// value of an integer type) for values of any sign (MaxSigned).
template <bool AnySign>
struct MaxOf {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return b > a ? b : a;
  }
  template <class T>
  static __device__ __forceinline__ T identity() {
    using L = ::cuda::std::numeric_limits<T>;
    if constexpr (!AnySign) {
      return T(0);
    } else if constexpr (L::has_infinity) {
      return -L::infinity();
    } else {
      return L::lowest();
    }
  }
};
using Max = MaxOf<false>;
using MaxSigned = MaxOf<true>;

template <class Op, class T>
__device__ __forceinline__ T warp_reduce(T v, Op op = {}) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}

// Reduces v over the block; the result is valid in thread 0. `scratch` holds Block/32 values.
// Every thread of the block must call it.
template <int Block, class Op, class T>
__device__ __forceinline__ T block_reduce(T v, T* scratch, Op op = {}) {
  static_assert(Block % 32 == 0 && Block <= 1024, "block size must be a whole number of warps");
  constexpr int kWarps = Block / 32;
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  v = warp_reduce(v, op);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  T total = Op::template identity<T>();
  if (threadIdx.x == 0) {
#pragma unroll
    for (int w = 0; w < kWarps; ++w) total = op(total, scratch[w]);
  }
  __syncthreads();  // scratch may be reused by the next call
  return total;
}

}  // namespace nbody::cuda
