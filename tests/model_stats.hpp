#pragma once
// Energies of a sampled model and their statistical errors, for tests of initial conditions.
//
// For N bodies drawn independently from a model, K = sum m v^2/2 and the pair sum
// W = -G sum_{i<j} m_i m_j / r_ij are U-statistics; to first order (Hoeffding projection)
//   W - <W> ~ sum_i m (phi(x_i) - <phi>),   E - <E> ~ sum_i m (v_i^2/2 + phi(x_i) - <v^2/2 + phi>),
// with phi the model's potential, so their standard errors are sd(phi) / sqrt(N) and
// sd(v^2/2 + phi) / sqrt(N) for equal masses 1/N (G = M = 1). The sample's own per-body
// potentials estimate phi. The virial ratio Q = 2K/|W| gets its error by the delta method from
// the projection q_i = 2 (v_i^2/2) / |W| - Q phi_i / W. <W_N> = (1 - 1/N) W_model (no self pairs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "support.hpp"
#include "nbody/particles.hpp"

namespace nbody::test {

struct SampleEnergies {
  double kinetic = 0, potential = 0, total = 0, virial = 0;
  double sigma_potential = 0, sigma_total = 0, sigma_virial = 0;  // standard errors
  double potential_backend = 0;  // W from the cpu-reference backend (G = 1, no softening)
};

inline SampleEnergies sample_energies(const Particles<double>& p) {
  const std::size_t n = p.size();
  std::vector<double> phi(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      const double dx = p.x[i] - p.x[j], dy = p.y[i] - p.y[j], dz = p.z[i] - p.z[j];
      const double inv_r = 1.0 / std::sqrt(dx * dx + dy * dy + dz * dz);
      phi[i] -= p.m[j] * inv_r;
      phi[j] -= p.m[i] * inv_r;
    }
  }
  SampleEnergies s;
  std::vector<double> kin(n);
  for (std::size_t i = 0; i < n; ++i) {
    kin[i] = 0.5 * (p.vx[i] * p.vx[i] + p.vy[i] * p.vy[i] + p.vz[i] * p.vz[i]);
    s.kinetic += p.m[i] * kin[i];
    s.potential += 0.5 * p.m[i] * phi[i];
  }
  s.total = s.kinetic + s.potential;
  s.virial = 2.0 * s.kinetic / std::fabs(s.potential);
  auto sd = [&](auto f) {
    double mean = 0, sq = 0;
    for (std::size_t i = 0; i < n; ++i) mean += f(i);
    mean /= double(n);
    for (std::size_t i = 0; i < n; ++i) sq += (f(i) - mean) * (f(i) - mean);
    return std::sqrt(sq / double(n - 1));
  };
  const double rn = std::sqrt(double(n));
  s.sigma_potential = sd([&](std::size_t i) { return phi[i]; }) / rn;
  s.sigma_total = sd([&](std::size_t i) { return kin[i] + phi[i]; }) / rn;
  s.sigma_virial = sd([&](std::size_t i) { return 2.0 * kin[i] / std::fabs(s.potential) - s.virial * phi[i] / s.potential; }) / rn;
  auto backend = make_system<double>("cpu-reference", n, {1.0, 0.0});
  backend->upload(p);
  s.potential_backend = backend->potential_energy();
  return s;
}

// Centre of mass and total momentum (both should be zero for a centred model).
inline double centre_offset(const Particles<double>& p) {
  double x = 0, y = 0, z = 0, m = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    m += p.m[i];
    x += p.m[i] * p.x[i];
    y += p.m[i] * p.y[i];
    z += p.m[i] * p.z[i];
  }
  return std::sqrt(x * x + y * y + z * z) / m;
}
inline double net_momentum(const Particles<double>& p) {
  double x = 0, y = 0, z = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    x += p.m[i] * p.vx[i];
    y += p.m[i] * p.vy[i];
    z += p.m[i] * p.vz[i];
  }
  return std::sqrt(x * x + y * y + z * z);
}

// Kolmogorov-Smirnov distance between the radii (about the origin) and a model's cumulative
// mass fraction F(r).
template <class F>
double ks_distance(const Particles<double>& p, F cdf) {
  std::vector<double> r(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) r[i] = std::sqrt(p.x[i] * p.x[i] + p.y[i] * p.y[i] + p.z[i] * p.z[i]);
  std::sort(r.begin(), r.end());
  const double n = double(r.size());
  double d = 0;
  for (std::size_t i = 0; i < r.size(); ++i) {
    const double f = cdf(r[i]);
    d = std::max({d, std::fabs(f - double(i) / n), std::fabs(f - double(i + 1) / n)});
  }
  return d;
}

// A line of measured numbers in the test log, so that the figures behind each bound can be read
// from the output of a run (ctest --verbose, or the test program itself).
#define NBODY_MEASURED(...)                  \
  do {                                       \
    std::printf("[ measured ] " __VA_ARGS__); \
    std::printf("\n");                      \
  } while (0)

}  // namespace nbody::test
