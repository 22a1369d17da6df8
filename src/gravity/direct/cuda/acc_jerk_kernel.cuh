#pragma once
// Acceleration and jerk of a set of active targets from all (predicted) sources, tiled through
// shared memory, for the Hermite integrator. Deterministic: one thread per target sums its
// sources in a fixed order, no atomics. Include from .cu files only.
#include <cuda_runtime.h>

#include "gravity/interaction.hpp"
#include "particles/views.hpp"

namespace nbody::direct::cuda {

// Launch shape of the acceleration-and-jerk kernel.
struct HermitePolicy {
  static constexpr int kBlock = 128;  // threads per block = sources per shared-memory tile
  static constexpr int kUnroll = 4;   // inner-loop unroll over the tile
  static_assert(kBlock % 32 == 0 && kBlock <= 1024, "block must be whole warps");
  static_assert(kBlock % kUnroll == 0, "unroll must divide the tile");
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
    tiled_acc_jerk(MotionView<T> s, IndexView targets, Pair pair, T G, Vec3Span<T> acc, Vec3Span<T> jerk) {
  const ConstVec3Span<T>& pos = s.x;
  const ConstVec3Span<T>& vel = s.v;
  const T* __restrict__ m = s.m;
  const int n = s.n;
  const int count = targets.count;
  __shared__ HermiteSourcePosition<T> tile_pos[Policy::kBlock];
  __shared__ HermiteSourceVelocity<T> tile_vel[Policy::kBlock];
  const int k = blockIdx.x * Policy::kBlock + threadIdx.x;
  const bool live = k < count;
  const int i = live ? targets.index[k] : 0;
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

}  // namespace nbody::direct::cuda
