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
// The smoothing across an axis of n cells at point k, whose sides are free or open. Odd: a
// component tangential to the open side (Ez, or E along the other axis), whose boundary node is
// Mur's: the point next to it takes the odd image instead, and the boundary node itself (which no
// E update reads) keeps the Yee difference. Even: a component normal to the open side, over half
// points that end there: the even image at the first and last.
PIC_HD Transverse odd_transverse(int k, int n, bool free_lo, bool free_hi) {
  Transverse t;
  t.smooth = (free_lo || k > 0) && (free_hi || k < n);
  t.image_lo = !free_lo && k == 1;
  t.image_hi = !free_hi && k == n - 1;
  t.odd = true;
  return t;
}
PIC_HD Transverse even_transverse(int k, int n, bool free_lo, bool free_hi) {
  Transverse t;
  t.image_lo = !free_lo && k == 0;
  t.image_hi = !free_hi && k == n - 1;
  return t;
}
// d*_y Ez for Bx (i, j+1/2), smoothed over the columns i -+ 1 (odd along x).
PIC_HD Transverse bx_transverse(const SmoothingEdges& s, int i) { return odd_transverse(i, s.nx, s.free_lo, s.free_hi); }
// d*_x Ez for By (i+1/2, j), smoothed over the rows j -+ 1 (odd along y).
PIC_HD Transverse by_transverse(const SmoothingEdges& s, int j) {
  return odd_transverse(j, s.ny, s.free_ylo, s.free_yhi);
}
// d*_x Ey for Bz (i+1/2, j+1/2), smoothed over the half rows j -+ 1 (Ey is normal to an open y edge).
PIC_HD Transverse bz_x_transverse(const SmoothingEdges& s, int j) {
  return even_transverse(j, s.ny, s.free_ylo, s.free_yhi);
}
// d*_y Ex for Bz, smoothed over the half columns i -+ 1 (even along x).
PIC_HD Transverse bz_y_transverse(const SmoothingEdges& s, int i) {
  return even_transverse(i, s.nx, s.free_lo, s.free_hi);
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
