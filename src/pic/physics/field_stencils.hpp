#pragma once
// The Maxwell update of one grid point, shared by the CPU solver (field_solver.cpp) and the CUDA
// kernels, so both compute the same expressions. Index conventions: grid.hpp.
#include <cmath>

#include "pic/physics/grid.hpp"

namespace nbody::pic {

struct StencilCoefficients {
  double alpha_x = 1, beta_xy = 0, alpha_y = 1, beta_yx = 0;
};

// Which transverse neighbours the Cole-Karkkainen smoothing of one difference takes. `smooth`
// false: the Yee difference alone. Next to an open boundary the neighbour on one side is missing
// (beyond the grid) or is a boundary node that Mur's condition sets; the smoothing then reads the
// image of the field across the plane half a cell inside the boundary (the outermost B points),
// as across a conducting wall: a normal E component is even there (`image_*`, the missing
// neighbour difference is the opposite neighbour's) and a tangential one odd (`image_* &&
// odd`, the point's own difference negated). This keeps the smoothing at the edge consistent with
// the interior for both smooth fields and the grid's highest wavenumber, which Mur's condition
// passes on like a continued grid; the Yee difference alone at the edge point (the rule before)
// left the highest wavenumbers there above the Courant limit, and in-plane fields varying along
// an open x boundary grew by a factor up to 2 per step (docs/pic.md).
struct Transverse {
  bool smooth = true;
  bool image_lo = false, image_hi = false;
  bool odd = false;
};

PIC_HD double smoothed(double d0, double dp, double dm, const Transverse& t, double alpha, double beta) {
  if (t.odd) {
    if (t.image_lo) dm = -d0;
    if (t.image_hi) dp = -d0;
  } else {
    if (t.image_lo) dm = dp;
    if (t.image_hi) dp = dm;
  }
  return alpha * d0 + beta * (dp + dm);
}

// D_x f at (i+1/2, j), smoothed along y (Cole-Karkkainen), times dx.
PIC_HD double curl_dx(const FieldView& e, int i, int j, const Transverse& t, const StencilCoefficients& c) {
  const double d0 = e(i + 1, j) - e(i, j);
  if (!t.smooth || c.beta_xy == 0.0) return d0;
  const double dp = t.image_hi ? 0.0 : e(i + 1, j + 1) - e(i, j + 1);
  const double dm = t.image_lo ? 0.0 : e(i + 1, j - 1) - e(i, j - 1);
  return smoothed(d0, dp, dm, t, c.alpha_x, c.beta_xy);
}
// D_y f at (i, j+1/2), smoothed along x, times dy.
PIC_HD double curl_dy(const FieldView& e, int i, int j, const Transverse& t, const StencilCoefficients& c) {
  const double d0 = e(i, j + 1) - e(i, j);
  if (!t.smooth || c.beta_yx == 0.0) return d0;
  const double dp = t.image_hi ? 0.0 : e(i + 1, j + 1) - e(i + 1, j);
  const double dm = t.image_lo ? 0.0 : e(i - 1, j + 1) - e(i - 1, j);
  return smoothed(d0, dp, dm, t, c.alpha_y, c.beta_yx);
}

// The sides of a grid (or of a rank's block) for the smoothing: free = the values beyond the side
// are real (periodic images or a neighbour block's), else an open boundary.
struct SmoothingEdges {
  int nx = 0, ny = 0;
  bool free_lo = false, free_hi = false, free_ylo = false, free_yhi = false;
};
// d*_y Ez for Bx (i, j+1/2), smoothed over the columns i -+ 1. At an open x edge Ez on the
// boundary node is Mur's: the column next to it takes the odd image instead; the Bx on the
// boundary node itself (which no E update reads) keeps the Yee difference.
PIC_HD Transverse bx_transverse(const SmoothingEdges& s, int i) {
  Transverse t;
  t.smooth = (s.free_lo || i > 0) && (s.free_hi || i < s.nx);
  t.image_lo = !s.free_lo && i == 1;
  t.image_hi = !s.free_hi && i == s.nx - 1;
  t.odd = true;
  return t;
}
// d*_x Ez for By (i+1/2, j), smoothed over the rows j -+ 1: as Bx, along y.
PIC_HD Transverse by_transverse(const SmoothingEdges& s, int j) {
  Transverse t;
  t.smooth = (s.free_ylo || j > 0) && (s.free_yhi || j < s.ny);
  t.image_lo = !s.free_ylo && j == 1;
  t.image_hi = !s.free_yhi && j == s.ny - 1;
  t.odd = true;
  return t;
}
// d*_x Ey for Bz (i+1/2, j+1/2), smoothed over the half rows j -+ 1, which end at an open y edge
// (Ey is normal to it: the even image).
PIC_HD Transverse bz_x_transverse(const SmoothingEdges& s, int j) {
  Transverse t;
  t.image_lo = !s.free_ylo && j == 0;
  t.image_hi = !s.free_yhi && j == s.ny - 1;
  return t;
}
// d*_y Ex for Bz, smoothed over the half columns i -+ 1, which end at an open x edge (even image).
PIC_HD Transverse bz_y_transverse(const SmoothingEdges& s, int i) {
  Transverse t;
  t.image_lo = !s.free_lo && i == 0;
  t.image_hi = !s.free_hi && i == s.nx - 1;
  return t;
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
