#pragma once
// The fourth-order Hermite scheme for one particle, written once for the host loops and the
// CUDA kernels (Makino & Aarseth 1992, PASJ 44, 141; the corrector in the form of Hut, Makino
// & McMillan 1995, ApJ 443, L93, which equals Makino & Aarseth's Taylor-series corrector up to
// a term of fifth order in the step). Functions work on one Cartesian component at a time;
// the step criterion takes squared norms.
#include <cmath>
#include <type_traits>

#include "core/hd.hpp"

namespace nbody::hermite {

// The square root of the step criterion: CUDA's sqrtf and sqrt in a kernel, std::sqrt on the host.
template <class T>
NBODY_HD T square_root(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    return sqrtf(x);
  } else {
    return sqrt(x);
  }
#else
  return std::sqrt(x);
#endif
}

// Third-order Taylor prediction over tau = t - t_i from x, v, a, j at t_i.
template <class T>
NBODY_HD void predict(T x, T v, T a, T j, T tau, T& xp, T& vp) {
  xp = x + tau * (v + tau * (T(0.5) * a + tau * (T(1.0 / 6.0) * j)));
  vp = v + tau * (a + tau * (T(0.5) * j));
}

// The corrector over a step h from (x0, v0, a0, j0) at the start and the (a1, j1) computed
// from the predicted state at the end:
//   v1 = v0 + h/2 (a0 + a1) + h^2/12 (j0 - j1),  x1 = x0 + h/2 (v0 + v1) + h^2/12 (a0 - a1).
template <class T>
NBODY_HD void correct(T x0, T v0, T a0, T j0, T a1, T j1, T h, T& x1, T& v1) {
  const T h2 = T(1.0 / 12.0) * h * h;
  v1 = v0 + T(0.5) * h * (a0 + a1) + h2 * (j0 - j1);
  x1 = x0 + T(0.5) * h * (v0 + v1) + h2 * (a0 - a1);
}

// The second and third derivatives of a at the end of the step, from the cubic Hermite
// interpolation of a through (a0, j0) and (a1, j1): snap0 = (-6 (a0 - a1) - h (4 j0 + 2 j1)) / h^2,
// crackle = (12 (a0 - a1) + 6 h (j0 + j1)) / h^3, snap1 = snap0 + h crackle. In float64 whatever
// the state's precision: a0 - a1 is exact then, and the cancellation is the criterion's, not
// the trajectory's.
NBODY_HD void snap_crackle(double a0, double j0, double a1, double j1, double h, double& snap1, double& crackle) {
  const double ih = 1.0 / h;
  const double da = a0 - a1;
  const double snap0 = (-6.0 * da - h * (4.0 * j0 + 2.0 * j1)) * ih * ih;
  crackle = (12.0 * da + 6.0 * h * (j0 + j1)) * ih * ih * ih;
  snap1 = snap0 + h * crackle;
}

// Aarseth's criterion: dt = sqrt(eta (|a| |s| + |j|^2) / (|j| |c| + |s|^2)) from the squared
// norms of acceleration, jerk, snap and crackle. +inf or NaN (a body that feels no force)
// means "no constraint"; the caller decides.
NBODY_HD double aarseth_step(double eta, double a2, double j2, double s2, double c2) {
  const double num = square_root(a2) * square_root(s2) + j2;
  const double den = square_root(j2) * square_root(c2) + s2;
  return square_root(eta * num / den);
}

// The first step, before snap and crackle are known: eta |a| / |j| (smaller than the criterion
// above for eta < 1, so the steps grow into the regime of the full criterion).
NBODY_HD double starting_step(double eta, double a2, double j2) {
  return eta * square_root(a2 / j2);
}

}  // namespace nbody::hermite
