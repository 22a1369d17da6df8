#pragma once
// The live particles of each of a slab's cell columns, counted on the device (the load balance).

#include <cstddef>

#include "pic/cuda/common.cuh"
#include "pic/parallel/slab_index.hpp"

namespace nbody::pic {
namespace {

// The live particles per slab column (the load balance's costs): integer atomics, exact.
// The live particles of each of the block's ncols cell columns, added into counts. With
// `shared` a block counts into shared memory (ncols 32-bit counters) and adds its nonzero
// counts once at the end (a few blocks a multiprocessor: the particles lie sorted by cell, so
// counting straight into global memory would queue every thread of a warp on one address);
// the lanes of a warp in one column count together either way.
__global__ void count_columns(DevParticles d, SlabOwner own, int ioff, int ncols, unsigned long long* counts,
                              bool shared) {
  extern __shared__ unsigned column_bins[];
  if (shared) {
    for (int c = threadIdx.x; c < ncols; c += blockDim.x) column_bins[c] = 0;
    __syncthreads();
  }
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  const unsigned lane = threadIdx.x % 32u;
  // (every lane of a warp goes round the same number of times: the match below needs them all)
  for (std::size_t base = std::size_t(blockIdx.x) * blockDim.x + (threadIdx.x - lane); base < d.n; base += stride) {
    const std::size_t i = base + lane;
    int c = -1;
    if (i < d.n && d.alive[i]) {
      c = own.column(d.px(i)) - ioff;
      c = c < 0 ? 0 : (c > ncols - 1 ? ncols - 1 : c);
    }
    const unsigned same = __match_any_sync(0xffffffffu, c);
    if (c >= 0 && lane == unsigned(__ffs(same) - 1)) {
      const unsigned n = unsigned(__popc(same));
      if (shared) atomicAdd(&column_bins[c], n);
      else atomicAdd(counts + c, static_cast<unsigned long long>(n));
    }
  }
  if (shared) {
    __syncthreads();
    for (int c = threadIdx.x; c < ncols; c += blockDim.x)
      if (column_bins[c] != 0) atomicAdd(counts + c, static_cast<unsigned long long>(column_bins[c]));
  }
}

}  // namespace
}  // namespace nbody::pic
