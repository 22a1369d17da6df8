#pragma once
// The Maxwell update of one grid point, shared by the CPU solver (field_solver.cpp) and the CUDA
// kernels, so both compute the same expressions. Index conventions: grid.hpp.
#include <cmath>

#include "pic/physics/grid.hpp"

namespace nbody::pic {

struct StencilCoefficients {
  double alpha_x = 1, beta_xy = 0, alpha_y = 1, beta_yx = 0;
};

// D_x f at (i+1/2, j), smoothed along y when `smooth` (Cole-Karkkainen), times dx.
PIC_HD double curl_dx(const FieldView& e, int i, int j, bool smooth, const StencilCoefficients& c) {
  const double d0 = e(i + 1, j) - e(i, j);
  if (!smooth || c.beta_xy == 0.0) return d0;
  return c.alpha_x * d0 + c.beta_xy * ((e(i + 1, j + 1) - e(i, j + 1)) + (e(i + 1, j - 1) - e(i, j - 1)));
}
PIC_HD double curl_dy(const FieldView& e, int i, int j, bool smooth, const StencilCoefficients& c) {
  const double d0 = e(i, j + 1) - e(i, j);
  if (!smooth || c.beta_yx == 0.0) return d0;
  return c.alpha_y * d0 + c.beta_yx * ((e(i + 1, j + 1) - e(i + 1, j)) + (e(i - 1, j + 1) - e(i - 1, j)));
}

// Mur's first-order condition on the scattered part (E - incident) of a boundary value.
PIC_HD double mur_value(double e1_new, double e0_old, double e1_old, double k, double inc0_new, double inc0_old,
                        double inc1_new, double inc1_old) {
  return inc0_new + (e1_old - inc1_old) + k * ((e1_new - inc1_new) - (e0_old - inc0_old));
}

// A convolutional PML (Roden & Gedney 2000, with kappa = 1, alpha = 0) in layers of `cells` cells
// inside the open x boundaries: every x derivative D there becomes D + psi with the recursive
// convolution psi <- b psi + (b - 1) D, b = exp(-sigma dt), and the conductivity grows as
// sigma = sigma_max (depth / L)^3, sigma_max = 0.8 (3 + 1) / dx (the usual optimum; c = 1).
// Mur's condition stays on the outer nodes. The left layer is left out when a laser enters there.
struct PmlLayer {
  int cells = 0;  // 0: no PML
  bool left = false, right = false;
  int nx = 0;
  double sigma_max = 0;
  // sigma at x index position xi (a node i, or a half point i + 0.5)
  PIC_HD double sigma(double xi) const {
    double d;
    if (left && xi < cells) d = (cells - xi) / cells;
    else if (right && xi > nx - cells) d = (xi - (nx - cells)) / cells;
    else return 0.0;
    return sigma_max * d * d * d;
  }
};

// D (an x difference) inside the layer: D + psi, with the memory psi first advanced by one full
// step dt when `update`. B is advanced in two half steps around the particle push; the second
// half (after the E update) advances psi with the new E and the next step's first half reuses it,
// so that the pair is exactly the standard CPML update of B over one dt (advancing psi in both
// halves reflects 1e-2 of a wave instead of 1e-5).
PIC_HD double pml_derivative(double d, double& psi, double sigma, double dt, bool update) {
  if (sigma == 0.0) return d;
  if (update) {
    const double b = std::exp(-sigma * dt);
    psi = b * psi + (b - 1.0) * d;
  }
  return d + psi;
}

}  // namespace nbody::pic
