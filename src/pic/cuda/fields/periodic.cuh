#pragma once
// The guards of the fields and sources: periodic images filled, sources folded onto them (or
// dropped beyond an open boundary).

#include "pic/physics/field_stencils.hpp"
#include "pic/physics/grid.hpp"

namespace nbody::pic {
namespace {

// Guards: periodic images, rows then columns (the host's order).
__global__ void fill_rows(FieldView* views, int ncomp, int nx, int ny) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int rows = ny + 2 * kGuard;
  if (t >= ncomp * rows) return;
  const FieldView v = views[t / rows];
  const int j = t % rows - kGuard;
  for (int g = 1; g <= kGuard; ++g) {
    v(-g, j) = v(nx - g, j);
    v(nx - 1 + g, j) = v(g - 1, j);
  }
}
__global__ void fill_columns(FieldView* views, int ncomp, int nx, int ny) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int cols = nx + 2 * kGuard;
  if (t >= ncomp * cols) return;
  const FieldView v = views[t / cols];
  const int i = t % cols - kGuard;
  for (int g = 1; g <= kGuard; ++g) {
    v(i, -g) = v(i, ny - g);
    v(i, ny - 1 + g) = v(i, g - 1);
  }
}
// Sources: fold the guards onto their periodic images (or drop them beyond an open boundary).
__global__ void fold_columns(FieldView* views, int ncomp, int nx, int ny, bool periodic) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int cols = nx + 2 * kGuard;
  if (t >= ncomp * cols) return;
  const FieldView v = views[t / cols];
  const int i = t % cols - kGuard;
  if (periodic) {
    fold_periodic_column(v, i, ny);
  } else {
    for (int g = 1; g <= kGuard; ++g) v(i, -g) = 0;
    for (int j = ny + 1; j < ny + kGuard; ++j) v(i, j) = 0;
  }
}
__global__ void fold_rows(FieldView* views, int ncomp, int nx, int ny, bool periodic) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int rows = ny + 2 * kGuard;
  if (t >= ncomp * rows) return;
  const FieldView v = views[t / rows];
  const int j = t % rows - kGuard;
  if (periodic) {
    fold_periodic_row(v, j, nx);
  } else {
    for (int g = 1; g <= kGuard; ++g) v(-g, j) = 0;
    for (int i = nx + 1; i < nx + kGuard; ++i) v(i, j) = 0;
  }
}

}  // namespace
}  // namespace nbody::pic
