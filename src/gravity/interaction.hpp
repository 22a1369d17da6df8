#pragma once
// The pairwise interaction, written once and shared by every backend and every benchmark rung
// (host and device). Kernels differ in how they walk the pairs, never in the physics.
#include <cmath>
#include <type_traits>

#if defined(__CUDACC__)
#define NBODY_HD __host__ __device__ __forceinline__
#else
#define NBODY_HD inline
#endif

namespace nbody::gravity {

#if defined(__CUDA_ARCH__)
// float64 1/sqrt(x) in six instructions: the hardware's ~23-bit estimate y (MUFU.RSQ64H), then
// one third-order Householder step y (1 + e/2 + 3e^2/8) with e = 1 - x y^2, which cubes the
// relative error to ~1e-20, under the final rounding: about 1 ulp, as accurate as CUDA's
// rsqrt() (tested against the float64 reference) and several times cheaper. x = 0 gives NaN,
// which the guarded pair laws select away.
__device__ __forceinline__ double fast_rsqrt(double x) {
  double y;
  asm("rsqrt.approx.f64 %0, %1;" : "=d"(y) : "d"(x));
  const double e = fma(-x, y * y, 1.0);
  return fma(y, e * fma(e, 0.375, 0.5), y);
}
#endif

// 1/sqrt(x): the hardware approximation on the GPU (MUFU.RSQ for float, fast_rsqrt for double),
// a correctly rounded division on the host.
template <class T>
NBODY_HD T reciprocal_sqrt(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    return rsqrtf(x);
  } else {
    return fast_rsqrt(x);
  }
#else
  return T(1) / std::sqrt(x);
#endif
}

// A pair law is a small value type holding its parameters, with
//   accumulate(dx, dy, dz, mj, ax, ay, az): acc += the acceleration source j (at offset d from
//                                           the target, mass mj) gives the target, without G;
//   potential(dx, dy, dz, mj):              the potential of source j at the target, without G
//                                           (the caller excludes the target itself).
// Kernels and CPU loops are templates over the law, so a new softening law is one new type.

// Plummer softening: acc += m_j d / (|d|^2 + eps^2)^{3/2}, d = x_j - x_i. eps2 is the first
// addend so that on the GPU the sum folds into three FMAs; with the rsqrt and three multiplies
// for m_j/r^3 and three FMAs for the accumulation that is 12 FP32 instructions and one MUFU per
// interaction.
//
// Guarded: when eps2 may be zero, a coincident pair (d = 0, the i = j term) would give
// 0 * inf = NaN; the guarded form contributes exactly zero there at the cost of one select.
template <class T, bool Guarded>
struct PlummerPair {
  T eps2;

  NBODY_HD void accumulate(T dx, T dy, T dz, T mj, T& ax, T& ay, T& az) const {
    const T r2 = eps2 + dx * dx + dy * dy + dz * dz;
    T inv = reciprocal_sqrt(r2);
    if constexpr (Guarded) inv = r2 > T(0) ? inv : T(0);
    const T s = mj * inv * inv * inv;
    ax += dx * s;
    ay += dy * s;
    az += dz * s;
  }

  NBODY_HD T potential(T dx, T dy, T dz, T mj) const {
    const T r2 = eps2 + dx * dx + dy * dy + dz * dz;
    return -mj * reciprocal_sqrt(r2);
  }
};

}  // namespace nbody::gravity
