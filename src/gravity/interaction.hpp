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
// float32 1/sqrt(x) as the bare MUFU.RSQ (rsqrtf() adds a multiply-compare-multiply fix-up for
// denormal inputs, 3 of the 16 instructions a pair would cost). ftz: a denormal r^2 (r < 1e-19)
// is treated as 0, which the guarded laws handle like any coincident pair.
__device__ __forceinline__ float fast_rsqrt(float x) {
  float y;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// The hardware's float64 estimate of 1/sqrt(x) from the high word (MUFU.RSQ64H, ~2^-22).
// rsqrt.approx.f64 (no ftz) compiles to that plus a Newton step and a branch to a slow path for
// subnormal inputs; the ftz form is the bare estimate, which the callers refine themselves.
__device__ __forceinline__ double rsqrt_estimate(double x) {
  double y;
  asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
  return y;
}

// float64 1/sqrt(x): the estimate y refined by one third-order Householder step
// y (1 + e/2 + 3e^2/8), e = 1 - x y^2, which cubes the relative error to ~1e-20, under the final
// rounding: about 1 ulp, like CUDA's rsqrt() and cheaper. x = 0 gives NaN (guarded laws select it
// away).
__device__ __forceinline__ double fast_rsqrt(double x) {
  const double y = rsqrt_estimate(x);
  const double e = fma(-x, y * y, 1.0);
  return fma(y, e * fma(e, 0.375, 0.5), y);
}
#endif

// 1/sqrt(x): the hardware approximation on the GPU, a correctly rounded division on the host.
template <class T>
NBODY_HD T reciprocal_sqrt(T x) {
#if defined(__CUDA_ARCH__)
  return fast_rsqrt(x);
#else
  return T(1) / std::sqrt(x);
#endif
}

// m / x^{3/2}, the factor of a Plummer pair term (x = r^2 + eps^2).
// float32: MUFU.RSQ then three multiplies. float64 on the GPU: from the estimate y, with
// e = 1 - x y^2, m/x^{3/2} = m y^3 (1 - e)^{-3/2} = m y^3 (1 + 3e/2 + 15e^2/8 + O(e^3)): seven
// FP64 instructions after the estimate instead of five to refine 1/sqrt and three to cube it —
// 16 FP64 instructions a pair in all; about 2 ulp.
template <class T>
NBODY_HD T mass_over_cube(T m, T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, double>) {
    const double y = rsqrt_estimate(x);
    const double y2 = y * y;
    const double e = fma(-x, y2, 1.0);
    const double my3 = (m * y) * y2;
    return fma(my3, e * fma(e, 1.875, 1.5), my3);
  }
#endif
  const T inv = reciprocal_sqrt(x);
  return m * inv * inv * inv;
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
    T s = mass_over_cube(mj, r2);
    if constexpr (Guarded) s = r2 > T(0) ? s : T(0);
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
