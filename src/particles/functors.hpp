#pragma once
// Element-wise physics on particle views, written once as __host__ __device__ functors: the host
// loops (particles/host_ops.cpp) and the CUDA kernels (cuda/device_ops.cu) call the same code, so
// the arithmetic of a kick, a drift, a moment or a Hermite predictor is the same everywhere.
#include <cstdint>

#include "integrate/hermite_math.hpp"
#include "particles/views.hpp"

namespace nbody::particles {

// v += a dt.
template <class T>
struct Kick {
  Vec3Span<T> v;
  ConstVec3Span<T> a;
  T dt;
  NBODY_HD void operator()(int i) const {
    v.x[i] += a.x[i] * dt;
    v.y[i] += a.y[i] * dt;
    v.z[i] += a.z[i] * dt;
  }
};

// x += v dt.
template <class T>
struct Drift {
  Vec3Span<T> x;
  ConstVec3Span<T> v;
  T dt;
  NBODY_HD void operator()(int i) const {
    x.x[i] += v.x[i] * dt;
    x.y[i] += v.y[i] * dt;
    x.z[i] += v.z[i] * dt;
  }
};

// The float64 terms of body i in the sums of Moments: mass, K, P (3), L (3), sum m x (3).
template <class T>
struct MomentTerms {
  static constexpr int kQuantities = 11;
  ParticleView<T> p;
  NBODY_HD void operator()(int i, double (&q)[kQuantities]) const {
    const double mi = p.m[i], xi = p.x.x[i], yi = p.x.y[i], zi = p.x.z[i];
    const double ui = p.v.x[i], vi = p.v.y[i], wi = p.v.z[i];
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
};

// |a_i|^2 in float64 (for max_i |a_i|: a maximum is exact, any order gives the same bits).
template <class T>
struct SquaredNorm {
  ConstVec3Span<T> a;
  NBODY_HD double operator()(int i) const {
    const double x = a.x[i], y = a.y[i], z = a.z[i];
    return x * x + y * y + z * z;
  }
};

// Float32 copies of float64 positions and masses (the mixed-precision force pass reads them).
// Every load is issued before the first store: the kernel is a few hundred nanoseconds of
// memory latency, and a load after a store it might alias would wait for a second round trip.
struct RoundToFloat {
  SourceView<double> from;
  Vec3Span<float> x;
  float* __restrict__ m;  // null: positions only
  NBODY_HD void operator()(int i) const {
    const double xi = from.x[i], yi = from.y[i], zi = from.z[i];
    const double mi = m != nullptr ? from.m[i] : 0.0;
    x.x[i] = float(xi);
    x.y[i] = float(yi);
    x.z[i] = float(zi);
    if (m != nullptr) m[i] = float(mi);
  }
};

// The Hermite integrator's per-body state besides x and v: a and jerk at the body's own time
// t_i; the prediction of every body to a common time; the a and jerk that the force pass gave
// for the active bodies (compact: entry k belongs to body index[k]); the next steps.
template <class T>
struct HermiteFields {
  ParticleView<T> p;
  Vec3Span<T> a;
  Vec3Span<T> jerk;
  double* t;
  Vec3Span<T> xp;
  Vec3Span<T> vp;
  Vec3Span<T> a1;
  Vec3Span<T> j1;
  IndexView active;
  double* dt_next;  // null: no step wanted
};

template <class T>
NBODY_HD double squared_norm(T x, T y, T z) {
  const double dx = x, dy = y, dz = z;
  return dx * dx + dy * dy + dz * dz;
}

// xp, vp of body i at time t from x, v, a, j at t_i.
template <class T>
struct HermitePredict {
  HermiteFields<T> h;
  double t;
  NBODY_HD void operator()(int i) const {
    const T tau = static_cast<T>(t - h.t[i]);
    hermite::predict(h.p.x.x[i], h.p.v.x[i], h.a.x[i], h.jerk.x[i], tau, h.xp.x[i], h.vp.x[i]);
    hermite::predict(h.p.x.y[i], h.p.v.y[i], h.a.y[i], h.jerk.y[i], tau, h.xp.y[i], h.vp.y[i]);
    hermite::predict(h.p.x.z[i], h.p.v.z[i], h.a.z[i], h.jerk.z[i], tau, h.xp.z[i], h.vp.z[i]);
  }
};

// The corrector of the k-th active body i over its step h = t - t_i: x, v := corrected;
// a, j := a1[k], j1[k]; t_i := t; dt_next[k] := Aarseth's step (when asked).
template <class T>
struct HermiteCorrect {
  HermiteFields<T> h;
  double t;
  double eta;
  NBODY_HD void operator()(int k) const {
    const int i = h.active.index[k];
    const double step = t - h.t[i];
    const T ht = static_cast<T>(step);
    if (h.dt_next != nullptr) {
      double sx, sy, sz, cx, cy, cz;
      hermite::snap_crackle(h.a.x[i], h.jerk.x[i], h.a1.x[k], h.j1.x[k], step, sx, cx);
      hermite::snap_crackle(h.a.y[i], h.jerk.y[i], h.a1.y[k], h.j1.y[k], step, sy, cy);
      hermite::snap_crackle(h.a.z[i], h.jerk.z[i], h.a1.z[k], h.j1.z[k], step, sz, cz);
      h.dt_next[k] = hermite::aarseth_step(eta, squared_norm(h.a1.x[k], h.a1.y[k], h.a1.z[k]),
                                           squared_norm(h.j1.x[k], h.j1.y[k], h.j1.z[k]),
                                           sx * sx + sy * sy + sz * sz, cx * cx + cy * cy + cz * cz);
    }
    T x1, v1;
    hermite::correct(h.p.x.x[i], h.p.v.x[i], h.a.x[i], h.jerk.x[i], h.a1.x[k], h.j1.x[k], ht, x1, v1);
    h.p.x.x[i] = x1;
    h.p.v.x[i] = v1;
    hermite::correct(h.p.x.y[i], h.p.v.y[i], h.a.y[i], h.jerk.y[i], h.a1.y[k], h.j1.y[k], ht, x1, v1);
    h.p.x.y[i] = x1;
    h.p.v.y[i] = v1;
    hermite::correct(h.p.x.z[i], h.p.v.z[i], h.a.z[i], h.jerk.z[i], h.a1.z[k], h.j1.z[k], ht, x1, v1);
    h.p.x.z[i] = x1;
    h.p.v.z[i] = v1;
    h.a.x[i] = h.a1.x[k];
    h.a.y[i] = h.a1.y[k];
    h.a.z[i] = h.a1.z[k];
    h.jerk.x[i] = h.j1.x[k];
    h.jerk.y[i] = h.j1.y[k];
    h.jerk.z[i] = h.j1.z[k];
    h.t[i] = t;
  }
};

// The start: a, j := a1[k], j1[k] for the k-th active body; dt_next[k] := eta |a| / |j|.
template <class T>
struct HermiteStart {
  HermiteFields<T> h;
  double eta;
  NBODY_HD void operator()(int k) const {
    const int i = h.active.index[k];
    h.a.x[i] = h.a1.x[k];
    h.a.y[i] = h.a1.y[k];
    h.a.z[i] = h.a1.z[k];
    h.jerk.x[i] = h.j1.x[k];
    h.jerk.y[i] = h.j1.y[k];
    h.jerk.z[i] = h.j1.z[k];
    if (h.dt_next != nullptr) {
      h.dt_next[k] = hermite::starting_step(eta, squared_norm(h.a1.x[k], h.a1.y[k], h.a1.z[k]),
                                            squared_norm(h.j1.x[k], h.j1.y[k], h.j1.z[k]));
    }
  }
};

// values[i] := value.
template <class V>
struct Fill {
  V* values;
  V value;
  NBODY_HD void operator()(int i) const { values[i] = value; }
};

// values[i] := i.
struct Iota {
  std::int32_t* values;
  NBODY_HD void operator()(int i) const { values[i] = i; }
};

}  // namespace nbody::particles
