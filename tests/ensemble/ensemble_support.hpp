#pragma once
// Small ensembles for the tests: a two-body orbit from elements, a mixed batch, bit comparison.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>

#include "ensemble/backend.hpp"
#include "ensemble/generators.hpp"
#include "ensemble/kepler.hpp"
#include "ensemble/store.hpp"

namespace nbody::test {

// Bodies 1 and mass 1 - m2 and m2 on the relative orbit `el` (centre-of-mass frame).
inline ensemble::SystemBodies two_body(const ensemble::Elements& el, double m1 = 1.0, double m2 = 1e-3) {
  double r[3], v[3];
  ensemble::elements_to_state(el, m1 + m2, r, v);
  ensemble::SystemBodies b;
  b.m = {m1, m2};
  const double f1 = -m2 / (m1 + m2), f2 = m1 / (m1 + m2);
  b.pos = {f1 * r[0], f1 * r[1], f1 * r[2], f2 * r[0], f2 * r[1], f2 * r[2]};
  b.vel = {f1 * v[0], f1 * v[1], f1 * v[2], f2 * v[0], f2 * v[1], f2 * v[2]};
  return b;
}

// The relative position of bodies 1 - 0 of system k.
inline void relative(const ensemble::EnsembleStore& s, std::int64_t k, double r[3], double v[3]) {
  const auto b = std::size_t(s.offset[std::size_t(k)]);
  r[0] = s.x[b + 1] - s.x[b], r[1] = s.y[b + 1] - s.y[b], r[2] = s.z[b + 1] - s.z[b];
  v[0] = s.vx[b + 1] - s.vx[b], v[1] = s.vy[b + 1] - s.vy[b], v[2] = s.vz[b + 1] - s.vz[b];
}

// A batch of different systems: scatterings, planetary systems and small clusters (40 bodies: a
// warp's in global memory on the GPU), and one cluster of 130 (a block's).
inline ensemble::EnsembleStore mixed_batch(int each) {
  ensemble::EnsembleStore s;
  ensemble::ScatteringSpec sc;
  sc.v_inf = 0.3, sc.b_max = 2, sc.r0 = 8;
  ensemble::PlanetarySpec pl;
  pl.mass = {1e-3, 3e-4, 5e-5}, pl.a = {1, 1.9, 3.1}, pl.e = {0.05, 0.1, 0.02}, pl.inc = {0.01, 0.03, 0.02};
  ensemble::PlummerSpec pm;
  pm.n = 40;  // (larger than a warp: the GPU's global-memory path)
  for (int k = 0; k < each; ++k) {
    for (const auto& b : {ensemble::scattering_system(sc, 3, k), ensemble::planetary_system(pl, 3, k),
                          ensemble::plummer_system(pm, 3, k)})
      s.add_system(b.m, b.pos, b.vel);
  }
  ensemble::PlummerSpec large;
  large.n = 130;
  const auto b = ensemble::plummer_system(large, 3, 0);
  s.add_system(b.m, b.pos, b.vel);
  return s;
}

inline bool same_bits(const std::vector<double>& a, std::size_t at, const std::vector<double>& b, std::size_t n) {
  return std::memcmp(a.data() + at, b.data(), n * sizeof(double)) == 0;
}

// Whether system k of `batch` has the bits of the store `one` (one system).
inline ::testing::AssertionResult same_system(const ensemble::EnsembleStore& batch, std::int64_t k,
                                             const ensemble::EnsembleStore& one) {
  const auto b = std::size_t(batch.offset[std::size_t(k)]);
  const auto n = std::size_t(one.bodies());
  for (const auto& [a, c] : {std::pair{&batch.x, &one.x}, std::pair{&batch.y, &one.y}, std::pair{&batch.z, &one.z},
                             std::pair{&batch.vx, &one.vx}, std::pair{&batch.vy, &one.vy}, std::pair{&batch.vz, &one.vz}})
    if (!same_bits(*a, b, *c, n)) return ::testing::AssertionFailure() << "system " << k << ": the bodies differ";
  const ensemble::SystemState& p = batch.state[std::size_t(k)];
  const ensemble::SystemState& q = one.state[0];
  if (std::memcmp(&p.t, &q.t, 8) || std::memcmp(&p.dt, &q.dt, 8) || std::memcmp(&p.e0, &q.e0, 8) || p.steps != q.steps ||
      p.status != q.status)
    return ::testing::AssertionFailure() << "system " << k << ": the state differs (steps " << p.steps << " vs " << q.steps
                                         << ", status " << p.status << " vs " << q.status << ")";
  return ::testing::AssertionSuccess();
}

// The scattering benchmark's ensemble (bench/ensemble_suite.cpp, examples/ensemble/scattering.toml:
// equal masses 0.5, a circular binary of a = 1, v_inf = 0.5, b up to 4 a, seed 1), and the 25 of
// its first 10^4 systems whose |dE/E| exceeds 1e-10 at their ends with hermite4_symmetric,
// eta = 2e-5 and no collision stop (6.3e-7 the worst, system 6533): in each two stars pass within
// a few 1e-4 a of each other (an eccentric binary of e > 0.999, or a close approach in a
// resonance), where the roundoff of positions of size ~1 is large against the separation.
inline ensemble::ScatteringSpec bench_scattering_spec() {
  ensemble::ScatteringSpec spec;
  spec.m1 = spec.m2 = spec.m3 = 0.5, spec.v_inf = 0.5, spec.b_max = 4, spec.r0 = 30;
  return spec;
}
inline constexpr std::int64_t kCloseScatterings[] = {780,  1132, 2085, 3083, 3208, 3713, 3825, 3861, 4340,
                                                     4858, 4870, 4943, 5576, 6533, 6543, 6765, 6905, 6911,
                                                     7549, 7970, 7995, 8254, 8912, 9146, 9334};
inline ensemble::Params bench_scattering_params(double collision_radius) {
  ensemble::Params p;
  p.integrator = ensemble::Integrator::hermite4_symmetric;
  p.dt = 0.1, p.eta = 2e-5, p.t_end = 400, p.escape_radius = 40, p.collision_radius = collision_radius;
  return p;
}
template <class Systems>
ensemble::EnsembleStore bench_scatterings(const Systems& ks) {
  ensemble::EnsembleStore s;
  for (const std::int64_t k : ks) {
    const auto b = ensemble::scattering_system(bench_scattering_spec(), 1, k);
    s.add_system(b.m, b.pos, b.vel);
  }
  return s;
}

// Integrates `s` on `b` through `intervals` equal intervals to p.t_end.
inline void integrate(ensemble::Backend& b, ensemble::EnsembleStore& s, const ensemble::Params& p, int intervals) {
  b.start(s, p);
  for (int k = 1; k <= intervals; ++k) b.advance(s, p, k == intervals ? p.t_end : p.t_end * k / intervals);
  b.fetch(s);
}

}  // namespace nbody::test
