#pragma once
// The Poynting flux S_x through planes of constant x, on the device.

#include "cuda/block_reduce.cuh"
#include "pic/cuda/diag/reduce.cuh"
#include "pic/physics/grid.hpp"

namespace nbody::pic {
namespace {

// The Poynting flux through the planes i_left + 1/2 (block 0) and i_right + 1/2 (block 1),
// integrated over y as the host's poynting_flux_x, added (times dt) to the running integrals:
// track = {flux_left, flux_right, integral_left, integral_right}.
__global__ void __launch_bounds__(kReduceBlock) poynting_step(FieldView ey, FieldView ez, FieldView by, FieldView bz,
                                                              int i_left, int i_right, int ny, double dy, double dt,
                                                              double* track) {
  __shared__ double scratch[kReduceBlock / 32];
  const int i = blockIdx.x == 0 ? i_left : i_right;
  double sum = 0;
  for (int j = int(threadIdx.x); j < ny; j += blockDim.x) {
    const double e_y = 0.5 * (ey(i, j) + ey(i + 1, j));
    const double b_z = bz(i, j);
    const double e_z = 0.25 * (ez(i, j) + ez(i + 1, j) + ez(i, j + 1) + ez(i + 1, j + 1));
    const double b_y = 0.5 * (by(i, j) + by(i, j + 1));
    sum += (e_y * b_z - e_z * b_y) * dy;
  }
  const double total = nbody::cuda::block_reduce<kReduceBlock>(sum, scratch, nbody::cuda::Sum{});
  if (threadIdx.x == 0) {
    track[blockIdx.x] = total;
    track[2 + blockIdx.x] += total * dt;
  }
}

// The Poynting flux density through the plane i + 1/2 at each row, times dy (one term of the
// host's poynting_flux_x each): out[j], j = 0 .. ny - 1.
__global__ void poynting_rows(FieldView ey, FieldView ez, FieldView by, FieldView bz, int i, int ny, double dy,
                              double* out) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= ny) return;
  const double e_y = 0.5 * (ey(i, j) + ey(i + 1, j));
  const double b_z = bz(i, j);
  const double e_z = 0.25 * (ez(i, j) + ez(i + 1, j) + ez(i, j + 1) + ez(i + 1, j + 1));
  const double b_y = 0.5 * (by(i, j) + by(i, j + 1));
  out[j] = (e_y * b_z - e_z * b_y) * dy;
}

}  // namespace
}  // namespace nbody::pic
