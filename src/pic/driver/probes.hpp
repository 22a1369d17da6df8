#pragma once
// Small measurements of PIC runs shared by `nbody pic check` (validation.cpp) and the tests: a
// periodic simulation's settings, species, mode projections, frequencies from zero crossings or
// from the three-term recurrence, growth rates from a log-linear fit.
#include <cmath>
#include <vector>

#include "pic/cpu/simulation.hpp"
#include "pic/physics/units.hpp"

namespace nbody::pic::probes {

inline PicSettings periodic_settings(int nx, int ny, double dx, double dy, double dt) {
  PicSettings s;
  s.geom.nx = nx;
  s.geom.ny = ny;
  s.geom.dx = dx;
  s.geom.dy = dy;
  s.dt = dt;
  return s;
}

inline Species electrons() {
  Species s;
  s.name = "electron";
  s.charge = -1;
  s.mass = 1;
  return s;
}

// A neutralising immobile background of charge +1 at the same positions as `of`.
inline Species background_of(const Species& of) {
  Species s = of;
  s.name = "background";
  s.charge = -of.charge;
  s.immobile = true;
  for (std::size_t p = 0; p < s.size(); ++p) s.ux[p] = s.uy[p] = s.uz[p] = 0;
  return s;
}

// The projection of component c onto cos(k x + phase) (x of the component's own staggered
// position), averaged over the grid: 2/N sum f cos(k x).
inline double project(const Fields& f, int c, double k, double shift_x, bool use_sin) {
  const GridGeometry& g = f.geom;
  double sum = 0;
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) {
      const double x = (i + shift_x) * g.dx;
      sum += f.at(c, i, j) * (use_sin ? std::sin(k * x) : std::cos(k * x));
    }
  return 2.0 * sum / (g.nx * g.ny);
}

// The angular frequency of a sampled oscillation from its zero crossings (linear interpolation):
// pi / (mean spacing of the crossings). Returns 0 with fewer than 3 crossings.
inline double frequency_from_zeros(const std::vector<double>& t, const std::vector<double>& a) {
  std::vector<double> zeros;
  for (std::size_t k = 1; k < a.size(); ++k)
    if ((a[k - 1] < 0) != (a[k] < 0) && a[k] != a[k - 1])
      zeros.push_back(t[k - 1] + (t[k] - t[k - 1]) * a[k - 1] / (a[k - 1] - a[k]));
  if (zeros.size() < 3) return 0;
  return kPi * double(zeros.size() - 1) / (zeros.back() - zeros.front());
}

// The angular frequency of a single-frequency sampled signal a_n = A cos(omega n dt + phi), exact
// for any sampling: a_{n+1} + a_{n-1} = 2 cos(omega dt) a_n, solved by least squares.
inline double frequency_from_recurrence(const std::vector<double>& a, double dt) {
  double num = 0, den = 0;
  for (std::size_t n = 1; n + 1 < a.size(); ++n) {
    num += a[n] * (a[n + 1] + a[n - 1]);
    den += 2 * a[n] * a[n];
  }
  return std::acos(num / den) / dt;
}

// Least-squares slope of log(a) against t over the samples with lo <= t <= hi.
inline double log_slope(const std::vector<double>& t, const std::vector<double>& a, double lo, double hi) {
  double n = 0, st = 0, sl = 0, stt = 0, stl = 0;
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (t[k] < lo || t[k] > hi) continue;
    const double l = std::log(a[k]);
    n += 1, st += t[k], sl += l, stt += t[k] * t[k], stl += t[k] * l;
  }
  return (n * stl - st * sl) / (n * stt - st * st);
}

}  // namespace nbody::pic::probes
