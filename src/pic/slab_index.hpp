#pragma once
// The slab arithmetic shared by the host and the device code of the GPU slabs (pic/gpu_slabs.hpp).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "pic/grid.hpp"
#include "pic/hd.hpp"

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

// The layout of a guard message: `arrays` arrays of the slab (rows = ny + 2 kGuard), the kGuard
// columns starting at first_column, every row: value (a, j, i) at ((a * rows + j + kGuard) *
// kGuard + i - first_column). DomainPic's messages have this layout too.
PIC_HD std::size_t guard_index(int a, int j, int di, int rows) {
  return (std::size_t(a) * std::size_t(rows) + std::size_t(j + kGuard)) * std::size_t(kGuard) + std::size_t(di);
}

// The arrived migration records (kMigrationWords words each) of species k, sorted by id: the
// order they are appended in (pic/gpu_slabs.cpp).
std::vector<std::uint64_t> arrivals_of(const std::vector<std::uint64_t>& records, std::size_t k);

}  // namespace nbody::pic
