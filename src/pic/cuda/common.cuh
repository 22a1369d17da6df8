#pragma once
// The device types that the PIC kernels of several files share: a species' arrays as the kernels
// see them, the plain float64 and the per-particle accumulators, the emptied-slot list of a block,
// and the tile geometry. Device code only; included by the .cu files that launch the kernels.

#include <cstddef>
#include <cstdint>

#include "pic/cuda/device_arrays.hpp"
#include "pic/parallel/slab_index.hpp"
#include "pic/physics/grid.hpp"

namespace nbody::pic {
namespace {

// (the kernels' parameter types: device_arrays.hpp's, with the device functions)
struct DevParticles : DeviceSpecies {};

struct AtomicAccumulate {
  __device__ void operator()(double* p, double v) const { atomicAdd(p, v); }
};

// Writes a particle's contributions into its own K x K x 3 slots of the buffer.
template <int K>
struct LocalAccumulate {
  double* jbase[3];
  std::size_t grid_size;
  int sx;
  int bxg, byg;  // the stencil's first point, in padded indices
  double* out;
  std::size_t stride;  // particle slots
  std::size_t p;
  __device__ void operator()(double* ptr, double v) const {
    for (int c = 0; c < 3; ++c) {
      if (ptr >= jbase[c] && ptr < jbase[c] + grid_size) {
        const std::size_t idx = std::size_t(ptr - jbase[c]);
        const int n = int(idx / std::size_t(sx)) - byg, m = int(idx % std::size_t(sx)) - bxg;
        out[(std::size_t((c * K + n) * K + m)) * stride + p] += v;
        return;
      }
    }
  }
};

// A block among several (the atomic and warp kernels): the slots that empty in the particle
// kernel, because the particle was absorbed or its cell left the block, appended in no fixed
// order for the migration, which then reads only these (not every slot). At most cap are noted;
// the count goes on past it (the migration then selects the slots itself). Off: slots null.
struct EmptiedList : EmptiedSlots {
  __device__ void note(std::size_t i) const {
    const unsigned k = atomicAdd(count, 1u);
    if (k < cap) slots[k] = unsigned(i);
  }
  // (DomainPic::migrate's rule: a particle stays while its cell is in the block's column and row)
  __device__ bool leaves(double x, double y) const { return own(x) != bx || row_own(y) != by; }
};

// The tiles of the tiled and redundant kernels and of the sort by tile.
constexpr int kTile = 16;                    // cells a side
constexpr int kHalo = 3;                     // the stencil's reach beyond the tile (TSC and CIC)
constexpr int kTileSpan = kTile + 2 * kHalo;  // points a side in shared memory

struct TileGeometry : TileGrid {
  // The cell (i, j) holding (x, y), clamped to the grid.
  __device__ int2 cell_of(double x, double y) const {
    const int i = int(floor((x - x0) / dx)), j = int(floor((y - y0) / dy));
    return make_int2(min(max(i, 0), nx - 1), min(max(j, 0), ny - 1));
  }
  __device__ unsigned tile_of(double x, double y) const {
    const int2 c = cell_of(x, y);
    return unsigned(c.y / kTile) * unsigned(tiles_x) + unsigned(c.x / kTile);
  }
  // The cell's row-major index.
  __device__ unsigned cell_index(double x, double y) const {
    const int2 c = cell_of(x, y);
    return unsigned(c.y) * unsigned(nx) + unsigned(c.x);
  }
};

}  // namespace
}  // namespace nbody::pic
