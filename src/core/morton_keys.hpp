#pragma once
// Space-filling-curve keys: Morton (Z-order) keys of 21 bits per axis (63 bits) on a cube that
// holds every source. A key's top 3L bits name the octree cell of level L that holds the body
// (octant bits x, y, z from high to low), so bodies sorted by key are sorted cell by cell at
// every level and each cell is one contiguous range. Host and device. The tree (gravity/tree) and
// the domain decomposition (comm/sfc_domain) both cut space with them.
#include <cstdint>

#include "core/hd.hpp"

namespace nbody::sfc {

inline constexpr int kKeyBits = 21;  // bits per axis; also the deepest level of the tree
inline constexpr std::uint32_t kGridSize = std::uint32_t{1} << kKeyBits;

// The 21 low bits of v moved to every third bit (bit k to bit 3k).
NBODY_HD std::uint64_t spread_bits(std::uint32_t v) {
  std::uint64_t x = v & (kGridSize - 1);
  x = (x | x << 32) & 0x001f00000000ffffULL;
  x = (x | x << 16) & 0x001f0000ff0000ffULL;
  x = (x | x << 8) & 0x100f00f00f00f00fULL;
  x = (x | x << 4) & 0x10c30c30c30c30c3ULL;
  x = (x | x << 2) & 0x1249249249249249ULL;
  return x;
}

// The inverse of spread_bits: every third bit (from bit 0) gathered into 21 bits.
NBODY_HD std::uint32_t compact_bits(std::uint64_t x) {
  x &= 0x1249249249249249ULL;
  x = (x ^ (x >> 2)) & 0x10c30c30c30c30c3ULL;
  x = (x ^ (x >> 4)) & 0x100f00f00f00f00fULL;
  x = (x ^ (x >> 8)) & 0x001f0000ff0000ffULL;
  x = (x ^ (x >> 16)) & 0x001f00000000ffffULL;
  x = (x ^ (x >> 32)) & 0x00000000001fffffULL;
  return static_cast<std::uint32_t>(x);
}

NBODY_HD std::uint64_t morton_key(std::uint32_t ix, std::uint32_t iy, std::uint32_t iz) {
  return spread_bits(ix) << 2 | spread_bits(iy) << 1 | spread_bits(iz);
}

// The octant (0..7, bits x y z) of the cell of level `level` + 1 holding a key, inside its cell
// of level `level`.
NBODY_HD unsigned octant(std::uint64_t key, int level) {
  return static_cast<unsigned>((key >> (3 * (kKeyBits - 1 - level))) & 7u);
}

// The cube [origin, origin + size)^3 cut into 2^21 cells per axis.
template <class R>
struct KeyBox {
  R x0, y0, z0;  // the lower corner
  R size;        // the side (> 0)

  // The grid coordinate of x along an axis starting at x0, clamped into the grid (a target
  // outside the box of the sources gets the nearest cell's key).
  NBODY_HD std::uint32_t grid(R x, R origin) const {
    const R u = (x - origin) / size * R(kGridSize);
    if (!(u > R(0))) return 0;  // also NaN
    if (u >= R(kGridSize - 1)) return kGridSize - 1;
    return static_cast<std::uint32_t>(u);
  }
  NBODY_HD std::uint64_t key(R x, R y, R z) const { return morton_key(grid(x, x0), grid(y, y0), grid(z, z0)); }
};

}  // namespace nbody::sfc
