#pragma once
// Tile-sorted particles through shared memory (DepositKernel::tiled): one block a tile.

#include <cstddef>

#include "cuda/block_reduce.cuh"
#include "pic/cuda/common.cuh"
#include "pic/physics/particle_step.hpp"

namespace nbody::pic {
namespace {

constexpr int kTileBlock = 256;

// A contribution inside the block's tile and halo goes to shared memory (shared float64
// atomics); outside (a particle that left its tile since the last sort), to the grid.
struct SharedTileAccumulate {
  double* jbase[3];
  std::size_t grid_size;
  int sx;
  double* tile;  // shared: [3][kTileSpan][kTileSpan]
  int gx0, gy0;  // padded index of the shared array's first point
  __device__ void operator()(double* ptr, double v) const {
    for (int c = 0; c < 3; ++c) {
      if (ptr >= jbase[c] && ptr < jbase[c] + grid_size) {
        const std::size_t idx = std::size_t(ptr - jbase[c]);
        const int li = int(idx % std::size_t(sx)) - gx0, lj = int(idx / std::size_t(sx)) - gy0;
        if (li >= 0 && li < kTileSpan && lj >= 0 && lj < kTileSpan) {
          atomicAdd(tile + (c * kTileSpan + lj) * kTileSpan + li, v);
        } else {
          atomicAdd(ptr, v);
        }
        return;
      }
    }
  }
};

// One block a tile: its particles (slots [start, end) since the last sort) through the particle
// step into shared memory, then the tile into the grid. counters[0] += particles now outside
// their tile's cells, counters[1] += particles absorbed.
template <class Shape>
__global__ void __launch_bounds__(kTileBlock)
    particles_tiled(DevParticles d, FieldViews v, PushParams pp, const unsigned* start, const unsigned* end,
                    TileGeometry tg, double* jx, double* jy, double* jz, std::size_t grid_size, int sx, int rows,
                    unsigned long long* counters) {
  __shared__ double tile[3 * kTileSpan * kTileSpan];
  __shared__ unsigned long long scratch[kTileBlock / 32];
  const unsigned t = blockIdx.x;
  const int ti = int(t % unsigned(tg.tiles_x)), tj = int(t / unsigned(tg.tiles_x));
  for (int k = threadIdx.x; k < 3 * kTileSpan * kTileSpan; k += blockDim.x) tile[k] = 0;
  __syncthreads();
  const int gx0 = ti * kTile - kHalo + kGuard, gy0 = tj * kTile - kHalo + kGuard;
  const SharedTileAccumulate acc{{jx, jy, jz}, grid_size, sx, tile, gx0, gy0};
  unsigned long long moved = 0, absorbed = 0;
  for (unsigned s = start[t] + threadIdx.x; s < end[t]; s += blockDim.x) {
    if (!d.alive[s]) continue;
    ParticleRef r = d.load(s);
    if (advance_particle<Shape>(r, s, v, pp, acc)) {
      d.store(s, r);
      moved += tg.tile_of(r.x, r.y) != t;
    } else {
      d.alive[s] = 0;
      ++absorbed;
    }
  }
  __syncthreads();
  double* jb[3] = {jx, jy, jz};
  for (int k = threadIdx.x; k < 3 * kTileSpan * kTileSpan; k += blockDim.x) {
    const double val = tile[k];
    if (val == 0.0) continue;
    const int c = k / (kTileSpan * kTileSpan), rem = k % (kTileSpan * kTileSpan);
    const int gj = gy0 + rem / kTileSpan, gi = gx0 + rem % kTileSpan;
    if (gi < 0 || gi >= sx || gj < 0 || gj >= rows) continue;  // never written (no such point)
    atomicAdd(jb[c] + std::size_t(gj) * std::size_t(sx) + std::size_t(gi), val);
  }
  moved = nbody::cuda::block_reduce<kTileBlock>(moved, scratch, nbody::cuda::Sum{});
  absorbed = nbody::cuda::block_reduce<kTileBlock>(absorbed, scratch, nbody::cuda::Sum{});
  if (threadIdx.x == 0) {
    if (moved) atomicAdd(counters, moved);
    if (absorbed) atomicAdd(counters + 1, absorbed);
  }
}

}  // namespace
}  // namespace nbody::pic
