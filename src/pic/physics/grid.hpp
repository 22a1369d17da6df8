#pragma once
// The 2D Yee grid. Cells of dx x dy; node (i, j) sits at (x0 + i dx, y0 + j dy). Staggering
// (the index [i][j] of each array stores the component at):
//   Ex (i+1/2, j)   Ey (i, j+1/2)   Ez (i, j)
//   Bx (i, j+1/2)   By (i+1/2, j)   Bz (i+1/2, j+1/2)
//   Jx, Jy, Jz as Ex, Ey, Ez;  rho at the nodes (i, j).
// Every array has kGuard guard cells on each side, so indices run from -kGuard to n + kGuard - 1.
// A periodic axis of n cells has the nodes 0 .. n-1 (node n is node 0); an open axis has the
// nodes 0 .. n, both boundary nodes included.
#include <cstddef>
#include <vector>

#include "core/hd.hpp"

namespace nbody::pic {

inline constexpr int kGuard = 4;

struct GridGeometry {
  int nx = 0, ny = 0;
  double dx = 1, dy = 1;
  double x0 = 0, y0 = 0;  // position of node (0, 0)

  [[nodiscard]] int stride() const { return nx + 2 * kGuard; }
  [[nodiscard]] int rows() const { return ny + 2 * kGuard; }
  [[nodiscard]] std::size_t size() const { return std::size_t(stride()) * std::size_t(rows()); }
  [[nodiscard]] double lx() const { return nx * dx; }
  [[nodiscard]] double ly() const { return ny * dy; }
};

// A raw view of one component, for loops and kernels.
struct FieldView {
  double* p = nullptr;
  int sx = 0;  // row stride
  int ioff = 0;  // the x index of the array's column 0 (a rank's slab, pic/domain.hpp; 0 otherwise)
  PIC_HD double& operator()(int i, int j) const { return p[(j + kGuard) * sx + (i - ioff + kGuard)]; }
  PIC_HD int index(int i, int j) const { return (j + kGuard) * sx + (i - ioff + kGuard); }
};

// The periodic fold of a source's guards onto their images: along y in column i (rows -1 ..
// -kGuard added to ny - 1 .. ny - kGuard, rows ny .. ny + kGuard - 1 to 0 .. kGuard - 1), along x
// in row j likewise. The outermost guard goes first, so that with fewer rows (columns) than guards
// a guard whose image is another guard has passed on what it received before that one is added
// in its turn: a grid of 1 to kGuard - 1 rows folds right for every shape. From 2 kGuard rows on
// no row receives twice, and the order changes no bit. One place for the host loops and the GPU
// kernels (the same adds in the same order).
PIC_HD void fold_periodic_column(const FieldView& v, int i, int ny) {
  for (int g = kGuard; g >= 1; --g) {
    v(i, ny - g) += v(i, -g);
    v(i, g - 1) += v(i, ny - 1 + g);
  }
}
PIC_HD void fold_periodic_row(const FieldView& v, int j, int nx) {
  for (int g = kGuard; g >= 1; --g) {
    v(nx - g, j) += v(-g, j);
    v(g - 1, j) += v(nx - 1 + g, j);
  }
}

enum Component { kEx, kEy, kEz, kBx, kBy, kBz, kJx, kJy, kJz, kRho, kComponents };
inline constexpr const char* kComponentNames[kComponents] = {"Ex", "Ey", "Ez", "Bx", "By",
                                                            "Bz", "Jx", "Jy", "Jz", "rho"};

// The fields on the host: one array per component.
enum PmlMemory { kPsiBy, kPsiBz, kPsiEy, kPsiEz, kPsiCount };

struct Fields {
  GridGeometry geom;
  std::vector<double> data[kComponents];
  // The PML's convolution memories (empty without a PML): psi of dEz/dx for By, dEy/dx for Bz,
  // dBz/dx for Ey, dBy/dx for Ez, at the position of the component they update.
  std::vector<double> psi[kPsiCount];

  Fields() = default;
  explicit Fields(const GridGeometry& g) : geom(g) {
    for (auto& d : data) d.assign(g.size(), 0.0);
  }
  [[nodiscard]] FieldView view(int c) { return {data[c].data(), geom.stride()}; }
  [[nodiscard]] double at(int c, int i, int j) const {
    return data[c][std::size_t(j + kGuard) * geom.stride() + std::size_t(i + kGuard)];
  }
  double& at(int c, int i, int j) {
    return data[c][std::size_t(j + kGuard) * geom.stride() + std::size_t(i + kGuard)];
  }
};

// The views a particle kernel needs.
struct FieldViews {
  FieldView e[3], b[3], j[3];
};

}  // namespace nbody::pic
