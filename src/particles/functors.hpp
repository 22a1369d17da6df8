#pragma once
// Element-wise physics on particle views, written once as __host__ __device__ functors: the host
// loops (particles/host_ops.cpp) and the CUDA kernels (cuda/device_ops.cu) call the same code, so
// the arithmetic of a kick, a drift or a moment is the same everywhere. The Hermite scheme's
// functors are in particles/hermite_functors.hpp.
#include <cstdint>

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
