#include <cmath>
#include <cstdint>
#include <vector>

#include "core/parallel.hpp"
#include "gravity/direct/cpu_direct.hpp"
#include "gravity/interaction.hpp"

namespace nbody::direct {
namespace {

// The laws in float64. Plummer is spelled out (the oracle's own arithmetic); the spline law
// is the shared SplinePair evaluated in double.
struct ReferencePlummer {
  double eps2;
  void accumulate(double dx, double dy, double dz, double m, double& ax, double& ay, double& az) const {
    const double r2 = dx * dx + dy * dy + dz * dz + eps2;
    if (r2 == 0.0) return;  // coincident bodies without softening: no defined direction
    const double inv = 1.0 / std::sqrt(r2);
    const double f = m * inv * inv * inv;
    ax += dx * f;
    ay += dy * f;
    az += dz * f;
  }
  double potential(double dx, double dy, double dz, double m) const {
    return -m / std::sqrt(dx * dx + dy * dy + dz * dz + eps2);
  }
};

template <class F>
void with_reference_law(const GravityParams& g, F&& f) {
  if (g.law == SofteningLaw::spline && g.eps2() > 0) {
    f(gravity::SplinePair<double>::from_softening(g.softening));
  } else {
    f(ReferencePlummer{g.eps2()});
  }
}

template <class T, class Law>
void accelerations_with(const SourceArrays<T>& s, const AccelArrays<T>& a, double G, const Law& law) {
  const auto n = static_cast<std::int64_t>(s.n);
#pragma omp parallel for schedule(static) if (n >= kParallelMinPairsTargets)
  for (std::int64_t i = 0; i < n; ++i) {
    const double xi = s.x[i], yi = s.y[i], zi = s.z[i];
    double ax = 0, ay = 0, az = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      if (j == i) continue;
      law.accumulate(double(s.x[j]) - xi, double(s.y[j]) - yi, double(s.z[j]) - zi, double(s.m[j]), ax, ay, az);
    }
    a.ax[i] = static_cast<T>(G * ax);
    a.ay[i] = static_cast<T>(G * ay);
    a.az[i] = static_cast<T>(G * az);
  }
}

template <class T, class Law>
double potential_energy_with(const SourceArrays<T>& s, double G, const Law& law) {
  const auto n = static_cast<std::int64_t>(s.n);
  std::vector<double> phi(s.n);
#pragma omp parallel for schedule(static) if (n >= kParallelMinPairsTargets)
  for (std::int64_t i = 0; i < n; ++i) {
    const double xi = s.x[i], yi = s.y[i], zi = s.z[i];
    double p = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      if (j == i) continue;
      p += law.potential(double(s.x[j]) - xi, double(s.y[j]) - yi, double(s.z[j]) - zi, double(s.m[j]));
    }
    phi[i] = p;
  }
  double w = 0;
  for (std::int64_t i = 0; i < n; ++i) w += double(s.m[i]) * phi[i];
  return 0.5 * G * w;
}

template <class T, class Pair>
void acc_jerk_with(const MotionArrays<T>& s, const Targets& t, const AccJerkArrays<T>& out, double G,
                   const Pair& pair) {
  const auto count = static_cast<std::int64_t>(t.count);
  const auto n = static_cast<std::int64_t>(s.n);
#pragma omp parallel for schedule(static) if (count >= kParallelMinPairsTargets)
  for (std::int64_t k = 0; k < count; ++k) {
    const std::int64_t i = t.index[k];
    const double xi = s.x[i], yi = s.y[i], zi = s.z[i];
    const double ui = s.vx[i], vi = s.vy[i], wi = s.vz[i];
    double ax = 0, ay = 0, az = 0, jx = 0, jy = 0, jz = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      if (j == i) continue;
      pair.accumulate_jerk(double(s.x[j]) - xi, double(s.y[j]) - yi, double(s.z[j]) - zi, double(s.vx[j]) - ui,
                           double(s.vy[j]) - vi, double(s.vz[j]) - wi, double(s.m[j]), ax, ay, az, jx, jy, jz);
    }
    out.ax[k] = static_cast<T>(G * ax);
    out.ay[k] = static_cast<T>(G * ay);
    out.az[k] = static_cast<T>(G * az);
    out.jx[k] = static_cast<T>(G * jx);
    out.jy[k] = static_cast<T>(G * jy);
    out.jz[k] = static_cast<T>(G * jz);
  }
}

}  // namespace

template <class T>
void reference_accelerations(const SourceArrays<T>& s, const AccelArrays<T>& a, const GravityParams& g) {
  with_reference_law(g, [&](const auto& law) { accelerations_with(s, a, g.G, law); });
}

template <class T>
double reference_potential_energy(const SourceArrays<T>& s, const GravityParams& g) {
  double w = 0;
  with_reference_law(g, [&](const auto& law) { w = potential_energy_with(s, g.G, law); });
  return w;
}

template <class T>
void reference_acc_jerk(const MotionArrays<T>& s, const Targets& t, const AccJerkArrays<T>& out,
                        const GravityParams& g) {
  // The guarded Plummer law also covers eps = 0 (a coincident pair contributes nothing).
  if (g.law == SofteningLaw::spline && g.eps2() > 0) {
    acc_jerk_with(s, t, out, g.G, gravity::SplinePair<double>::from_softening(g.softening));
  } else {
    acc_jerk_with(s, t, out, g.G, gravity::PlummerPair<double, true>{g.eps2()});
  }
}

template void reference_accelerations<float>(const SourceArrays<float>&, const AccelArrays<float>&, const GravityParams&);
template void reference_accelerations<double>(const SourceArrays<double>&, const AccelArrays<double>&, const GravityParams&);
template double reference_potential_energy<float>(const SourceArrays<float>&, const GravityParams&);
template double reference_potential_energy<double>(const SourceArrays<double>&, const GravityParams&);
template void reference_acc_jerk<float>(const MotionArrays<float>&, const Targets&, const AccJerkArrays<float>&,
                                        const GravityParams&);
template void reference_acc_jerk<double>(const MotionArrays<double>&, const Targets&, const AccJerkArrays<double>&,
                                         const GravityParams&);

}  // namespace nbody::direct
