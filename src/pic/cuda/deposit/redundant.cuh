#pragma once
// Document 004's dynamic redundancy (DepositKernel::redundant).

#include <cmath>
#include <cstddef>

#include "pic/cuda/common.cuh"
#include "pic/physics/particle_step.hpp"

namespace nbody::pic {
namespace {

// ---- Dynamic redundancy (document 004) --------------------------------------------------------
constexpr int kSubCopies = 4;          // a dense tile's copies split by the particle's cell quadrant
constexpr int kRedundancyRefresh = 50;  // steps between choices of the dense tiles

// Per particle: the stencil position (n, m) of a contribution picks its copy; in a dense tile the
// copy is split again by the particle's quadrant and lives in the tile's pool slab.
template <int K>
struct RedundantAccumulate {
  double* jbase[3];
  std::size_t grid_size;
  int sx;
  int bxg, byg;              // the stencil's first point (padded indices)
  double* copies;            // [K*K][3][grid_size]
  double* pool;              // [slot][K*K*kSubCopies][3][kTileSpan^2], or null (not dense)
  int sub;                   // quadrant, in a dense tile
  int gx0, gy0;              // the tile span's first point (padded), in a dense tile
  __device__ void operator()(double* ptr, double v) const {
    for (int c = 0; c < 3; ++c) {
      if (ptr >= jbase[c] && ptr < jbase[c] + grid_size) {
        const std::size_t idx = std::size_t(ptr - jbase[c]);
        const int row = int(idx / std::size_t(sx)), col = int(idx % std::size_t(sx));
        const int dir = (row - byg) * K + (col - bxg);
        if (pool) {
          const int li = col - gx0, lj = row - gy0;
          if (li >= 0 && li < kTileSpan && lj >= 0 && lj < kTileSpan) {
            atomicAdd(pool + ((std::size_t(dir * kSubCopies + sub) * 3 + std::size_t(c)) * kTileSpan + std::size_t(lj)) *
                                 kTileSpan + std::size_t(li),
                      v);
            return;
          }
        }
        atomicAdd(copies + (std::size_t(dir) * 3 + std::size_t(c)) * grid_size + idx, v);
        return;
      }
    }
  }
};

template <class Shape>
__global__ void particles_redundant(DevParticles d, FieldViews v, PushParams pp, TileGeometry tg, double* jx, double* jy,
                                    double* jz, std::size_t grid_size, int sx, double* copies, double* pool,
                                    const int* dense_slot) {
  constexpr int K = Shape::support + 2;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < d.n; i += stride) {
    if (!d.alive[i]) continue;
    const double xi0 = (d.px(i) - pp.x0) / pp.dx, yi0 = (d.py(i) - pp.y0) / pp.dy;
    RedundantAccumulate<K> acc{{jx, jy, jz}, grid_size, sx, Shape::first(xi0) - 1 + kGuard, Shape::first(yi0) - 1 + kGuard,
                               copies, nullptr, 0, 0, 0};
    const unsigned t = tg.tile_of(d.px(i), d.py(i));
    const int slot = dense_slot[t];
    if (slot >= 0) {
      const int ti = int(t % unsigned(tg.tiles_x)), tj = int(t / unsigned(tg.tiles_x));
      acc.pool = pool + std::size_t(slot) * std::size_t(K * K * kSubCopies) * 3 * kTileSpan * kTileSpan;
      acc.sub = (xi0 - floor(xi0) >= 0.5 ? 1 : 0) + (yi0 - floor(yi0) >= 0.5 ? 2 : 0);
      acc.gx0 = ti * kTile - kHalo + kGuard;
      acc.gy0 = tj * kTile - kHalo + kGuard;
    }
    ParticleRef r = d.load(i);
    if (advance_particle<Shape>(r, i, v, pp, acc)) {
      d.store(i, r);
    } else {
      d.alive[i] = 0;
    }
  }
}

// J += the directional copies, in copy order (one thread a grid point).
__global__ void reduce_copies(double* jx, double* jy, double* jz, const double* copies, int ncopies, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    double s[3] = {0, 0, 0};
    for (int k = 0; k < ncopies; ++k)
      for (int c = 0; c < 3; ++c) s[c] += copies[(std::size_t(k) * 3 + std::size_t(c)) * n + i];
    jx[i] += s[0];
    jy[i] += s[1];
    jz[i] += s[2];
  }
}

// One block a dense tile: its pool slab's copies summed per point and added to the grid (float64
// atomics: the spans of neighbouring dense tiles overlap).
__global__ void reduce_pool(double* jx, double* jy, double* jz, const double* pool, const unsigned* dense_tiles,
                            int ncopies, TileGeometry tg, int sx, int rows) {
  const unsigned t = dense_tiles[blockIdx.x];
  const int ti = int(t % unsigned(tg.tiles_x)), tj = int(t / unsigned(tg.tiles_x));
  const int gx0 = ti * kTile - kHalo + kGuard, gy0 = tj * kTile - kHalo + kGuard;
  const double* slab = pool + std::size_t(blockIdx.x) * std::size_t(ncopies) * 3 * kTileSpan * kTileSpan;
  double* jb[3] = {jx, jy, jz};
  for (int k = threadIdx.x; k < 3 * kTileSpan * kTileSpan; k += blockDim.x) {
    const int c = k / (kTileSpan * kTileSpan), p = k % (kTileSpan * kTileSpan);
    double s = 0;
    for (int q = 0; q < ncopies; ++q) s += slab[(std::size_t(q) * 3 + std::size_t(c)) * kTileSpan * kTileSpan + std::size_t(p)];
    if (s == 0.0) continue;
    const int gi = gx0 + p % kTileSpan, gj = gy0 + p / kTileSpan;
    if (gi < 0 || gi >= sx || gj < 0 || gj >= rows) continue;
    atomicAdd(jb[c] + std::size_t(gj) * std::size_t(sx) + std::size_t(gi), s);
  }
}

__global__ void count_tiles(DevParticles d, TileGeometry tg, unsigned* counts) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < d.n; i += stride)
    if (d.alive[i]) atomicAdd(counts + tg.tile_of(d.px(i), d.py(i)), 1u);
}

}  // namespace
}  // namespace nbody::pic
