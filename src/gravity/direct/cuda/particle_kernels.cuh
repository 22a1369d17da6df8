#pragma once
// Element-wise updates and the global sums for diagnostics, on the GPU. Include from .cu only.
#include "cuda/block_reduce.cuh"

namespace nbody::direct::cuda {

struct MomentsPolicy {
  static constexpr int kBlock = 256;
  // A fixed grid: the partial sums and their order do not depend on n, so the totals are the
  // same bits on every run.
  static constexpr int kBlocks = 264;
  static constexpr int kQuantities = 11;  // mass, K, P(3), L(3), sum m x (3)
};

template <class T>
__global__ void kick_kernel(T* __restrict__ vx, T* __restrict__ vy, T* __restrict__ vz, const T* __restrict__ ax,
                            const T* __restrict__ ay, const T* __restrict__ az, int n, T dt) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    vx[i] += ax[i] * dt;
    vy[i] += ay[i] * dt;
    vz[i] += az[i] * dt;
  }
}

template <class T>
__global__ void drift_kernel(T* __restrict__ x, T* __restrict__ y, T* __restrict__ z, const T* __restrict__ vx,
                             const T* __restrict__ vy, const T* __restrict__ vz, int n, T dt) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    x[i] += vx[i] * dt;
    y[i] += vy[i] * dt;
    z[i] += vz[i] * dt;
  }
}

// Mixed precision: float32 copies of the float64 positions (and masses when m is given) for the
// force kernel.
__global__ void round_to_float_kernel(const double* __restrict__ x, const double* __restrict__ y,
                                             const double* __restrict__ z, const double* __restrict__ m, int n,
                                             float* __restrict__ xf, float* __restrict__ yf, float* __restrict__ zf,
                                             float* __restrict__ mf) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    xf[i] = float(x[i]);
    yf[i] = float(y[i]);
    zf[i] = float(z[i]);
    if (m != nullptr) mf[i] = float(m[i]);
  }
}

// block_sums[q * kBlocks + block] for each quantity q.
template <class T>
__global__ void __launch_bounds__(MomentsPolicy::kBlock)
    moments_kernel(const T* __restrict__ x, const T* __restrict__ y, const T* __restrict__ z,
                   const T* __restrict__ vx, const T* __restrict__ vy, const T* __restrict__ vz,
                   const T* __restrict__ m, int n, double* __restrict__ block_sums) {
  using P = MomentsPolicy;
  __shared__ double scratch[P::kBlock / 32];
  double q[P::kQuantities] = {};
  for (int i = blockIdx.x * P::kBlock + threadIdx.x; i < n; i += P::kBlocks * P::kBlock) {
    const double mi = m[i], xi = x[i], yi = y[i], zi = z[i], ui = vx[i], vi = vy[i], wi = vz[i];
    q[0] += mi;
    q[1] += 0.5 * mi * (ui * ui + vi * vi + wi * wi);
    q[2] += mi * ui;
    q[3] += mi * vi;
    q[4] += mi * wi;
    q[5] += mi * (yi * wi - zi * vi);
    q[6] += mi * (zi * ui - xi * wi);
    q[7] += mi * (xi * vi - yi * ui);
    q[8] += mi * xi;
    q[9] += mi * yi;
    q[10] += mi * zi;
  }
#pragma unroll
  for (int k = 0; k < P::kQuantities; ++k) {
    const double total = nbody::cuda::block_sum<P::kBlock>(q[k], scratch);
    if (threadIdx.x == 0) block_sums[k * P::kBlocks + blockIdx.x] = total;
  }
}

}  // namespace nbody::direct::cuda

namespace nbody::direct::cuda {

// Per-block maxima of |a_i|^2 (in float64) over a fixed grid of MomentsPolicy::kBlocks blocks;
// the host takes the maximum of the kBlocks values. A maximum is exact, so the result does not
// depend on the order.
template <class T>
__global__ void __launch_bounds__(MomentsPolicy::kBlock)
    max_acceleration_kernel(const T* __restrict__ ax, const T* __restrict__ ay, const T* __restrict__ az, int n,
                            double* __restrict__ block_max) {
  using P = MomentsPolicy;
  __shared__ double scratch[P::kBlock / 32];
  double worst = 0;
  for (int i = blockIdx.x * P::kBlock + threadIdx.x; i < n; i += P::kBlocks * P::kBlock) {
    const double x = ax[i], y = ay[i], z = az[i];
    const double a2 = x * x + y * y + z * z;
    worst = a2 > worst ? a2 : worst;
  }
  const double best = nbody::cuda::block_max<P::kBlock>(worst, scratch);
  if (threadIdx.x == 0) block_max[blockIdx.x] = best;
}

}  // namespace nbody::direct::cuda
