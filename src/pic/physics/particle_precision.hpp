#pragma once
// How the GPU path stores its particles (solver.particle_precision; docs/pic_optimization.md,
// "The float32 particle store"):
//   float64  x, y, ux, uy, uz, w as doubles (48 bytes a particle; the default)
//   float32  the cell (its row and column over the whole grid packed in 32 bits), the offsets in the cell along x
//            and y as float32 multiples of 2^-24 in [0, 1), ux, uy, uz and w as float32
//            (28 bytes a particle)
// The offsets keep a uniform resolution of 2^-24 cell (6e-8 cell) anywhere in the grid, where a
// float32 absolute coordinate would resolve only ~1.2e-7 of the coordinate itself (5e-4 cell at
// cell 4096: an ion moving 1e-4 cell a step would not move). The fixed quantum also makes the
// host's float64 copy of a position (x0 + (i + o) dx) encode back to the same cell and offset
// (encode_axis), so a checkpoint of a float32 run restores its bits.
//
// Shared by the CUDA kernels and the host (the upload, the tests): __host__ __device__.
#include <cmath>
#include <cstdint>
#include <string>

#include "core/hd.hpp"
#include "pic/physics/grid.hpp"
#include "pic/physics/species.hpp"

namespace nbody::pic {

enum class ParticlePrecision { float64, float32 };

[[nodiscard]] inline const char* particle_precision_name(ParticlePrecision p) noexcept {
  return p == ParticlePrecision::float32 ? "float32" : "float64";
}
// "float64" or "float32"; false for anything else.
[[nodiscard]] inline bool parse_particle_precision(const std::string& s, ParticlePrecision& out) {
  if (s == "float64") out = ParticlePrecision::float64;
  else if (s == "float32") out = ParticlePrecision::float32;
  else return false;
  return true;
}

// The offsets' quantum: 2^-24 cell (a multiple of it below 1 is exact in float32).
inline constexpr double kOffsetSteps = 16777216.0;  // 2^24

// The grid the float32 store's cells count on (the whole grid's, on a block too). A cell is
// stored as (row << shift) | column, shift the bits of nx - 1: a shift and a mask to decode.
struct CellCoords {
  double x0 = 0, y0 = 0, dx = 1, dy = 1;
  int nx = 1, ny = 1;
  int shift = 0;
};

// The bits that hold 0 .. n - 1.
[[nodiscard]] constexpr int bits_for(int n) {
  int b = 0;
  while (b < 31 && (1ll << b) < n) ++b;
  return b;
}
[[nodiscard]] inline CellCoords cell_coords(double x0, double y0, double dx, double dy, int nx, int ny) {
  return {x0, y0, dx, dy, nx, ny, bits_for(nx)};
}
// Whether the store can hold every cell of an nx x ny grid in 32 bits.
[[nodiscard]] constexpr bool cells_fit_32_bits(int nx, int ny) { return bits_for(nx) + bits_for(ny) <= 32; }

// A coordinate xi in cell units split into its cell i in [0, n) and its offset o in [0, 1),
// rounded to the nearest multiple of 2^-24 (a round-up to 1 goes to the next cell's 0). A
// coordinate outside [0, n) is clamped (the step keeps particles inside; a wrap may round onto
// the upper edge). Exact inverse of decode_axis for |xi| < 2^26: decode gives i + o exactly in
// float64, and any float64 error below 2^-26 cell rounds back to the same (i, o).
PIC_HD void encode_axis(double xi, int n, int& i, float& o) {
  double fl = floor(xi);
  double q = rint((xi - fl) * kOffsetSteps);  // (xi - fl is exact; the scaling by 2^24 too)
  if (q >= kOffsetSteps) q = 0, fl += 1;
  if (!(fl >= 0)) fl = 0, q = 0;  // (NaN too)
  if (fl >= double(n)) fl = double(n - 1), q = kOffsetSteps - 1;
  i = int(fl);
  o = float(q * (1.0 / kOffsetSteps));
}

// i + o, exact in float64 (i < 2^29).
PIC_HD double decode_axis(int i, float o) { return double(i) + double(o); }

// A position in the float32 store: the cell ((row << shift) | column) and the two offsets.
struct PackedPosition {
  std::uint32_t cell;
  float ox, oy;
};

PIC_HD PackedPosition encode_position(double x, double y, const CellCoords& c) {
  int i = 0, j = 0;
  PackedPosition p{};
  encode_axis((x - c.x0) * (1.0 / c.dx), c.nx, i, p.ox);
  encode_axis((y - c.y0) * (1.0 / c.dy), c.ny, j, p.oy);
  p.cell = (std::uint32_t(j) << c.shift) | std::uint32_t(i);
  return p;
}

// The position in physical units (the float64 arithmetic's input): one fused multiply-add an
// axis, so that the host and the device (where nvcc would fuse x0 + xi dx anyway) decode the same
// bits, and every decision taken on a decoded position (its block, its cell) is the same there.
PIC_HD void decode_position(const PackedPosition& p, const CellCoords& c, double& x, double& y) {
  const int j = int(p.cell >> c.shift), i = int(p.cell & ((std::uint32_t(1) << c.shift) - 1u));
  x = fma(decode_axis(i, p.ox), c.dx, c.x0);
  y = fma(decode_axis(j, p.oy), c.dy, c.y0);
}

// The cells of grid g (the whole grid) as the float32 store counts them.
[[nodiscard]] inline CellCoords store_cells_of(const GridGeometry& g) {
  return cell_coords(g.x0, g.y0, g.dx, g.dy, g.nx, g.ny);
}

// The species' particles as the float32 store holds them, in float64 (host code): each position
// moved to decode(encode(x)) (at most 2^-25 cell), the momenta and the weight rounded to float32.
// What the GPU path uploads and brings back; applied to the host state of a float32 run before
// its Gauss reference is measured, so that the reference is the stored plasma's.
inline void round_to_float32_store(Species& s, const CellCoords& c) {
  for (std::size_t p = 0; p < s.size(); ++p) {
    decode_position(encode_position(s.x[p], s.y[p], c), c, s.x[p], s.y[p]);
    s.ux[p] = double(float(s.ux[p])), s.uy[p] = double(float(s.uy[p])), s.uz[p] = double(float(s.uz[p]));
    s.w[p] = double(float(s.w[p]));
  }
}

}  // namespace nbody::pic
