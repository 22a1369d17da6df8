#pragma once
// IAS15 (Rein & Spiegel 2015, MNRAS 446, 1424) for one small system: Everhart's 15th-order
// Gauss-Radau predictor-corrector with an adaptive step, written once for every backend as
// system_step.hpp is (an `Exec` policy; the same operations in the same order on the CPU and
// the GPU). Over a step of length dt the acceleration of each coordinate is the polynomial
//   a(t0 + tau dt) = a0 + b0 tau + b1 tau^2 + ... + b6 tau^7,
// fitted through the accelerations at the seven non-zero Gauss-Radau nodes h1 ... h7 by
// iterating: the positions predicted at each node from the current b, the force evaluated
// there, the divided differences g (the polynomial's Newton form) and with them b updated,
// until the change of b6 is below 1e-16 of the acceleration (or 12 iterations). The step's
// error is |b6| / |a| (the largest over the system, the "global" criterion): the next step is
// dt (epsilon / error)^(1/7), at most 4 dt; a step whose next would be below dt / 4 is done
// again with it. Positions, velocities and b's are summed with compensation (Kahan).
// The b's of a step predict the next step's (the polynomial continued); each interval starts
// them at zero (as hermite4_symmetric drops its low parts there): a system's bits depend on the
// interval schedule, never on the batch or the backend, and a resume repeats them.
#include <cmath>

#include "core/hd.hpp"
#include "ensemble/system_step.hpp"

namespace nbody::ensemble {

// The Gauss-Radau nodes on [0, 1] (h0 = 0 and the roots of P7 + P8 at 2h - 1) and the
// coefficients that follow from them, computed by the compiler from the nodes alone.
struct RadauTable {
  double h[8];
  double rinv[8][8];  // 1 / (h_n - h_j), j < n
  double c[7][7];     // c[j][k]: the coefficient of h^(k+1) in h (h - h1) ... (h - h_j)
  double xk[7];       // 1 / ((k + 2)(k + 3)): b_k's share of the position
  double vk[7];       // 1 / (k + 2): of the velocity
};

constexpr RadauTable make_radau_table() {
  RadauTable t{};
  const double nodes[8] = {0.0,
                           0.05626256053692214646565219103231117577976551474455,
                           0.18024069173689236498757994280918178454206062080545,
                           0.35262471711316963737390777017124120280802188305727,
                           0.54715362633055538300144855765234885464038592789915,
                           0.73421017721541053152321060830661000256300311859440,
                           0.88532094683909576809035976293248537292227017546805,
                           0.97752061356128750189117450042915494007782609276440};
  for (int n = 0; n < 8; ++n) t.h[n] = nodes[n];
  for (int n = 0; n < 8; ++n)
    for (int j = 0; j < 8; ++j) t.rinv[n][j] = j < n ? 1.0 / (nodes[n] - nodes[j]) : 0.0;
  // The product h (h - h1) ... (h - h_j), coefficients of h^1 ... h^(j+1), built factor by factor.
  double poly[8] = {0, 1, 0, 0, 0, 0, 0, 0};  // h
  for (int j = 0; j < 7; ++j) {
    if (j > 0) {
      double next[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int q = 0; q < 8; ++q) {
        if (q + 1 < 8) next[q + 1] += poly[q];
        next[q] -= nodes[j] * poly[q];
      }
      for (int q = 0; q < 8; ++q) poly[q] = next[q];
    }
    for (int k = 0; k < 7; ++k) t.c[j][k] = k <= j ? poly[k + 1] : 0.0;
  }
  for (int k = 0; k < 7; ++k) t.xk[k] = 1.0 / double((k + 2) * (k + 3)), t.vk[k] = 1.0 / double(k + 2);
  return t;
}

// The table every backend uses: computed by the host compiler once (ias15_table.cpp); the GPU
// backend copies these bits to its constant memory, so that no second compiler's constant
// folding enters the arithmetic.
const RadauTable& radau_table();

// The scratch of IAS15 (beyond SystemRef's arrays): per body and coordinate the b's, the g's and
// the low parts of the b's compensated sums: kIas15Arrays arrays of `stride` doubles.
inline constexpr int kIas15Arrays = 3 * 7 * 3;
struct Ias15Work {
  double* base;
  long long stride;
  NBODY_HD double* b(int k, int c) const { return base + (k * 3 + c) * stride; }
  NBODY_HD double* g(int k, int c) const { return base + (21 + k * 3 + c) * stride; }
  NBODY_HD double* cb(int k, int c) const { return base + (42 + k * 3 + c) * stride; }
};

inline constexpr double kIas15Safety = 0.25;       // the step grows at most 1 / kIas15Safety
inline constexpr double kIas15Converged = 1e-16;  // |change of b6| / |a|: the corrector is done
inline constexpr int kIas15Iterations = 12;
// epsilon / error at which the step would grow by 1 / kIas15Safety or more: (1 / 0.25)^7.
inline constexpr double kIas15GrowthRatio = 16384.0;

// sum += add with its low part `low` (Kahan): the sum is sum - low.
NBODY_HD void add_compensated(double& sum, double& low, double add) {
  const double y = add - low;
  const double t = sum + y;
  low = (t - sum) - y;
  sum = t;
}

// v^(1/7) for a finite v >= 0 (the step's ratio; 0 for anything else): the exponent split off
// exactly, then Newton on the mantissa a fixed number of times (the same operations on every
// backend; pow's last bits are not).
NBODY_HD double seventh_root(double v) {
  if (!(v > 0 && v < INFINITY)) return 0;
  int e = 0;
  double m = frexp(v, &e);  // v = m 2^e, m in [0.5, 1)
  int q = e >= 0 ? e / 7 : -((-e + 6) / 7);
  const int r = e - 7 * q;  // 0 ... 6
  m = ldexp(m, r);          // in [0.5, 64): its root in [0.9, 1.9)
  double y = 1.5;
  for (int it = 0; it < 10; ++it) {
    const double y3 = y * y * y;
    y = (6.0 * y + m / (y3 * y3)) / 7.0;
  }
  return ldexp(y, q);
}

// The largest of v[0..n) (every lane reads them all).
NBODY_HD double max_of(const double* v, int n) {
  double r = 0;
  for (int i = 0; i < n; ++i) r = v[i] > r ? v[i] : r;
  return r;
}

namespace ias15_detail {

// evaluate() for positions split as base + offset (the start of the step and the increment
// from it, or a position and minus its low part): the separations as (base_j - base_i) +
// (offset_j - offset_i), so that two bodies close to each other far from the origin have a
// separation rounded as the separation, not as their positions (the corrector's b6 would else
// see that rounding as an error, and the step would shrink with it).
template <class Exec>
NBODY_HD void forces_split(const SystemRef& s, const double* bx, const double* by, const double* bz,
                           const double* ox, const double* oy, const double* oz, double eps2, Exec& ex) {
  ex.for_bodies(s.n, [&](int i) {
    double ax = 0, ay = 0, az = 0, rmin2 = INFINITY;
    for (int j = 0; j < s.n; ++j) {
      if (j == i) continue;
      const double dx = (bx[j] - bx[i]) + (ox[j] - ox[i]);
      const double dy = (by[j] - by[i]) + (oy[j] - oy[i]);
      const double dz = (bz[j] - bz[i]) + (oz[j] - oz[i]);
      const double d2 = dx * dx + dy * dy + dz * dz;
      rmin2 = d2 < rmin2 ? d2 : rmin2;
      const double inv = inv_root(d2 + eps2);
      const double mr3 = s.m[j] * inv * inv * inv;
      ax += mr3 * dx, ay += mr3 * dy, az += mr3 * dz;
    }
    s.ax[i] = ax, s.ay[i] = ay, s.az[i] = az;
    s.w[i] = rmin2;
  });
  ex.sync();
}

// The bodies' coordinate c: position, velocity, acceleration, their start-of-step copies and
// the low parts of x and v (SystemRef's hermite arrays, which IAS15 does not otherwise use).
struct Coord {
  double *x, *v, *a, *x0, *v0, *a0, *cx, *cv;
};
NBODY_HD Coord coord(const SystemRef& s, int c) {
  if (c == 0) return {s.x, s.vx, s.ax, s.x0, s.vx0, s.ax0, s.cx, s.cvx};
  if (c == 1) return {s.y, s.vy, s.ay, s.y0, s.vy0, s.ay0, s.cy, s.cvy};
  return {s.z, s.vz, s.az, s.z0, s.vz0, s.az0, s.cz, s.cvz};
}

// The offset from x0 of body i at node fraction hn of a step dt from the current b's (its low
// part included: the position is x0 + the offset).
NBODY_HD double offset_at(const RadauTable& R, const Ias15Work& w, int c, int i, const Coord& q, double hn,
                          double dt) {
  double p = 0;
  for (int k = 6; k >= 0; --k) p = (p + w.b(k, c)[i] * R.xk[k]) * hn;
  const double dh = dt * hn;
  const double inc = dh * (q.v0[i] + dh * (0.5 * q.a0[i] + p));
  return inc - q.cx[i];
}

// The force of the state: the positions x less their low parts (jx, jy, jz hold the offsets).
template <class Exec>
NBODY_HD void ias15_forces(const SystemRef& s, double eps2, Exec& ex) {
  ex.for_bodies(s.n, [&](int i) { s.jx[i] = -s.cx[i], s.jy[i] = -s.cy[i], s.jz[i] = -s.cz[i]; });
  ex.sync();
  forces_split(s, s.x, s.y, s.z, s.jx, s.jy, s.jz, eps2, ex);
}

}  // namespace ias15_detail

// One IAS15 step of length dt from the current state (a current, at it). Returns false where
// the step is rejected (the state as it was, the b's scaled to the shorter step dt_new); true
// where it is taken: x, v, a at its end, rmin2 the smallest squared separation of its last
// iteration's nodes and its end, dt_new the next step (at most 4 dt; the caller caps it).
template <class Exec>
NBODY_HD bool ias15_step(const RadauTable& R, const SystemRef& s, const Ias15Work& w, double dt, double eps2,
                         double epsilon, double& dt_new, double& rmin2, Exec& ex) {
  using namespace ias15_detail;
  // The start: x0, v0, a0; g from the predicted b's (the Newton form of the same polynomial).
  ex.for_bodies(s.n, [&](int i) {
    for (int c = 0; c < 3; ++c) {
      const Coord q = coord(s, c);
      q.x0[i] = q.x[i], q.v0[i] = q.v[i], q.a0[i] = q.a[i];
      for (int j = 6; j >= 0; --j) {
        double g = w.b(j, c)[i];
        for (int m = j + 1; m < 7; ++m) g -= R.c[m][j] * w.g(m, c)[i];
        w.g(j, c)[i] = g;
        w.cb(j, c)[i] = 0;
      }
    }
  });
  ex.sync();
  double err = 1e300, err_last = 2;
  double node_rmin2 = INFINITY;
  for (int it = 0;; ++it) {
    if (err < kIas15Converged || (it > 2 && err_last <= err) || it >= kIas15Iterations) break;
    err_last = err;
    node_rmin2 = INFINITY;
    for (int n = 1; n < 8; ++n) {
      // (x holds the offsets from x0 while the step runs)
      ex.for_bodies(s.n, [&](int i) {
        for (int c = 0; c < 3; ++c) coord(s, c).x[i] = offset_at(R, w, c, i, coord(s, c), R.h[n], dt);
      });
      ex.sync();
      forces_split(s, s.x0, s.y0, s.z0, s.x, s.y, s.z, eps2, ex);
      const double r2 = min_w(s);
      node_rmin2 = r2 < node_rmin2 ? r2 : node_rmin2;
      ex.sync();  // (every lane has read w)
      ex.for_bodies(s.n, [&](int i) {
        double dmax = 0, amax = 0;
        for (int c = 0; c < 3; ++c) {
          const Coord q = coord(s, c);
          // The divided difference g_(n-1) from the acceleration at node n, and its change.
          double g = (q.a[i] - q.a0[i]) * R.rinv[n][0];
          for (int j = 1; j < n; ++j) g = (g - w.g(j - 1, c)[i]) * R.rinv[n][j];
          double* gn = w.g(n - 1, c) + i;
          const double d = g - *gn;
          *gn = g;
          for (int k = 0; k < n; ++k) add_compensated(w.b(k, c)[i], w.cb(k, c)[i], d * R.c[n - 1][k]);
          dmax = fabs(d) > dmax ? fabs(d) : dmax;
          amax = fabs(q.a[i]) > amax ? fabs(q.a[i]) : amax;
        }
        if (n == 7) s.jx[i] = dmax, s.jy[i] = amax;
      });
      ex.sync();
    }
    const double amax = max_of(s.jy, s.n);
    err = amax > 0 ? max_of(s.jx, s.n) / amax : 0.0;
    ex.sync();  // (every lane has read jx, jy)
  }
  // The step's error: the largest |b6| against the largest |a| at the last node.
  ex.for_bodies(s.n, [&](int i) {
    double bmax = 0;
    for (int c = 0; c < 3; ++c) {
      const double b6 = fabs(w.b(6, c)[i]);
      bmax = b6 > bmax ? b6 : bmax;
    }
    s.jx[i] = bmax;
  });
  ex.sync();
  const double amax = max_of(s.jy, s.n);
  const double error = amax > 0 ? max_of(s.jx, s.n) / amax : 0.0;
  ex.sync();
  // (no error to measure, 0 or NaN: the largest growth; an infinite one: rejected below)
  const double ratio_e = epsilon / error;
  if (!(error > 0)) dt_new = dt / kIas15Safety;
  else if (!(error < INFINITY)) dt_new = 0;
  else dt_new = ratio_e >= kIas15GrowthRatio ? dt / kIas15Safety : dt * seventh_root(ratio_e);
  if (!(dt_new >= kIas15Safety * dt)) {
    // Rejected: the state of the start; the same polynomial over the shorter step as the predictor.
    if (!(dt_new > 0)) dt_new = kIas15Safety * dt;  // (an infinite error: a quarter)
    const double ratio = dt_new / dt;
    ex.for_bodies(s.n, [&](int i) {
      for (int c = 0; c < 3; ++c) {
        const Coord q = coord(s, c);
        q.x[i] = q.x0[i], q.v[i] = q.v0[i], q.a[i] = q.a0[i];
        double f = ratio;
        for (int k = 0; k < 7; ++k, f *= ratio) w.b(k, c)[i] *= f;
      }
    });
    ex.sync();
    return false;
  }
  if (dt_new > dt / kIas15Safety) dt_new = dt / kIas15Safety;
  // Taken: x and v at the step's end (compensated), then the force there.
  ex.for_bodies(s.n, [&](int i) {
    for (int c = 0; c < 3; ++c) {
      const Coord q = coord(s, c);
      double px = 0, pv = 0;
      for (int k = 6; k >= 0; --k) px += w.b(k, c)[i] * R.xk[k], pv += w.b(k, c)[i] * R.vk[k];
      q.x[i] = q.x0[i], q.v[i] = q.v0[i];
      add_compensated(q.x[i], q.cx[i], dt * (q.v0[i] + dt * (0.5 * q.a0[i] + px)));
      add_compensated(q.v[i], q.cv[i], dt * (q.a0[i] + pv));
    }
  });
  ex.sync();
  ias15_forces(s, eps2, ex);
  const double r2 = min_w(s);
  rmin2 = r2 < node_rmin2 ? r2 : node_rmin2;
  ex.sync();
  return true;
}

// The b's of a taken step continued to predict the next one, ratio = its length / this one's:
// the polynomial re-expanded about the step's end, b'_m = ratio^(m+1) sum_(k>=m) C(k+1, m+1) b_k.
template <class Exec>
NBODY_HD void ias15_predict(const SystemRef& s, const Ias15Work& w, double ratio, Exec& ex) {
  ex.for_bodies(s.n, [&](int i) {
    for (int c = 0; c < 3; ++c) {
      double b[7];
      for (int k = 0; k < 7; ++k) b[k] = w.b(k, c)[i];
      double f = ratio;
      for (int m = 0; m < 7; ++m, f *= ratio) {
        double sum = 0, binom = 1;  // C(k + 1, m + 1) from k = m up
        for (int k = m; k < 7; ++k) {
          sum += binom * b[k];
          binom = binom * double(k + 2) / double(k + 1 - m);
        }
        w.b(m, c)[i] = f * sum;
      }
    }
  });
  ex.sync();
}

// IAS15 from st.t to t_target (a current at the start, rmin2 its smallest squared separation):
// the steps stop at a collision, below min_dt (step_limit) or where the state is not finite; the
// last step ends at t_target exactly. rmin2 is left at the state's.
template <class Exec>
NBODY_HD void ias15_interval(const RadauTable& R, const SystemRef& s, const Params& p, SystemState& st,
                             double t_target, double& rmin2, Exec& ex) {
  const Ias15Work w{s.ias, s.ias_stride};
  ex.for_bodies(s.n, [&](int i) {
    s.cx[i] = s.cy[i] = s.cz[i] = s.cvx[i] = s.cvy[i] = s.cvz[i] = 0;
    for (int a = 0; a < kIas15Arrays; ++a) w.base[a * w.stride + i] = 0;
  });
  ex.sync();
  const double coll2 = p.collision_radius * p.collision_radius;
  while (st.t < t_target) {
    if (coll2 > 0 && rmin2 < coll2) break;
    if (st.dt < p.min_dt) {
      st.status = int(Outcome::step_limit), st.stop_time = st.t;
      return;
    }
    const double left = t_target - st.t;
    const bool last = st.dt >= left;
    const double h = last ? left : st.dt;
    double next = 0, r2 = rmin2;
    if (!ias15_step(R, s, w, h, p.eps2, p.epsilon, next, r2, ex)) {
      st.dt = next;
      continue;
    }
    rmin2 = r2;
    st.t = last ? t_target : st.t + h;
    ++st.steps;
    // A step cut short to meet the interval's end leaves the step size as it was (as the
    // adaptive Hermite does): its error estimate speaks for a shorter step.
    if (!last || h >= 0.5 * st.dt) st.dt = next < p.dt ? next : p.dt;
    if (!finite_state(s)) {
      st.status = int(Outcome::diverged), st.stop_time = st.t;
      return;
    }
    if (!last) ias15_predict(s, w, st.dt / h, ex);
  }
}

// advance_system for IAS15: from st.t to t_target, then the end-of-interval checks.
template <class Exec>
NBODY_HD void advance_ias15(const RadauTable& R, const SystemRef& s, const Params& p, SystemState& st,
                           double t_target, Exec& ex) {
  if (st.status != int(Outcome::running)) return;
  evaluate(s, p.eps2, false, ex);
  double rmin2 = min_w(s);
  ex.sync();
  ias15_interval(R, s, p, st, t_target, rmin2, ex);
  if (st.status == int(Outcome::running)) finish_interval(s, p, st, rmin2, ex);
}

}  // namespace nbody::ensemble
