#pragma once
// The slab arithmetic shared by the host and the device code of the GPU slabs (pic/gpu_slabs.hpp).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/hd.hpp"
#include "pic/physics/grid.hpp"

namespace nbody::pic {

// The rank that owns the cell column of a position: the column as floor((x - x0) * (1 / dx)),
// clamped into the grid, then the last slab starting at or before it (SlabLayout::starts). One
// arithmetic for DomainPic, its GPU slabs and the device kernels.
struct SlabOwner {
  double x0 = 0, dx = 1;
  int nx = 1, ranks = 1;
  const int* starts = nullptr;  // ranks + 1 first columns, in the caller's memory (host or device)
  PIC_HD int column(double x) const {
    const double inv_dx = 1.0 / dx;
    int c = int(std::floor((x - x0) * inv_dx));
    return c < 0 ? 0 : (c > nx - 1 ? nx - 1 : c);
  }
  PIC_HD int operator()(double x) const {
    const int c = column(x);
    int lo = 0, hi = ranks - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (starts[mid] <= c) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
};

// Where a particle of the block (bx, by) goes when its cell lies in block column ox and block row
// oy (DomainPic::migrate's rule, the device's too): along x first when its block column changed
// (right first where both neighbours are one rank), else along y (up first); `beyond` when the
// block is not a neighbour. Neighbours as block indices (-1: none); block_move_neighbours makes
// them from a SlabLayout-like block's ranks.
enum class BlockMove : unsigned char { stay, left, right, down, up, beyond };
struct BlockNeighbours {
  int bx = 0, by = 0;
  int left = -1, right = -1, down = -1, up = -1;  // block column (left, right) and row (down, up) indices
  PIC_HD BlockMove operator()(int ox, int oy) const {
    if (ox != bx) return ox == right ? BlockMove::right : (ox == left ? BlockMove::left : BlockMove::beyond);
    if (oy == by) return BlockMove::stay;
    return oy == up ? BlockMove::up : (oy == down ? BlockMove::down : BlockMove::beyond);
  }
};
// From the ranks of the neighbours (-1: none), rank = row x ranks_x + column.
inline BlockNeighbours block_neighbours(int bx, int by, int ranks_x, int left, int right, int down, int up) {
  BlockNeighbours n;
  n.bx = bx, n.by = by;
  n.left = left >= 0 ? left % ranks_x : -1, n.right = right >= 0 ? right % ranks_x : -1;
  n.down = down >= 0 ? down / ranks_x : -1, n.up = up >= 0 ? up / ranks_x : -1;
  return n;
}

// A guard message: the values of some arrays of a block in the rectangle [i0, i1) x [j0, j1) of
// its points (local indices; guards negative or past the block), array by array, row by row,
// column by column: item k of each array is point(k). One arithmetic for the CPU blocks'
// messages (pack_region below, pic/domain.cpp) and the GPU blocks' pack and unpack kernels.
struct GuardRegion {
  int i0 = 0, i1 = 0, j0 = 0, j1 = 0;
  [[nodiscard]] PIC_HD std::size_t size() const { return std::size_t(i1 - i0) * std::size_t(j1 - j0); }
  PIC_HD void point(std::size_t k, int& i, int& j) const {
    const std::size_t w = std::size_t(i1 - i0);
    i = i0 + int(k % w);
    j = j0 + int(k / w);
  }
};
// A block's guard rows [first, first + kGuard) over every column (the x guards included), and its
// guard columns [first, first + kGuard) over every row.
inline GuardRegion guard_rows(const GridGeometry& g, int first) { return {-kGuard, g.nx + kGuard, first, first + kGuard}; }
inline GuardRegion guard_columns(const GridGeometry& g, int first) { return {first, first + kGuard, -kGuard, g.ny + kGuard}; }
// For the guard columns: value (a, j, i) at ((a * rows + j + kGuard) * kGuard + i - first) (rows =
// ny + 2 kGuard), what GuardRegion gives.
PIC_HD std::size_t guard_index(int a, int j, int di, int rows) {
  return (std::size_t(a) * std::size_t(rows) + std::size_t(j + kGuard)) * std::size_t(kGuard) + std::size_t(di);
}
// The region's values of `arrays` (each of row stride `stride`) in a message; what a neighbour
// packed copied into the region or (add) added to it, nothing when `in` is empty (no neighbour).
std::vector<double> pack_region(const std::vector<double*>& arrays, int stride, const GuardRegion& r);
void unpack_region(const std::vector<double>& in, const std::vector<double*>& arrays, int stride, const GuardRegion& r,
                   bool add);

// The arrived migration records (kMigrationWords words each) of species k, sorted by id: the
// order they are appended in (pic/gpu_slabs.cpp).
std::vector<std::uint64_t> arrivals_of(const std::vector<std::uint64_t>& records, std::size_t k);

}  // namespace nbody::pic
