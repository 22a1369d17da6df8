#include <cmath>
#include <cstdint>
#include <vector>

#include "core/parallel.hpp"
#include "gravity/direct/cpu_direct.hpp"

namespace nbody::direct {

template <class T>
void reference_accelerations(const SourceArrays<T>& s, const AccelArrays<T>& a, const GravityParams& g) {
  const auto n = static_cast<std::int64_t>(s.n);
  const double eps2 = g.eps2();
#pragma omp parallel for schedule(static) if (n >= kParallelMinPairsTargets)
  for (std::int64_t i = 0; i < n; ++i) {
    const double xi = s.x[i], yi = s.y[i], zi = s.z[i];
    double ax = 0, ay = 0, az = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const double dx = double(s.x[j]) - xi;
      const double dy = double(s.y[j]) - yi;
      const double dz = double(s.z[j]) - zi;
      const double r2 = dx * dx + dy * dy + dz * dz + eps2;
      if (r2 == 0.0) continue;  // coincident bodies without softening: no defined direction
      const double inv = 1.0 / std::sqrt(r2);
      const double f = double(s.m[j]) * inv * inv * inv;
      ax += dx * f;
      ay += dy * f;
      az += dz * f;
    }
    a.ax[i] = static_cast<T>(g.G * ax);
    a.ay[i] = static_cast<T>(g.G * ay);
    a.az[i] = static_cast<T>(g.G * az);
  }
}

template <class T>
double reference_potential_energy(const SourceArrays<T>& s, const GravityParams& g) {
  const auto n = static_cast<std::int64_t>(s.n);
  const double eps2 = g.eps2();
  std::vector<double> phi(s.n);
#pragma omp parallel for schedule(static) if (n >= kParallelMinPairsTargets)
  for (std::int64_t i = 0; i < n; ++i) {
    const double xi = s.x[i], yi = s.y[i], zi = s.z[i];
    double p = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const double dx = double(s.x[j]) - xi;
      const double dy = double(s.y[j]) - yi;
      const double dz = double(s.z[j]) - zi;
      p -= double(s.m[j]) / std::sqrt(dx * dx + dy * dy + dz * dz + eps2);
    }
    phi[i] = p;
  }
  double w = 0;
  for (std::int64_t i = 0; i < n; ++i) w += double(s.m[i]) * phi[i];
  return 0.5 * g.G * w;
}

template void reference_accelerations<float>(const SourceArrays<float>&, const AccelArrays<float>&, const GravityParams&);
template void reference_accelerations<double>(const SourceArrays<double>&, const AccelArrays<double>&, const GravityParams&);
template double reference_potential_energy<float>(const SourceArrays<float>&, const GravityParams&);
template double reference_potential_energy<double>(const SourceArrays<double>&, const GravityParams&);

}  // namespace nbody::direct
