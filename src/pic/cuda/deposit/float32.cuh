#pragma once
// Mixed precision (DepositKernel::float32): float32 atomics into float32 current grids, added to
// the float64 ones after the particle kernel.

#include <cstddef>

namespace nbody::pic {
namespace {

// Mixed precision: the contribution rounded to float32 and added with float32 atomics into the
// float32 grid of the same component (same index).
struct Float32Accumulate {
  double* jbase[3];
  float* fbase[3];
  std::size_t grid_size;
  __device__ void operator()(double* ptr, double v) const {
    for (int c = 0; c < 3; ++c) {
      if (ptr >= jbase[c] && ptr < jbase[c] + grid_size) {
        atomicAdd(fbase[c] + (ptr - jbase[c]), float(v));
        return;
      }
    }
  }
};

__global__ void add_float_currents(double* jx, double* jy, double* jz, const float* fx, const float* fy, const float* fz,
                                   std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    jx[i] += double(fx[i]);
    jy[i] += double(fy[i]);
    jz[i] += double(fz[i]);
  }
}

}  // namespace
}  // namespace nbody::pic
