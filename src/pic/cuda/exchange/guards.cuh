#pragma once
// A block's guard messages on the device: packed, unpacked (copied or added), and the sources
// beyond a global open edge dropped.

#include <cstddef>

#include "pic/parallel/slab_index.hpp"
#include "pic/physics/grid.hpp"

namespace nbody::pic {
namespace {

// A guard message (slab_index.hpp's GuardRegion layout) of ncomp arrays packed, or unpacked (copied
// or added).
__global__ void pack_guards(const FieldView* views, int ncomp, GuardRegion r, double* out) {
  const std::size_t per = r.size(), n = std::size_t(ncomp) * per;
  const std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= n) return;
  int i, j;
  r.point(t % per, i, j);
  out[t] = views[t / per](i, j);
}
__global__ void unpack_guards(const FieldView* views, int ncomp, GuardRegion r, const double* in, bool add) {
  const std::size_t per = r.size(), n = std::size_t(ncomp) * per;
  const std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= n) return;
  int i, j;
  r.point(t % per, i, j);
  double& v = views[t / per](i, j);
  v = add ? v + in[t] : in[t];
}
// Sources beyond a global open y edge dropped (the lower guards, the upper ones past the boundary
// node), every column.
__global__ void drop_y_guards(const FieldView* views, int ncomp, int nx, int ny, bool lo, bool hi) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int cols = nx + 2 * kGuard;
  if (t >= ncomp * cols) return;
  const FieldView v = views[t / cols];
  const int i = t % cols - kGuard;
  if (lo)
    for (int g = 1; g <= kGuard; ++g) v(i, -g) = 0;
  if (hi)
    for (int j = ny + 1; j < ny + kGuard; ++j) v(i, j) = 0;
}
// Sources beyond a global open x edge dropped (DomainPic: the left guards, the right ones past
// the boundary node).
__global__ void drop_x_guards(const FieldView* views, int ncomp, int nx, int ny, bool lo, bool hi) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int rows = ny + 2 * kGuard;
  if (t >= ncomp * rows) return;
  const FieldView v = views[t / rows];
  const int j = t % rows - kGuard;
  if (lo)
    for (int g = 1; g <= kGuard; ++g) v(-g, j) = 0;
  if (hi)
    for (int i = nx + 1; i < nx + kGuard; ++i) v(i, j) = 0;
}

}  // namespace
}  // namespace nbody::pic
