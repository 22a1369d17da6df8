#pragma once
// Sorting a species' slots on the device (by tile, by cell, by id): the keys, the permutation of
// the arrays, the count of live slots after a sort, the ranges of equal keys.

#include <cstddef>

#include "pic/cuda/common.cuh"

namespace nbody::pic {
namespace {

// The sort key of every live particle, its tile or (kByCell) its cell (row-major); dead ones
// get the sentinel.
template <bool kByCell>
__global__ void sort_keys(DevParticles d, TileGeometry tg, unsigned* keys, unsigned* order, unsigned sentinel) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < d.n; i += stride) {
    order[i] = unsigned(i);
    if (!d.alive[i]) {
      keys[i] = sentinel;
    } else if constexpr (kByCell) {
      keys[i] = tg.cell_index(d.px(i), d.py(i));
    } else {
      keys[i] = tg.tile_of(d.px(i), d.py(i));
    }
  }
}

template <class T>
__global__ void gather_by(T* out, const T* in, const unsigned* order, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = in[order[i]];
}

// The number of sorted keys below the sentinel (the live particles): the first sentinel's index.
__global__ void first_sentinel(const unsigned* keys, std::size_t n, unsigned sentinel, unsigned long long* live) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    if (keys[i] == sentinel && (i == 0 || keys[i - 1] != sentinel)) *live = i;
}

// The slots [start[k], end[k]) of each key k below the sentinel in the sorted keys.
__global__ void cell_ranges(const unsigned* keys, std::size_t n, unsigned sentinel, unsigned* start, unsigned* end) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t s = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; s < n; s += stride) {
    const unsigned k = keys[s];
    if (k == sentinel) continue;
    if (s == 0 || keys[s - 1] != k) start[k] = unsigned(s);
    if (s + 1 == n || keys[s + 1] != k) end[k] = unsigned(s + 1);
  }
}

__global__ void iota_kernel(unsigned* order, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) order[i] = unsigned(i);
}

}  // namespace
}  // namespace nbody::pic
