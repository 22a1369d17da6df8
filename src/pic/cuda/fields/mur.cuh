#pragma once
// Mur's open boundaries: the outer lines saved before the E update, then the boundary values
// (with the laser's incoming wave at the lower x edge).

#include "pic/cuda/fields/maxwell.cuh"
#include "pic/physics/field_stencils.hpp"
#include "pic/physics/laser.hpp"

namespace nbody::pic {
namespace {

// Saves the two outermost lines of the tangential components of the open boundaries:
// save[((side * 2 + comp) * 2 + point) * len + k].
__global__ void save_x_lines(SolverArgs a, double* save) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int len = a.ny + 1;
  if (j > a.ny) return;
  const FieldView comp[2] = {a.ey, a.ez};
  for (int c = 0; c < 2; ++c)
    for (int p = 0; p < 2; ++p) {
      save[((0 * 2 + c) * 2 + p) * len + j] = comp[c](p, j);
      save[((1 * 2 + c) * 2 + p) * len + j] = comp[c](a.nx - p, j);
    }
}
__global__ void save_y_lines(SolverArgs a, double* save) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int len = a.nx + 1;
  if (i > a.nx) return;
  const FieldView comp[2] = {a.ex, a.ez};
  for (int c = 0; c < 2; ++c)
    for (int p = 0; p < 2; ++p) {
      save[((0 * 2 + c) * 2 + p) * len + i] = comp[c](i, p);
      save[((1 * 2 + c) * 2 + p) * len + i] = comp[c](i, a.ny - p);
    }
}
__global__ void mur_x(SolverArgs a, const double* save, double k, Laser laser, double x0, double y0, int joff, double dx,
                      double dy, double t, double dt, bool lo, bool hi) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int len = a.ny + 1;
  if (j > a.ny) return;
  const FieldView comp[2] = {a.ey, a.ez};
  for (int c = 0; c < 2; ++c) {
    if (c == 0 && j > a.ny - 1) continue;  // Ey lives on half points in y
    double inc0_old = 0, inc1_old = 0, inc0_new = 0, inc1_new = 0;
    if (laser.enabled) {
      const double y = y0 + (j + joff + (c == 0 ? 0.5 : 0.0)) * dy;
      double e_y, e_z;
      laser.field(x0, y, t, e_y, e_z);
      inc0_old = c == 0 ? e_y : e_z;
      laser.field(x0 + dx, y, t, e_y, e_z);
      inc1_old = c == 0 ? e_y : e_z;
      laser.field(x0, y, t + dt, e_y, e_z);
      inc0_new = c == 0 ? e_y : e_z;
      laser.field(x0 + dx, y, t + dt, e_y, e_z);
      inc1_new = c == 0 ? e_y : e_z;
    }
    const FieldView e = comp[c];
    if (lo)
      e(0, j) = mur_value(e(1, j), save[((0 * 2 + c) * 2 + 0) * len + j], save[((0 * 2 + c) * 2 + 1) * len + j], k,
                          inc0_new, inc0_old, inc1_new, inc1_old);
    if (hi)
      e(a.nx, j) = mur_value(e(a.nx - 1, j), save[((1 * 2 + c) * 2 + 0) * len + j], save[((1 * 2 + c) * 2 + 1) * len + j],
                           k, 0, 0, 0, 0);
  }
}
__global__ void mur_y(SolverArgs a, const double* save, double k, bool lo, bool hi) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int len = a.nx + 1;
  if (i > a.nx) return;
  const FieldView comp[2] = {a.ex, a.ez};
  for (int c = 0; c < 2; ++c) {
    if (c == 0 && i > a.nx - 1) continue;
    const FieldView e = comp[c];
    if (lo)
      e(i, 0) = mur_value(e(i, 1), save[((0 * 2 + c) * 2 + 0) * len + i], save[((0 * 2 + c) * 2 + 1) * len + i], k, 0, 0, 0, 0);
    if (hi)
      e(i, a.ny) = mur_value(e(i, a.ny - 1), save[((1 * 2 + c) * 2 + 0) * len + i], save[((1 * 2 + c) * 2 + 1) * len + i],
                           k, 0, 0, 0, 0);
  }
}

}  // namespace
}  // namespace nbody::pic
