#pragma once
// The device types that the PIC kernels of several files share: a species' arrays as the kernels
// see them, the plain float64 and the per-particle accumulators, the emptied-slot list of a block,
// and the tile geometry. Device code only; included by the .cu files that launch the kernels.

#include <cstddef>
#include <cstdint>

#include "pic/cuda/device_arrays.hpp"
#include "pic/parallel/slab_index.hpp"
#include "pic/physics/grid.hpp"
#include "pic/physics/particle_precision.hpp"
#include "pic/physics/particle_step.hpp"

namespace nbody::pic {
namespace {

// (the kernels' parameter types: device_arrays.hpp's, with the device functions)
// A particle's values in float64 whatever the store: load / store convert from and to the
// float32 store (particle_precision.hpp) where it is the species' (cell not null). The _as<F32>
// forms are the store known at compile time (the warp kernel's instantiations); the others
// ask (one uniform branch).
struct DevParticles : DeviceSpecies {
  __device__ bool f32() const { return cell != nullptr; }
  template <bool F32>
  __device__ ParticleRef load_as(std::size_t i) const {
    if constexpr (F32) {
      ParticleRef r;
      decode_position(PackedPosition{cell[i], ox[i], oy[i]}, cc, r.x, r.y);
      r.ux = double(fux[i]), r.uy = double(fuy[i]), r.uz = double(fuz[i]), r.w = double(fw[i]);
      return r;
    } else {
      return ParticleRef{x[i], y[i], ux[i], uy[i], uz[i], w[i]};
    }
  }
  // The position, momenta (not the weight) of slot i.
  template <bool F32>
  __device__ void store_as(std::size_t i, const ParticleRef& r) const {
    if constexpr (F32) {
      const PackedPosition p = encode_position(r.x, r.y, cc);
      cell[i] = p.cell, ox[i] = p.ox, oy[i] = p.oy;
      fux[i] = float(r.ux), fuy[i] = float(r.uy), fuz[i] = float(r.uz);
    } else {
      x[i] = r.x, y[i] = r.y, ux[i] = r.ux, uy[i] = r.uy, uz[i] = r.uz;
    }
  }
  // The position the store holds for r's (x, y): itself in float64, decode(encode()) in float32;
  // what every decision on a stored particle (its block, its cell) is taken on.
  template <bool F32>
  __device__ double2 stored_pos_as(const ParticleRef& r) const {
    double2 q = make_double2(r.x, r.y);
    if constexpr (F32) decode_position(encode_position(r.x, r.y, cc), cc, q.x, q.y);
    return q;
  }
  // store_as after a move that finish_move kept: the float32 store takes the position the move
  // encoded already (snap_to_store; what store_as would encode again), the momenta from r.
  template <bool F32>
  __device__ void store_moved_as(std::size_t i, const ParticleRef& r, const ParticleMove& mv) const {
    if constexpr (F32) {
      cell[i] = mv.stored.cell, ox[i] = mv.stored.ox, oy[i] = mv.stored.oy;
      fux[i] = float(r.ux), fuy[i] = float(r.uy), fuz[i] = float(r.uz);
    } else {
      store_as<false>(i, r);
    }
  }
  // stored_pos_as after such a move.
  template <bool F32>
  __device__ double2 stored_pos_moved_as(const ParticleRef& r, const ParticleMove& mv) const {
    double2 q = make_double2(r.x, r.y);
    if constexpr (F32) decode_position(mv.stored, cc, q.x, q.y);
    return q;
  }
  __device__ ParticleRef load(std::size_t i) const { return f32() ? load_as<true>(i) : load_as<false>(i); }
  __device__ void store(std::size_t i, const ParticleRef& r) const {
    if (f32()) store_as<true>(i, r);
    else store_as<false>(i, r);
  }
  // The weight too (an arrival).
  __device__ void store_all(std::size_t i, const ParticleRef& r) const {
    store(i, r);
    if (f32()) fw[i] = float(r.w);
    else w[i] = r.w;
  }
  __device__ double2 pos(std::size_t i) const {
    if (!f32()) return make_double2(x[i], y[i]);
    double2 p;
    decode_position(PackedPosition{cell[i], ox[i], oy[i]}, cc, p.x, p.y);
    return p;
  }
  __device__ double px(std::size_t i) const { return pos(i).x; }
  __device__ double py(std::size_t i) const { return pos(i).y; }
  __device__ double pux(std::size_t i) const { return f32() ? double(fux[i]) : ux[i]; }
  __device__ double puy(std::size_t i) const { return f32() ? double(fuy[i]) : uy[i]; }
  __device__ double puz(std::size_t i) const { return f32() ? double(fuz[i]) : uz[i]; }
  __device__ double pw(std::size_t i) const { return f32() ? double(fw[i]) : w[i]; }
  // Slot a takes slot b's values (not its id or alive flag), bit for bit.
  __device__ void move_slot(std::size_t a, std::size_t b) const {
    if (f32()) {
      cell[a] = cell[b], ox[a] = ox[b], oy[a] = oy[b], fux[a] = fux[b], fuy[a] = fuy[b], fuz[a] = fuz[b], fw[a] = fw[b];
    } else {
      x[a] = x[b], y[a] = y[b], ux[a] = ux[b], uy[a] = uy[b], uz[a] = uz[b], w[a] = w[b];
    }
  }
};

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
