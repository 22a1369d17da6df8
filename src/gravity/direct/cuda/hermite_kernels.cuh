#pragma once
// The Hermite integrator's kernels: acceleration and jerk of a set of active targets from all
// (predicted) sources, tiled through shared memory; the predictor, the corrector and the start
// as element-wise kernels. Deterministic: one thread per target sums its sources in a fixed
// order, no atomics. Include from .cu files only.
#include <cuda_runtime.h>

#include "gravity/interaction.hpp"
#include "integrate/hermite_math.hpp"

namespace nbody::direct::cuda {

// Launch shape of the acceleration-and-jerk kernel.
struct HermitePolicy {
  static constexpr int kBlock = 128;  // threads per block = sources per shared-memory tile
  static constexpr int kUnroll = 4;   // inner-loop unroll over the tile
  static_assert(kBlock % 32 == 0 && kBlock <= 1024, "block must be whole warps");
  static_assert(kBlock % kUnroll == 0, "unroll must divide the tile");
};

// Launch shape of the element-wise Hermite kernels (grid-stride loops).
struct HermiteElementwisePolicy {
  static constexpr int kBlock = 256;
  static constexpr int kMaxBlocks = 65535;
  static_assert(kBlock % 32 == 0 && kBlock <= 1024, "block must be whole warps");
};

template <class T>
struct Vec3View {
  T* x;
  T* y;
  T* z;
};

template <class T>
struct ConstVec3View {
  const T* x;
  const T* y;
  const T* z;
};

template <class T>
struct alignas(4 * sizeof(T)) HermiteSourcePosition {
  T x, y, z, m;
};

template <class T>
struct alignas(4 * sizeof(T)) HermiteSourceVelocity {
  T x, y, z, unused;
};

// For k < count, target i = targets[k]:
//   a[k] = G sum_j m_j d_ij g(|d_ij|),  jerk[k] = G sum_j m_j [dv_ij g + d_ij (d_ij . dv_ij) q]
// over every source j (the pair law gives g and q; the i = j term is exactly zero). Outputs are
// compact (entry k for target k). Sources are the predicted positions, velocities and masses;
// the last tile is padded with massless sources at rest at the origin, which contribute zero.
template <class T, class Policy, class Pair>
__global__ void __launch_bounds__(Policy::kBlock)
    tiled_acc_jerk(ConstVec3View<T> pos, ConstVec3View<T> vel, const T* __restrict__ m, int n,
                   const int* __restrict__ targets, int count, Pair pair, T G, Vec3View<T> acc, Vec3View<T> jerk) {
  __shared__ HermiteSourcePosition<T> tile_pos[Policy::kBlock];
  __shared__ HermiteSourceVelocity<T> tile_vel[Policy::kBlock];
  const int k = blockIdx.x * Policy::kBlock + threadIdx.x;
  const bool live = k < count;
  const int i = live ? targets[k] : 0;
  const T xi = live ? pos.x[i] : T(0);
  const T yi = live ? pos.y[i] : T(0);
  const T zi = live ? pos.z[i] : T(0);
  const T ui = live ? vel.x[i] : T(0);
  const T vi = live ? vel.y[i] : T(0);
  const T wi = live ? vel.z[i] : T(0);
  T ax = 0, ay = 0, az = 0, jx = 0, jy = 0, jz = 0;
  // Every thread of the block helps load every tile, live or not: __syncthreads needs them all.
  for (int base = 0; base < n; base += Policy::kBlock) {
    const int j = base + threadIdx.x;
    if (j < n) {
      tile_pos[threadIdx.x] = HermiteSourcePosition<T>{pos.x[j], pos.y[j], pos.z[j], m[j]};
      tile_vel[threadIdx.x] = HermiteSourceVelocity<T>{vel.x[j], vel.y[j], vel.z[j], T(0)};
    } else {
      tile_pos[threadIdx.x] = HermiteSourcePosition<T>{T(0), T(0), T(0), T(0)};
      tile_vel[threadIdx.x] = HermiteSourceVelocity<T>{T(0), T(0), T(0), T(0)};
    }
    __syncthreads();
#pragma unroll Policy::kUnroll
    for (int q = 0; q < Policy::kBlock; ++q) {
      const HermiteSourcePosition<T> p = tile_pos[q];
      const HermiteSourceVelocity<T> v = tile_vel[q];
      pair.accumulate_jerk(p.x - xi, p.y - yi, p.z - zi, v.x - ui, v.y - vi, v.z - wi, p.m, ax, ay, az, jx, jy, jz);
    }
    __syncthreads();
  }
  if (live) {
    acc.x[k] = G * ax;
    acc.y[k] = G * ay;
    acc.z[k] = G * az;
    jerk.x[k] = G * jx;
    jerk.y[k] = G * jy;
    jerk.z[k] = G * jz;
  }
}

// xp, vp of every particle at time t from x, v, a, j at its own time t_i.
template <class T>
__global__ void hermite_predict_kernel(ConstVec3View<T> x, ConstVec3View<T> v, ConstVec3View<T> a,
                                       ConstVec3View<T> j, const double* __restrict__ ti, double t, int n,
                                       Vec3View<T> xp, Vec3View<T> vp) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const T tau = static_cast<T>(t - ti[i]);
    hermite::predict(x.x[i], v.x[i], a.x[i], j.x[i], tau, xp.x[i], vp.x[i]);
    hermite::predict(x.y[i], v.y[i], a.y[i], j.y[i], tau, xp.y[i], vp.y[i]);
    hermite::predict(x.z[i], v.z[i], a.z[i], j.z[i], tau, xp.z[i], vp.z[i]);
  }
}

template <class T>
__device__ __forceinline__ double squared_norm(T x, T y, T z) {
  const double dx = x, dy = y, dz = z;
  return dx * dx + dy * dy + dz * dz;
}

// The corrector for k < count, particle i = targets[k], over its step h = t - t_i:
// x, v := corrected; a, j := a1[k], j1[k]; t_i := t; dt_next[k] := Aarseth's step (when
// dt_next is not null).
template <class T>
__global__ void hermite_correct_kernel(const int* __restrict__ targets, int count, double t, double eta,
                                       Vec3View<T> x, Vec3View<T> v, Vec3View<T> a, Vec3View<T> j,
                                       ConstVec3View<T> a1, ConstVec3View<T> j1, double* __restrict__ ti,
                                       double* __restrict__ dt_next) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
    const int i = targets[k];
    const double h = t - ti[i];
    const T ht = static_cast<T>(h);
    if (dt_next != nullptr) {
      double sx, sy, sz, cx, cy, cz;
      hermite::snap_crackle(a.x[i], j.x[i], a1.x[k], j1.x[k], h, sx, cx);
      hermite::snap_crackle(a.y[i], j.y[i], a1.y[k], j1.y[k], h, sy, cy);
      hermite::snap_crackle(a.z[i], j.z[i], a1.z[k], j1.z[k], h, sz, cz);
      dt_next[k] = hermite::aarseth_step(eta, squared_norm(a1.x[k], a1.y[k], a1.z[k]),
                                         squared_norm(j1.x[k], j1.y[k], j1.z[k]), sx * sx + sy * sy + sz * sz,
                                         cx * cx + cy * cy + cz * cz);
    }
    T x1, v1;
    hermite::correct(x.x[i], v.x[i], a.x[i], j.x[i], a1.x[k], j1.x[k], ht, x1, v1);
    x.x[i] = x1;
    v.x[i] = v1;
    hermite::correct(x.y[i], v.y[i], a.y[i], j.y[i], a1.y[k], j1.y[k], ht, x1, v1);
    x.y[i] = x1;
    v.y[i] = v1;
    hermite::correct(x.z[i], v.z[i], a.z[i], j.z[i], a1.z[k], j1.z[k], ht, x1, v1);
    x.z[i] = x1;
    v.z[i] = v1;
    a.x[i] = a1.x[k];
    a.y[i] = a1.y[k];
    a.z[i] = a1.z[k];
    j.x[i] = j1.x[k];
    j.y[i] = j1.y[k];
    j.z[i] = j1.z[k];
    ti[i] = t;
  }
}

// The start: a, j := a1[k], j1[k] for particle targets[k]; dt_next[k] := eta |a| / |j| (when
// dt_next is not null).
template <class T>
__global__ void hermite_start_kernel(const int* __restrict__ targets, int count, double eta, Vec3View<T> a,
                                     Vec3View<T> j, ConstVec3View<T> a1, ConstVec3View<T> j1,
                                     double* __restrict__ dt_next) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
    const int i = targets[k];
    a.x[i] = a1.x[k];
    a.y[i] = a1.y[k];
    a.z[i] = a1.z[k];
    j.x[i] = j1.x[k];
    j.y[i] = j1.y[k];
    j.z[i] = j1.z[k];
    if (dt_next != nullptr) {
      dt_next[k] = hermite::starting_step(eta, squared_norm(a1.x[k], a1.y[k], a1.z[k]),
                                          squared_norm(j1.x[k], j1.y[k], j1.z[k]));
    }
  }
}

// values[i] := i for i < n (the active set "every particle").
template <class Index>
__global__ void iota_kernel(Index* __restrict__ values, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) values[i] = i;
}

// values[i] := value for i < n.
template <class V>
__global__ void fill_kernel(V* __restrict__ values, V value, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) values[i] = value;
}

}  // namespace nbody::direct::cuda
