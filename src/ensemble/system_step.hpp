#pragma once
// One small system advanced to a target time: the integrators (leapfrog KDK, Yoshida's fourth
// order, Hermite with a fixed or an adaptive per-system step; IAS15 in ias15_step.hpp, included at
// the end) and the per-system stop conditions,
// written once for the CPU loop and the CUDA kernel. The backend is an `Exec` policy:
//   for_bodies(n, f)  calls f(i) for every body (the CPU: in order; the GPU: a warp's lanes)
//   sync()            every body's writes visible to all (the GPU: __syncwarp)
// Every value is computed by the same operations in the same order on every backend: a body's
// force sums j = 0..n-1 in order, and a sum over bodies is read in order by every lane alone
// (no tree reduction), so the CPU (compiled without FMA contraction) and the GPU (-fmad=false)
// follow the same arithmetic. A system's result depends on nothing but its own bodies and the
// parameters: not on the batch, the thread or the launch.
#include <cmath>
#include <cstdint>

#include "core/hd.hpp"
#include "ensemble/params.hpp"
#include "particles/hermite_math.hpp"

namespace nbody::ensemble {

// The bodies of one system and their work arrays (any memory the backend chooses: the store's,
// or a GPU block's shared memory).
struct SystemRef {
  int n = 0;
  double *x, *y, *z, *vx, *vy, *vz;
  const double* m;
  double *ax, *ay, *az, *jx, *jy, *jz;  // acceleration and jerk at the current state
  // Hermite's start-of-step copies (x0, v0, a0, j0) and one per-body scratch value.
  double *x0, *y0, *z0, *vx0, *vy0, *vz0, *ax0, *ay0, *az0, *jx0, *jy0, *jz0, *w;
  // The low parts of the compensated sums of x and v (hermite4_symmetric, within an interval).
  double *cx, *cy, *cz, *cvx, *cvy, *cvz;
  // IAS15's further work arrays (ias15_step.hpp: kIas15Arrays of ias_stride doubles), or null.
  double* ias = nullptr;
  long long ias_stride = 0;
};

// The per-system scalars that a step changes (the store keeps them between intervals).
struct SystemState {
  double t = 0, dt = 0;
  double e0 = 0, l0 = 0;  // energy and |L| at the start
  std::int64_t steps = 0;
  int status = 0;  // Outcome
  double stop_time = 0;
};

// Square root as in hermite_math.hpp (correctly rounded on both backends).
NBODY_HD double root(double v) { return hermite::square_root(v); }
// 1 / sqrt(r2) of a pair's force, as every kernel of every backend computes it.
NBODY_HD double inv_root(double r2) { return 1.0 / root(r2); }

// Yoshida's weights: w1 = 1 / (2 - 2^(1/3)), w0 = 1 - 2 w1.
inline constexpr double kYoshidaW1 = 1.3512071919596576;
inline constexpr double kYoshidaW0 = -1.7024143839193153;

// Accelerations (and jerks) from the positions (and velocities); w[i] = the smallest squared
// separation of body i from any other (the collision check).
template <class Exec>
NBODY_HD void evaluate(const SystemRef& s, double eps2, bool jerk, Exec& ex) {
  ex.for_bodies(s.n, [&](int i) {
    double ax = 0, ay = 0, az = 0, jx = 0, jy = 0, jz = 0, rmin2 = INFINITY;
    const double xi = s.x[i], yi = s.y[i], zi = s.z[i];
    for (int j = 0; j < s.n; ++j) {
      if (j == i) continue;
      const double dx = s.x[j] - xi, dy = s.y[j] - yi, dz = s.z[j] - zi;
      const double d2 = dx * dx + dy * dy + dz * dz;
      rmin2 = d2 < rmin2 ? d2 : rmin2;
      const double r2 = d2 + eps2;
      const double inv = inv_root(r2);
      const double mr3 = s.m[j] * inv * inv * inv;
      ax += mr3 * dx, ay += mr3 * dy, az += mr3 * dz;
      if (jerk) {
        const double dvx = s.vx[j] - s.vx[i], dvy = s.vy[j] - s.vy[i], dvz = s.vz[j] - s.vz[i];
        const double rv = 3.0 * (dx * dvx + dy * dvy + dz * dvz) / r2;
        jx += mr3 * (dvx - rv * dx), jy += mr3 * (dvy - rv * dy), jz += mr3 * (dvz - rv * dz);
      }
    }
    s.ax[i] = ax, s.ay[i] = ay, s.az[i] = az;
    if (jerk) s.jx[i] = jx, s.jy[i] = jy, s.jz[i] = jz;
    s.w[i] = rmin2;
  });
  ex.sync();
}

// The smallest of w[0..n) (every lane reads them all: the same value everywhere).
NBODY_HD double min_w(const SystemRef& s) {
  double v = INFINITY;
  for (int i = 0; i < s.n; ++i) v = s.w[i] < v ? s.w[i] : v;
  return v;
}
NBODY_HD double sum_w(const SystemRef& s) {
  double v = 0;
  for (int i = 0; i < s.n; ++i) v += s.w[i];
  return v;
}

template <class Exec>
NBODY_HD void kick(const SystemRef& s, double h, Exec& ex) {
  ex.for_bodies(s.n, [&](int i) { s.vx[i] += h * s.ax[i], s.vy[i] += h * s.ay[i], s.vz[i] += h * s.az[i]; });
  ex.sync();
}
template <class Exec>
NBODY_HD void drift(const SystemRef& s, double h, Exec& ex) {
  ex.for_bodies(s.n, [&](int i) { s.x[i] += h * s.vx[i], s.y[i] += h * s.vy[i], s.z[i] += h * s.vz[i]; });
  ex.sync();
}

// Kick-drift-kick over h (the accelerations at the start are current; so are those at the end).
template <class Exec>
NBODY_HD void leapfrog_kdk(const SystemRef& s, double h, double eps2, Exec& ex) {
  kick(s, 0.5 * h, ex);
  drift(s, h, ex);
  evaluate(s, eps2, false, ex);
  kick(s, 0.5 * h, ex);
}

// Yoshida's fourth-order composition of three KDK steps.
template <class Exec>
NBODY_HD void yoshida4_step(const SystemRef& s, double h, double eps2, Exec& ex) {
  leapfrog_kdk(s, kYoshidaW1 * h, eps2, ex);
  leapfrog_kdk(s, kYoshidaW0 * h, eps2, ex);
  leapfrog_kdk(s, kYoshidaW1 * h, eps2, ex);
}

// The Hermite corrector of one component with compensated (Kahan) summation: the increments
// of hermite::correct added to the start-of-step x0, v0 with the low parts cx, cv carried from
// step to step (written only with `commit`, the last correction of a step).
NBODY_HD void correct_compensated(double x0, double v0, double a0, double j0, double a1, double j1, double h,
                                  double& cx, double& cv, bool commit, double& x1, double& v1) {
  const double h2 = (1.0 / 12.0) * h * h;
  const double yv = (0.5 * h * (a0 + a1) + h2 * (j0 - j1)) - cv;
  const double tv = v0 + yv;
  const double yx = (0.5 * h * (v0 + tv) + h2 * (a0 - a1)) - cx;
  const double tx = x0 + yx;
  if (commit) cv = (tv - v0) - yv, cx = (tx - x0) - yx;
  x1 = tx, v1 = tv;
}

// One Hermite step over h (a and j current at the start and the end): predict, then
// `iterations` times evaluate and correct (P(EC)^n: n = 2 makes the scheme nearly
// time-symmetric); with `compensated`, the corrections by correct_compensated. With `next_dt`,
// the Aarseth step of the system (the smallest over its bodies) goes there.
template <class Exec>
NBODY_HD void hermite4_step(const SystemRef& s, double h, double eps2, double eta, double* next_dt, Exec& ex,
                            int iterations = 1, bool compensated = false) {
  ex.for_bodies(s.n, [&](int i) {
    s.x0[i] = s.x[i], s.y0[i] = s.y[i], s.z0[i] = s.z[i];
    s.vx0[i] = s.vx[i], s.vy0[i] = s.vy[i], s.vz0[i] = s.vz[i];
    s.ax0[i] = s.ax[i], s.ay0[i] = s.ay[i], s.az0[i] = s.az[i];
    s.jx0[i] = s.jx[i], s.jy0[i] = s.jy[i], s.jz0[i] = s.jz[i];
    hermite::predict(s.x0[i], s.vx0[i], s.ax0[i], s.jx0[i], h, s.x[i], s.vx[i]);
    hermite::predict(s.y0[i], s.vy0[i], s.ay0[i], s.jy0[i], h, s.y[i], s.vy[i]);
    hermite::predict(s.z0[i], s.vz0[i], s.az0[i], s.jz0[i], h, s.z[i], s.vz[i]);
  });
  ex.sync();
  double rmin2 = INFINITY;
  for (int it = 0; it < iterations; ++it) {
    const bool last = it + 1 == iterations;
    evaluate(s, eps2, true, ex);
    if (it == 0) rmin2 = min_w(s);
    ex.sync();  // (every lane has read w before it is reused)
    ex.for_bodies(s.n, [&](int i) {
      if (compensated) {
        correct_compensated(s.x0[i], s.vx0[i], s.ax0[i], s.jx0[i], s.ax[i], s.jx[i], h, s.cx[i], s.cvx[i], last, s.x[i], s.vx[i]);
        correct_compensated(s.y0[i], s.vy0[i], s.ay0[i], s.jy0[i], s.ay[i], s.jy[i], h, s.cy[i], s.cvy[i], last, s.y[i], s.vy[i]);
        correct_compensated(s.z0[i], s.vz0[i], s.az0[i], s.jz0[i], s.az[i], s.jz[i], h, s.cz[i], s.cvz[i], last, s.z[i], s.vz[i]);
      } else {
        hermite::correct(s.x0[i], s.vx0[i], s.ax0[i], s.jx0[i], s.ax[i], s.jx[i], h, s.x[i], s.vx[i]);
        hermite::correct(s.y0[i], s.vy0[i], s.ay0[i], s.jy0[i], s.ay[i], s.jy[i], h, s.y[i], s.vy[i]);
        hermite::correct(s.z0[i], s.vz0[i], s.az0[i], s.jz0[i], s.az[i], s.jz[i], h, s.z[i], s.vz[i]);
      }
      if (last && next_dt != nullptr) {
        double sx, sy, sz, cx, cy, cz;
        hermite::snap_crackle(s.ax0[i], s.jx0[i], s.ax[i], s.jx[i], h, sx, cx);
        hermite::snap_crackle(s.ay0[i], s.jy0[i], s.ay[i], s.jy[i], h, sy, cy);
        hermite::snap_crackle(s.az0[i], s.jz0[i], s.az[i], s.jz[i], h, sz, cz);
        const double a2 = s.ax[i] * s.ax[i] + s.ay[i] * s.ay[i] + s.az[i] * s.az[i];
        const double j2 = s.jx[i] * s.jx[i] + s.jy[i] * s.jy[i] + s.jz[i] * s.jz[i];
        const double dt = hermite::aarseth_step(eta, a2, j2, sx * sx + sy * sy + sz * sz, cx * cx + cy * cy + cz * cz);
        s.w[i] = dt == dt ? dt : INFINITY;  // (NaN: a body without force sets no limit)
      }
    });
    ex.sync();
  }
  if (next_dt != nullptr) *next_dt = min_w(s);
  ex.sync();
  // The corrected state's force for the next step: Hermite keeps the last evaluated a, j (at the
  // prediction, or with iterations at the previous correction), as is usual for P(EC)^n; the
  // smallest separation of the step is the prediction's.
  ex.for_bodies(s.n, [&](int i) { s.w[i] = rmin2; });
  ex.sync();
}

// Energy (kinetic + potential) of the system; |L| its angular momentum's norm about the origin.
template <class Exec>
NBODY_HD double energy(const SystemRef& s, double eps2, Exec& ex) {
  ex.for_bodies(s.n, [&](int i) {
    double pot = 0;
    for (int j = i + 1; j < s.n; ++j) {
      const double dx = s.x[j] - s.x[i], dy = s.y[j] - s.y[i], dz = s.z[j] - s.z[i];
      pot += s.m[j] / root(dx * dx + dy * dy + dz * dz + eps2);
    }
    const double v2 = s.vx[i] * s.vx[i] + s.vy[i] * s.vy[i] + s.vz[i] * s.vz[i];
    s.w[i] = s.m[i] * (0.5 * v2 - pot);
  });
  ex.sync();
  const double e = sum_w(s);
  ex.sync();
  return e;
}

NBODY_HD void angular_momentum(const SystemRef& s, double L[3]) {
  L[0] = L[1] = L[2] = 0;
  for (int i = 0; i < s.n; ++i) {
    L[0] += s.m[i] * (s.y[i] * s.vz[i] - s.z[i] * s.vy[i]);
    L[1] += s.m[i] * (s.z[i] * s.vx[i] - s.x[i] * s.vz[i]);
    L[2] += s.m[i] * (s.x[i] * s.vy[i] - s.y[i] * s.vx[i]);
  }
}
NBODY_HD double norm3(const double v[3]) { return root(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

// Whether a body has escaped: farther than r_escape from the centre of mass of the others,
// moving away from it, with a positive energy relative to them (point masses).
NBODY_HD bool escaped(const SystemRef& s, double r_escape) {
  for (int i = 0; i < s.n; ++i) {
    double mo = 0, cx = 0, cy = 0, cz = 0, ux = 0, uy = 0, uz = 0;
    for (int j = 0; j < s.n; ++j) {
      if (j == i) continue;
      mo += s.m[j];
      cx += s.m[j] * s.x[j], cy += s.m[j] * s.y[j], cz += s.m[j] * s.z[j];
      ux += s.m[j] * s.vx[j], uy += s.m[j] * s.vy[j], uz += s.m[j] * s.vz[j];
    }
    if (!(mo > 0)) continue;
    const double dx = s.x[i] - cx / mo, dy = s.y[i] - cy / mo, dz = s.z[i] - cz / mo;
    const double dvx = s.vx[i] - ux / mo, dvy = s.vy[i] - uy / mo, dvz = s.vz[i] - uz / mo;
    const double r2 = dx * dx + dy * dy + dz * dz;
    if (r2 <= r_escape * r_escape || dx * dvx + dy * dvy + dz * dvz <= 0) continue;
    const double v2 = dvx * dvx + dvy * dvy + dvz * dvz;
    if (0.5 * v2 - (mo + s.m[i]) / root(r2) > 0) return true;
  }
  return false;
}

NBODY_HD bool finite_state(const SystemRef& s) {
  for (int i = 0; i < s.n; ++i) {
    const double q = s.x[i] + s.y[i] + s.z[i] + s.vx[i] + s.vy[i] + s.vz[i];
    if (!(q - q == 0)) return false;
  }
  return true;
}

// The start of a run: the energy, |L| and, for the adaptive Hermite, the first step.
template <class Exec>
NBODY_HD void start_system(const SystemRef& s, const Params& p, SystemState& st, Exec& ex) {
  st.e0 = energy(s, p.eps2, ex);
  double L[3];
  angular_momentum(s, L);
  st.l0 = norm3(L);
  st.dt = p.dt;
  if (p.integrator == Integrator::hermite4_adaptive || p.integrator == Integrator::hermite4_symmetric) {
    evaluate(s, p.eps2, true, ex);
    ex.for_bodies(s.n, [&](int i) {
      const double a2 = s.ax[i] * s.ax[i] + s.ay[i] * s.ay[i] + s.az[i] * s.az[i];
      const double j2 = s.jx[i] * s.jx[i] + s.jy[i] * s.jy[i] + s.jz[i] * s.jz[i];
      const double dt = hermite::starting_step(p.eta_start, a2, j2);
      s.w[i] = dt == dt ? dt : INFINITY;
    });
    ex.sync();
    const double dt = min_w(s);
    ex.sync();
    st.dt = dt < p.dt ? dt : p.dt;  // (p.dt: the largest step)
  }
  if (!finite_state(s) || !(st.e0 - st.e0 == 0)) st.status = int(Outcome::diverged), st.stop_time = st.t;
}

// The steps of a fixed-step integrator over `span`: the interval in k equal steps of at most dt.
struct FixedSteps {
  std::int64_t k;
  double h;
};
NBODY_HD FixedSteps fixed_steps(double span, double dt) {
  std::int64_t k = std::int64_t(ceil(span / dt - 1e-9));
  k = k < 1 ? 1 : k;
  return {k, span / double(k)};
}

// The end of an interval (or of the steps before a collision): the collision, the energy limit,
// an escape, the end time, in this order. Every lane holds the same `st` and `rmin2` (the
// smallest squared separation after the last step); only x, v, m and w of `s` are used.
template <class Exec>
NBODY_HD void finish_interval(const SystemRef& s, const Params& p, SystemState& st, double rmin2, Exec& ex) {
  const double coll2 = p.collision_radius * p.collision_radius;
  if (coll2 > 0 && rmin2 < coll2) {
    st.status = int(Outcome::collision), st.stop_time = st.t;
    return;
  }
  // At the interval's end: the energy limit, an escape, the end time.
  if (p.energy_limit > 0) {
    const double e = energy(s, p.eps2, ex);
    const double err = st.e0 != 0 ? fabs((e - st.e0) / st.e0) : fabs(e);
    if (!(err <= p.energy_limit)) {
      st.status = int(Outcome::energy_limit), st.stop_time = st.t;
      return;
    }
  }
  if (p.escape_radius > 0 && escaped(s, p.escape_radius)) {
    st.status = int(Outcome::escape), st.stop_time = st.t;
    return;
  }
  if (st.t >= p.t_end) st.status = int(Outcome::end_time), st.stop_time = st.t;
}

// Advances a running system from st.t to t_target (the end of the interval), stopping it where
// a condition fires, with leapfrog, yoshida4 or a Hermite scheme. Every lane holds the same `st`
// (written alike by each).
template <class Exec>
NBODY_HD void advance_fixed_or_hermite(const SystemRef& s, const Params& p, SystemState& st, double t_target, Exec& ex) {
  if (st.status != int(Outcome::running)) return;
  const bool symmetric = p.integrator == Integrator::hermite4_symmetric;
  const bool adaptive = p.integrator == Integrator::hermite4_adaptive || symmetric;
  evaluate(s, p.eps2, adaptive || p.integrator == Integrator::hermite4, ex);  // (a function of the state)
  double rmin2 = min_w(s);
  ex.sync();
  const double coll2 = p.collision_radius * p.collision_radius;
  if (symmetric) {
    // The compensated sums start at the interval (their low parts are dropped at its end: one
    // rounding an interval, the same after a checkpoint).
    ex.for_bodies(s.n, [&](int i) { s.cx[i] = s.cy[i] = s.cz[i] = s.cvx[i] = s.cvy[i] = s.cvz[i] = 0; });
    ex.sync();
  }
  if (adaptive) {
    while (st.t < t_target) {
      if (coll2 > 0 && rmin2 < coll2) break;
      if (st.dt < p.min_dt) {
        st.status = int(Outcome::step_limit), st.stop_time = st.t;
        return;
      }
      const double left = t_target - st.t;
      const bool last = st.dt >= left;
      const double h = last ? left : st.dt;
      double next = 0;
      hermite4_step(s, h, p.eps2, p.eta, &next, ex, symmetric ? 2 : 1, symmetric);
      rmin2 = min_w(s);
      ex.sync();
      st.t = last ? t_target : st.t + h;
      ++st.steps;
      // A step cut short to meet the interval's end leaves the step size as it was (its snap
      // and crackle come from a shorter, noisier difference).
      if (!last || h >= 0.5 * st.dt) {
        const double grown = 2.0 * st.dt;
        st.dt = next < grown ? next : grown;
        st.dt = st.dt < p.dt ? st.dt : p.dt;
      }
      if (!finite_state(s)) {
        st.status = int(Outcome::diverged), st.stop_time = st.t;
        return;
      }
    }
  } else {
    // Fixed steps: the interval in equal steps of at most dt.
    const FixedSteps steps = fixed_steps(t_target - st.t, p.dt);
    const std::int64_t k = steps.k;
    const double h = steps.h;
    for (std::int64_t q = 0; q < k; ++q) {
      if (coll2 > 0 && rmin2 < coll2) {
        st.t += double(q) * h;
        break;
      }
      if (p.integrator == Integrator::leapfrog) leapfrog_kdk(s, h, p.eps2, ex);
      else if (p.integrator == Integrator::yoshida4) yoshida4_step(s, h, p.eps2, ex);
      else hermite4_step(s, h, p.eps2, p.eta, nullptr, ex);
      rmin2 = min_w(s);
      ex.sync();
      ++st.steps;
      if (q + 1 == k) st.t = t_target;
    }
    if (!finite_state(s)) {
      st.status = int(Outcome::diverged), st.stop_time = st.t;
      return;
    }
  }
  finish_interval(s, p, st, rmin2, ex);
}

// The same with IAS15 and its table of coefficients (ias15_step.hpp).
struct RadauTable;
const RadauTable& radau_table();
template <class Exec>
NBODY_HD void advance_ias15(const RadauTable& R, const SystemRef& s, const Params& p, SystemState& st,
                           double t_target, Exec& ex);

// Advances a running system from st.t to t_target with its integrator (the host's loop; the GPU
// kernels call the two above each from a kernel of its own, so that neither's registers and
// stack burden the other).
template <class Exec>
void advance_system(const SystemRef& s, const Params& p, SystemState& st, double t_target, Exec& ex) {
  if (p.integrator == Integrator::ias15) advance_ias15(radau_table(), s, p, st, t_target, ex);
  else advance_fixed_or_hermite(s, p, st, t_target, ex);
}

}  // namespace nbody::ensemble

#include "ensemble/ias15_step.hpp"  // (advance_system's IAS15)
