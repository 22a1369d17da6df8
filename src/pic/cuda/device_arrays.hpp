#pragma once
// What the engine's host parts hold of the device state that the kernels take as parameters: a
// species' arrays, the tiles, a block's list of emptied slots. The kernels' own types
// (common.cuh: DevParticles, TileGeometry, EmptiedList) derive from these and add their device
// functions; they stay types of each kernel file's anonymous namespace, as the kernels
// themselves, whose symbols name them.
#include <cstddef>
#include <cstdint>

#include "pic/parallel/slab_index.hpp"
#include "pic/physics/particle_precision.hpp"

namespace nbody::pic {

// A species' slots on the device: the float64 arrays, or (ParticlePrecision::float32, cell not
// null) the float32 store of particle_precision.hpp, the other set null.
struct DeviceSpecies {
  double *x = nullptr, *y = nullptr, *ux = nullptr, *uy = nullptr, *uz = nullptr, *w = nullptr;
  std::uint32_t* cell = nullptr;  // float32: the cell, (row << cc.shift) | column over cc's grid
  float *ox = nullptr, *oy = nullptr, *fux = nullptr, *fuy = nullptr, *fuz = nullptr, *fw = nullptr;
  CellCoords cc;  // float32: the whole grid
  unsigned char* alive = nullptr;
  std::size_t n = 0;
  std::uint64_t* id = nullptr;  // the stable ids (slabs only; otherwise the slot is the id)
  std::size_t cap = 0;          // the slots allocated (slabs only)
};

// The tiles of the tiled and redundant kernels and of the sorts by tile or cell: tiles_x x tiles_y
// tiles of kTile x kTile cells (common.cuh) over nx x ny cells from (x0, y0).
struct TileGrid {
  int tiles_x = 1, tiles_y = 1, nx = 1, ny = 1;
  double x0 = 0, y0 = 0, dx = 1, dy = 1;
  [[nodiscard]] unsigned count() const { return unsigned(tiles_x) * unsigned(tiles_y); }
};

// A block among several (the atomic and warp kernels): where the particle kernel notes the slots
// that empty, at most cap of them (slots null: off), and the blocks' owners to tell a leaver.
struct EmptiedSlots {
  unsigned* slots = nullptr;
  unsigned* count = nullptr;
  unsigned cap = 0;
  SlabOwner own, row_own;  // the global columns' and rows' blocks
  int bx = 0, by = 0;      // this block's
};

}  // namespace nbody::pic
