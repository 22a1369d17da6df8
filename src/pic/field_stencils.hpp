#pragma once
// The Maxwell update of one grid point, shared by the CPU solver (field_solver.cpp) and the CUDA
// kernels, so both compute the same expressions. Index conventions: grid.hpp.
#include "pic/grid.hpp"

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

}  // namespace nbody::pic
