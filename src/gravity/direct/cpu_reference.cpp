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
void accelerations_with(const TargetView<T>& t, const SourceView<T>& s, Vec3Span<T> a, double G, const Law& law) {
  const auto count = static_cast<std::int64_t>(t.n);
  const auto n = static_cast<std::int64_t>(s.n);
#pragma omp parallel for schedule(static) if (parallel_pairs(count, n))
  for (std::int64_t i = 0; i < count; ++i) {
    const double xi = t.x[i], yi = t.y[i], zi = t.z[i];
    const std::int64_t own = t.self < 0 ? -1 : t.self + i;
    double ax = 0, ay = 0, az = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      if (j == own) continue;
      law.accumulate(double(s.x[j]) - xi, double(s.y[j]) - yi, double(s.z[j]) - zi, double(s.m[j]), ax, ay, az);
    }
    a.x[i] = static_cast<T>(G * ax);
    a.y[i] = static_cast<T>(G * ay);
    a.z[i] = static_cast<T>(G * az);
  }
}

template <class T, class Law>
double potential_energy_with(const SourceView<T>& s, double G, const Law& law) {
  const auto n = static_cast<std::int64_t>(s.n);
  std::vector<double> phi(s.n);
#pragma omp parallel for schedule(static) if (parallel_pairs(n, n))
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
void acc_jerk_with(const IndexView& t, const MotionView<T>& s, Vec3Span<T> acc, Vec3Span<T> jerk, double G,
                   const Pair& pair) {
  const auto count = static_cast<std::int64_t>(t.count);
  const auto n = static_cast<std::int64_t>(s.n);
#pragma omp parallel for schedule(static) if (parallel_pairs(count, n))
  for (std::int64_t k = 0; k < count; ++k) {
    const std::int64_t i = t.index[k];
    const double xi = s.x.x[i], yi = s.x.y[i], zi = s.x.z[i];
    const double ui = s.v.x[i], vi = s.v.y[i], wi = s.v.z[i];
    double ax = 0, ay = 0, az = 0, jx = 0, jy = 0, jz = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      if (j == i) continue;
      pair.accumulate_jerk(double(s.x.x[j]) - xi, double(s.x.y[j]) - yi, double(s.x.z[j]) - zi,
                           double(s.v.x[j]) - ui, double(s.v.y[j]) - vi, double(s.v.z[j]) - wi, double(s.m[j]), ax, ay,
                           az, jx, jy, jz);
    }
    acc.x[k] = static_cast<T>(G * ax);
    acc.y[k] = static_cast<T>(G * ay);
    acc.z[k] = static_cast<T>(G * az);
    jerk.x[k] = static_cast<T>(G * jx);
    jerk.y[k] = static_cast<T>(G * jy);
    jerk.z[k] = static_cast<T>(G * jz);
  }
}

// One piece of a streamed pass: accelerations_with's loop over sources [first, first + s.n).
template <class T, class Law>
void accumulate_with(const TargetView<T>& t, const std::uint64_t* own_index, const SourceView<T>& s,
                     std::int64_t first, Vec3Span<double> sums, const Law& law) {
  const auto count = static_cast<std::int64_t>(t.n);
  const auto n = static_cast<std::int64_t>(s.n);
#pragma omp parallel for schedule(static) if (parallel_pairs(count, n))
  for (std::int64_t i = 0; i < count; ++i) {
    const double xi = t.x[i], yi = t.y[i], zi = t.z[i];
    const std::int64_t own = static_cast<std::int64_t>(own_index[i]) - first;
    double ax = sums.x[i], ay = sums.y[i], az = sums.z[i];
    for (std::int64_t j = 0; j < n; ++j) {
      if (j == own) continue;
      law.accumulate(double(s.x[j]) - xi, double(s.y[j]) - yi, double(s.z[j]) - zi, double(s.m[j]), ax, ay, az);
    }
    sums.x[i] = ax;
    sums.y[i] = ay;
    sums.z[i] = az;
  }
}

// One piece of potential_energy_with's sums.
template <class T, class Law>
void accumulate_potential_with(const TargetView<T>& t, const std::uint64_t* own_index, const SourceView<T>& s,
                               std::int64_t first, double* phi, const Law& law) {
  const auto count = static_cast<std::int64_t>(t.n);
  const auto n = static_cast<std::int64_t>(s.n);
#pragma omp parallel for schedule(static) if (parallel_pairs(count, n))
  for (std::int64_t i = 0; i < count; ++i) {
    const double xi = t.x[i], yi = t.y[i], zi = t.z[i];
    const std::int64_t own = static_cast<std::int64_t>(own_index[i]) - first;
    double p = phi[i];
    for (std::int64_t j = 0; j < n; ++j) {
      if (j == own) continue;
      p += law.potential(double(s.x[j]) - xi, double(s.y[j]) - yi, double(s.z[j]) - zi, double(s.m[j]));
    }
    phi[i] = p;
  }
}

}  // namespace

template <class T>
void reference_accumulate_pulls(const TargetView<T>& t, const std::uint64_t* target_index, const SourceView<T>& piece,
                                std::int64_t first, Vec3Span<double> sums, const GravityParams& g) {
  with_reference_law(g, [&](const auto& law) { accumulate_with(t, target_index, piece, first, sums, law); });
}

template <class T>
void reference_accumulate_potential(const TargetView<T>& t, const std::uint64_t* target_index,
                                    const SourceView<T>& piece, std::int64_t first, double* phi,
                                    const GravityParams& g) {
  with_reference_law(g, [&](const auto& law) { accumulate_potential_with(t, target_index, piece, first, phi, law); });
}

template <class T>
void reference_accelerations(const TargetView<T>& t, const SourceView<T>& s, Vec3Span<T> a, const GravityParams& g) {
  with_reference_law(g, [&](const auto& law) { accelerations_with(t, s, a, g.G, law); });
}

template <class T>
double reference_potential_energy(const SourceView<T>& s, const GravityParams& g) {
  double w = 0;
  with_reference_law(g, [&](const auto& law) { w = potential_energy_with(s, g.G, law); });
  return w;
}

template <class T>
void reference_acc_jerk(const IndexView& t, const MotionView<T>& s, Vec3Span<T> acc, Vec3Span<T> jerk,
                        const GravityParams& g) {
  // The guarded Plummer law also covers eps = 0 (a coincident pair contributes nothing).
  if (g.law == SofteningLaw::spline && g.eps2() > 0) {
    acc_jerk_with(t, s, acc, jerk, g.G, gravity::SplinePair<double>::from_softening(g.softening));
  } else {
    acc_jerk_with(t, s, acc, jerk, g.G, gravity::PlummerPair<double, true>{g.eps2()});
  }
}

#define NBODY_INSTANTIATE(T)                                                                                  \
  template void reference_accelerations<T>(const TargetView<T>&, const SourceView<T>&, Vec3Span<T>,           \
                                           const GravityParams&);                                            \
  template double reference_potential_energy<T>(const SourceView<T>&, const GravityParams&);                  \
  template void reference_acc_jerk<T>(const IndexView&, const MotionView<T>&, Vec3Span<T>, Vec3Span<T>,       \
                                      const GravityParams&);                                                 \
  template void reference_accumulate_pulls<T>(const TargetView<T>&, const std::uint64_t*, const SourceView<T>&, \
                                              std::int64_t, Vec3Span<double>, const GravityParams&);          \
  template void reference_accumulate_potential<T>(const TargetView<T>&, const std::uint64_t*,                 \
                                                  const SourceView<T>&, std::int64_t, double*, const GravityParams&);
NBODY_INSTANTIATE(float)
NBODY_INSTANTIATE(double)
#undef NBODY_INSTANTIATE

}  // namespace nbody::direct
