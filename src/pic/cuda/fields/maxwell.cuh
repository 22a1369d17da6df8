#pragma once
// The Maxwell solver's point updates of B and E (Yee or CK stencils, the PML's memories inside
// its layer) over a range of points.

#include <algorithm>

#include "pic/physics/field_stencils.hpp"
#include "pic/physics/grid.hpp"

namespace nbody::pic {
namespace {

struct Range2 {
  int ilo, ihi, jlo, jhi;
  __device__ bool take(int t, int& i, int& j) const {
    const int w = ihi - ilo + 1;
    if (t >= w * (jhi - jlo + 1)) return false;
    i = ilo + t % w;
    j = jlo + t / w;
    return true;
  }
  [[nodiscard]] int count() const { return std::max(0, ihi - ilo + 1) * std::max(0, jhi - jlo + 1); }
};

struct SolverArgs {
  FieldView ex, ey, ez, bx, by, bz, jx, jy, jz;
  StencilCoefficients sc;
  double cx, cy, dt;
  int nx, ny;
  bool px, py;  // periodic axes
  // The PML (the host's MaxwellSolver: pml_derivative on the x differences inside the layer);
  // null memories without one. pml_update: advance the B memories (the second half step).
  double *psi_by = nullptr, *psi_bz = nullptr, *psi_ey = nullptr, *psi_ez = nullptr;
  PmlLayer pml{};
  bool pml_update = false;
  // x sides with neighbour values beyond them (periodic, or a slab's cut), and the global index
  // of column 0 (a slab's; the PML's depth)
  bool free_lo = false, free_hi = false;
  bool free_ylo = false, free_yhi = false;  // the same along y (periodic, or a block's cut)
  int ioff = 0;
  // The sides as the CK smoothing sees them (images at open edges: field_stencils.hpp).
  __device__ SmoothingEdges edges() const { return {nx, ny, free_lo, free_hi, free_ylo, free_yhi}; }
};

__global__ void update_bx(SolverArgs a, Range2 r) {
  int i, j;
  if (!r.take(blockIdx.x * blockDim.x + threadIdx.x, i, j)) return;
  a.bx(i, j) -= a.cy * curl_dy(a.ez, i, j, bx_transverse(a.edges(), i), a.sc);
}
__global__ void update_by(SolverArgs a, Range2 r) {
  int i, j;
  if (!r.take(blockIdx.x * blockDim.x + threadIdx.x, i, j)) return;
  double d = curl_dx(a.ez, i, j, by_transverse(a.edges(), j), a.sc);
  if (a.psi_by) d = pml_derivative(d, a.psi_by[a.by.index(i, j)], a.pml.sigma(i + a.ioff + 0.5), 2 * a.dt, a.pml_update);
  a.by(i, j) += a.cx * d;
}
__global__ void update_bz(SolverArgs a, Range2 r) {
  int i, j;
  if (!r.take(blockIdx.x * blockDim.x + threadIdx.x, i, j)) return;
  double d = curl_dx(a.ey, i, j, bz_x_transverse(a.edges(), j), a.sc);
  if (a.psi_bz) d = pml_derivative(d, a.psi_bz[a.bz.index(i, j)], a.pml.sigma(i + a.ioff + 0.5), 2 * a.dt, a.pml_update);
  a.bz(i, j) -= a.cx * d - a.cy * curl_dy(a.ex, i, j, bz_y_transverse(a.edges(), i), a.sc);
}
__global__ void update_ex(SolverArgs a, Range2 r) {
  int i, j;
  if (!r.take(blockIdx.x * blockDim.x + threadIdx.x, i, j)) return;
  a.ex(i, j) += a.cy * (a.bz(i, j) - a.bz(i, j - 1)) - a.dt * a.jx(i, j);
}
__global__ void update_ey(SolverArgs a, Range2 r) {
  int i, j;
  if (!r.take(blockIdx.x * blockDim.x + threadIdx.x, i, j)) return;
  double d = a.bz(i, j) - a.bz(i - 1, j);
  if (a.psi_ey) d = pml_derivative(d, a.psi_ey[a.ey.index(i, j)], a.pml.sigma(i + a.ioff), a.dt, true);
  a.ey(i, j) += -a.cx * d - a.dt * a.jy(i, j);
}
__global__ void update_ez(SolverArgs a, Range2 r) {
  int i, j;
  if (!r.take(blockIdx.x * blockDim.x + threadIdx.x, i, j)) return;
  double d = a.by(i, j) - a.by(i - 1, j);
  if (a.psi_ez) d = pml_derivative(d, a.psi_ez[a.ez.index(i, j)], a.pml.sigma(i + a.ioff), a.dt, true);
  a.ez(i, j) += a.cx * d - a.cy * (a.bx(i, j) - a.bx(i, j - 1)) - a.dt * a.jz(i, j);
}

}  // namespace
}  // namespace nbody::pic
