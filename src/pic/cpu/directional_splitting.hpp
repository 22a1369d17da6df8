#pragma once
// The directional-splitting (DS) Maxwell solver of document 004's code (the LPIC++ lineage, made
// 2D), in vacuum on a periodic grid, as a study of its stability, dispersion and Gauss's law
// (docs/pic.md, "The c dt = dx solver"). All six components sit at the nodes (no staggering).
// One step is A_y(dt) A_x(dt):
//   A_x: the x-characteristics F = Ey +- Bz and G = Ez -+ By, which move at +-c along x, are
//        shifted by exactly one cell (c dt = dx): no dispersion along x.
//   A_y: the y-characteristics Ex -+ Bz and Ez +- Bx move by nu = c dt / dy (1/2 on the document's
//        grid) of a cell, with the Lax-Wendroff interpolation
//        H_j <- H_j - nu/2 (H_{j+1} - H_{j-1}) + nu^2/2 (H_{j+1} - 2 H_j + H_{j-1}).
// In a PIC code the currents enter as a third split step E -= dt J.
#include <complex>
#include <vector>

namespace nbody::pic {

class DirectionalSplitting {
 public:
  DirectionalSplitting(int nx, int ny, double dx, double dy);  // dt = dx
  enum { Ex, Ey, Ez, Bx, By, Bz };
  double& at(int c, int i, int j) { return f_[c][std::size_t(j) * nx_ + std::size_t(i)]; }
  double at(int c, int i, int j) const { return f_[c][std::size_t(j) * nx_ + std::size_t(i)]; }
  void step();
  [[nodiscard]] double energy() const;
  // max |div E| with centred differences on the nodes.
  [[nodiscard]] double divergence_max() const;
  [[nodiscard]] double dt() const { return dx_; }

  // The amplification matrix of one step for the Fourier mode exp(i (kx x + ky y)): 6 x 6 on
  // (Ex, Ey, Ez, Bx, By, Bz), row-major.
  static std::vector<std::complex<double>> amplification(double dx, double dy, double kx, double ky);
  // Its eigenvalues (the two polarisations decouple into 3 x 3 blocks).
  static std::vector<std::complex<double>> eigenvalues(double dx, double dy, double kx, double ky);

 private:
  void shift_x();
  void lax_wendroff_y();
  int nx_, ny_;
  double dx_, dy_;
  std::vector<double> f_[6];
};

}  // namespace nbody::pic
