#pragma once
// The pairwise interaction, written once and shared by every backend and every benchmark rung
// (host and device). Kernels differ in how they walk the pairs, never in the physics.
#include <cmath>
#include <type_traits>

#include "core/hd.hpp"

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
//                                           (the caller excludes the target itself);
//   accumulate_jerk(dx, dy, dz, dvx, dvy, dvz, mj, ax, ay, az, jx, jy, jz):
//                                           the acceleration and its time derivative (the jerk)
//                                           for a source moving at dv relative to the target,
//                                           for the Hermite integrator.
// With a = m d g(r), r = |d|, the jerk is m [dv g(r) + d (d.dv) q(r)], q(r) = g'(r) / r.
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

  // g = R^-3, q = -3 R^-5 with R^2 = r^2 + eps^2: jerk = m/R^3 [dv - 3 (d.dv)/R^2 d].
  NBODY_HD void accumulate_jerk(T dx, T dy, T dz, T dvx, T dvy, T dvz, T mj, T& ax, T& ay, T& az, T& jx, T& jy,
                                T& jz) const {
    const T r2 = eps2 + dx * dx + dy * dy + dz * dz;
    T inv = reciprocal_sqrt(r2);
    if constexpr (Guarded) inv = r2 > T(0) ? inv : T(0);
    const T inv2 = inv * inv;
    const T s = mj * inv * inv2;
    const T c = T(3) * (dx * dvx + dy * dvy + dz * dvz) * inv2;
    ax += dx * s;
    ay += dy * s;
    az += dz * s;
    jx += (dvx - c * dx) * s;
    jy += (dvy - c * dy) * s;
    jz += (dvz - c * dz) * s;
  }
};

// Cubic-spline softening (GADGET-2, Springel 2005, eq. 4; the kernel of Monaghan & Lattanzio
// 1985): the field of a point mass smeared over the spline density
//   W(u) = 8/(pi h^3) {1 - 6u^2 + 6u^3 (u < 1/2); 2(1 - u)^3 (1/2 <= u < 1); 0 (u >= 1)}, u = r/h.
// With M(u) the kernel's mass inside u, g(r) = M(u) / r^3:
//   u < 1/2:      g = (32/3 - 38.4 u^2 + 32 u^3) / h^3
//   1/2 <= u < 1: g = (64/3 - 48 u + 38.4 u^2 - 32/3 u^3 - 1/(15 u^3)) / h^3
//   u >= 1:       g = 1 / r^3 (exactly Newtonian)
// and the potential phi = m W2(u) / h with W2 = -2.8 + 16/3 u^2 - 9.6 u^4 + 6.4 u^5 (u < 1/2),
// -3.2 + 1/(15 u) + 32/3 u^2 - 16 u^3 + 9.6 u^4 - 32/15 u^5 (1/2 <= u < 1), -1/u (u >= 1).
// GADGET's convention h = 2.8 eps makes phi(0) = -m / eps, Plummer's central value, so eps
// means the same depth of the potential under either law (see from_softening).
//
// h must be > 0 (eps = 0 is the unsoftened law: use the guarded PlummerPair). The i = j term
// (d = 0, u = 0) is exactly zero: d times the finite central factor.
template <class T>
struct SplinePair {
  T h;      // support of the kernel: the force is Newtonian for r >= h
  T inv_h;  // 1 / h

  static constexpr double kSupportPerSoftening = 2.8;

  [[nodiscard]] static SplinePair from_softening(double eps) {
    const double h = kSupportPerSoftening * eps;
    return {static_cast<T>(h), static_cast<T>(1.0 / h)};
  }

  // The three ranges are all evaluated and one is selected (no branches), so that the CPU
  // loops vectorise; the terms in 1/u are written with 1/r: 1/(15 u^3 h^3) = 1/(15 r^3),
  // which needs no division. At r = 0 the terms in 1/r are infinite (or NaN) but never selected.

  // g(r) for r^2 = r2.
  NBODY_HD T factor(T r2) const {
    const T inv = reciprocal_sqrt(r2);  // 1/r
    const T inv3 = inv * inv * inv;     // the Newtonian g
    const T u = (r2 > T(0) ? r2 * inv : T(0)) * inv_h;
    const T ih3 = inv_h * inv_h * inv_h;
    const T inner = ih3 * (T(32.0 / 3.0) + u * u * (T(32) * u - T(38.4)));
    const T outer = ih3 * (T(64.0 / 3.0) + u * (T(-48) + u * (T(38.4) - T(32.0 / 3.0) * u))) - T(1.0 / 15.0) * inv3;
    return r2 >= h * h ? inv3 : (u < T(0.5) ? inner : outer);
  }

  // g(r) and q(r) = g'(r) / r. Outer range: q = (-48 + 76.8 u - 32 u^2 + 0.2 u^-4) / (u h^5).
  NBODY_HD void factors(T r2, T& g, T& q) const {
    const T inv = reciprocal_sqrt(r2);
    const T inv2 = inv * inv;
    const T inv3 = inv * inv2;
    const T u = (r2 > T(0) ? r2 * inv : T(0)) * inv_h;
    const T ih3 = inv_h * inv_h * inv_h;
    const T ih4 = ih3 * inv_h;
    const T ih5 = ih4 * inv_h;
    const T g_inner = ih3 * (T(32.0 / 3.0) + u * u * (T(32) * u - T(38.4)));
    const T q_inner = ih5 * (T(96) * u - T(76.8));
    const T g_outer = ih3 * (T(64.0 / 3.0) + u * (T(-48) + u * (T(38.4) - T(32.0 / 3.0) * u))) - T(1.0 / 15.0) * inv3;
    const T q_outer = ih5 * (T(76.8) - T(32) * u) - T(48) * ih4 * inv + T(0.2) * inv3 * inv2;
    const bool newtonian = r2 >= h * h;
    const bool inner = u < T(0.5);
    g = newtonian ? inv3 : (inner ? g_inner : g_outer);
    q = newtonian ? T(-3) * inv3 * inv2 : (inner ? q_inner : q_outer);
  }

  NBODY_HD void accumulate(T dx, T dy, T dz, T mj, T& ax, T& ay, T& az) const {
    const T s = mj * factor(dx * dx + dy * dy + dz * dz);
    ax += dx * s;
    ay += dy * s;
    az += dz * s;
  }

  // Outer range: 1/(15 u) / h = 1/(15 r).
  NBODY_HD T potential(T dx, T dy, T dz, T mj) const {
    const T r2 = dx * dx + dy * dy + dz * dz;
    const T inv = reciprocal_sqrt(r2);
    const T u = (r2 > T(0) ? r2 * inv : T(0)) * inv_h;
    const T inner = inv_h * (T(-2.8) + u * u * (T(16.0 / 3.0) + u * u * (T(6.4) * u - T(9.6))));
    const T outer = inv_h * (T(-3.2) + u * u * (T(32.0 / 3.0) + u * (T(-16) + u * (T(9.6) - T(32.0 / 15.0) * u)))) +
                    T(1.0 / 15.0) * inv;
    return mj * (r2 >= h * h ? -inv : (u < T(0.5) ? inner : outer));
  }

  NBODY_HD void accumulate_jerk(T dx, T dy, T dz, T dvx, T dvy, T dvz, T mj, T& ax, T& ay, T& az, T& jx, T& jy,
                                T& jz) const {
    T g, q;
    factors(dx * dx + dy * dy + dz * dz, g, q);
    const T s = mj * g;
    const T c = mj * q * (dx * dvx + dy * dvy + dz * dvz);
    ax += dx * s;
    ay += dy * s;
    az += dz * s;
    jx += dvx * s + dx * c;
    jy += dvy * s + dy * c;
    jz += dvz * s + dz * c;
  }
};

}  // namespace nbody::gravity
