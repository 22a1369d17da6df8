#pragma once
// Snap and crackle of the bodies [first, first + count) on the GPU (gravity/snap_crackle.hpp): one thread a target,
// the sources in tiles through shared memory in float64, in source order (the same bits on
// every run). Once a run, for Hermite's first step; it is not tuned.
#include "gravity/snap_crackle.hpp"
#include "particles/views.hpp"

namespace nbody::direct::cuda {

inline constexpr int kSnapCrackleBlock = 128;

template <class T>
__global__ void __launch_bounds__(kSnapCrackleBlock)
    snap_crackle_kernel(MotionView<T> s, ConstVec3Span<T> a, ConstVec3Span<T> j, int first, int count, double eps2,
                        double G, Vec3Span<T> snap, Vec3Span<T> crackle) {
  // x, v, a, j (12 values) and m of a tile of sources
  __shared__ double tile[13][kSnapCrackleBlock];
  const int i = first + static_cast<int>(blockIdx.x) * kSnapCrackleBlock + static_cast<int>(threadIdx.x);
  const bool target = i < first + count;
  double me[12] = {};
  if (target) {
    const double v[12] = {double(s.x.x[i]), double(s.x.y[i]), double(s.x.z[i]), double(s.v.x[i]),
                          double(s.v.y[i]), double(s.v.z[i]), double(a.x[i]),   double(a.y[i]),
                          double(a.z[i]),   double(j.x[i]),   double(j.y[i]),   double(j.z[i])};
    for (int c = 0; c < 12; ++c) me[c] = v[c];
  }
  gravity::Derivatives3 si{0, 0, 0}, ci{0, 0, 0};
  for (int base = 0; base < s.n; base += kSnapCrackleBlock) {
    const int k = base + static_cast<int>(threadIdx.x);
    if (k < s.n) {
      tile[0][threadIdx.x] = double(s.x.x[k]);
      tile[1][threadIdx.x] = double(s.x.y[k]);
      tile[2][threadIdx.x] = double(s.x.z[k]);
      tile[3][threadIdx.x] = double(s.v.x[k]);
      tile[4][threadIdx.x] = double(s.v.y[k]);
      tile[5][threadIdx.x] = double(s.v.z[k]);
      tile[6][threadIdx.x] = double(a.x[k]);
      tile[7][threadIdx.x] = double(a.y[k]);
      tile[8][threadIdx.x] = double(a.z[k]);
      tile[9][threadIdx.x] = double(j.x[k]);
      tile[10][threadIdx.x] = double(j.y[k]);
      tile[11][threadIdx.x] = double(j.z[k]);
      tile[12][threadIdx.x] = double(s.m[k]);
    }
    __syncthreads();
    const int in_tile = min(kSnapCrackleBlock, s.n - base);
    if (target) {
      for (int q = 0; q < in_tile; ++q) {
        if (base + q == i) continue;
        const gravity::RelativeMotion d{tile[0][q] - me[0],  tile[1][q] - me[1],  tile[2][q] - me[2],
                                        tile[3][q] - me[3],  tile[4][q] - me[4],  tile[5][q] - me[5],
                                        tile[6][q] - me[6],  tile[7][q] - me[7],  tile[8][q] - me[8],
                                        tile[9][q] - me[9],  tile[10][q] - me[10], tile[11][q] - me[11],
                                        tile[12][q]};
        gravity::accumulate_snap_crackle(eps2, d, si, ci);
      }
    }
    __syncthreads();
  }
  if (target) {
    snap.x[i] = static_cast<T>(G * si.x);
    snap.y[i] = static_cast<T>(G * si.y);
    snap.z[i] = static_cast<T>(G * si.z);
    crackle.x[i] = static_cast<T>(G * ci.x);
    crackle.y[i] = static_cast<T>(G * ci.y);
    crackle.z[i] = static_cast<T>(G * ci.z);
  }
}

}  // namespace nbody::direct::cuda
