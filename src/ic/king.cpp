// King (1966, AJ 71, 64) model: the lowered isothermal sphere, f(E) ~ exp(W - v^2 / 2) - 1 for
// W = Psi / sigma^2 > v^2 / 2 (sigma = 1), parameter W0 = W(0) (--king-w0, default 6).
//
// Recipe.
// 1. Poisson's equation in units G = sigma = 1 and King radius r0 = sqrt(9 / (4 pi rho0)) = 1,
//        W'' + (2 / r) W' = -9 rho(W) / rho(W0),
//    with rho(W) from king_density, is integrated outward in x = ln r by classical fourth-order
//    Runge-Kutta (step 1/512 in ln r) for y = (W, u = r^2 W', potential energy, kinetic energy),
//    starting at r = 1e-4 from the central series W = W0 - 3 r^2 / 2, M = 3 r^3. M(r) = -u.
//    The step in which W changes sign is cut by bisection to land on W = 0: the tidal radius.
//    The potential energy is W_pot = -int G M(r) / r dM and the kinetic energy
//    K = 3/2 int p dV with p = rho sigma_1d^2 = rho0 p(W) / rho(W0) (king_pressure), both
//    integrated along with W; the model satisfies 2K + W_pot = 0 (tested).
// 2. Radii: a mass fraction u uniform in (0, 1) and r = M^{-1}(u M_total) from the table
//    (linear interpolation in ln r; inside the first node, the homogeneous core r ~ M^{1/3}).
// 3. Speeds: at radius r with W = W(r), v is drawn from p(v) ~ v^2 (exp(W - v^2/2) - 1) on
//    [0, sqrt(2 W)] by rejection: a proposal uniform in the velocity ball of radius sqrt(2W)
//    (density ~ v^2) is accepted with probability expm1(W - v^2/2) / expm1(W) <= 1.
//    Directions of positions and velocities are isotropic.
// 4. Henon units from the model's energy E = K + W_pot and mass M_total (no O(N^2) sum):
//    lengths times -4 E / M^2, velocities times sqrt(M / length), masses 1/N; then centred.
//
// n is the number of bodies (any n >= 1), all of mass 1/n.
#include "ic/king.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "core/rng.hpp"
#include "ic/ic.hpp"
#include "ic/model_tools.hpp"
#include "nbody/error.hpp"

namespace nbody::ic {
namespace {

constexpr double kStartRadius = 1e-4;
constexpr double kStep = 1.0 / 512.0;  // in ln r

using State = std::array<double, 4>;  // W, u = r^2 dW/dr, potential energy, kinetic energy

State derivative(double x, const State& y, double rho0) {
  const double r = std::exp(x);
  const double r3 = r * r * r;
  const double rho = king_density(y[0]) / rho0;
  const double p = king_pressure(y[0]) / rho0;
  return {y[1] / r,                // dW/dx = r dW/dr
          -9.0 * r3 * rho,         // du/dx = r^3 (W'' + 2 W' / r)
          9.0 * y[1] * r * r * rho,  // d(W_pot)/dx = -(M / r) dM/dx with M = -u
          1.5 * 9.0 * r3 * p};     // dK/dx = 3/2 * 4 pi r^3 p
}

State rk4(double x, const State& y, double h, double rho0) {
  auto add = [](const State& a, const State& b, double s) {
    State o;
    for (int k = 0; k < 4; ++k) o[k] = a[k] + s * b[k];
    return o;
  };
  const State k1 = derivative(x, y, rho0);
  const State k2 = derivative(x + 0.5 * h, add(y, k1, 0.5 * h), rho0);
  const State k3 = derivative(x + 0.5 * h, add(y, k2, 0.5 * h), rho0);
  const State k4 = derivative(x + h, add(y, k3, h), rho0);
  State o;
  for (int k = 0; k < 4; ++k) o[k] = y[k] + h / 6.0 * (k1[k] + 2.0 * k2[k] + 2.0 * k3[k] + k4[k]);
  return o;
}

// Linear interpolation of ys at xs-coordinate v (xs ascending, v inside the range).
double interpolate(const std::vector<double>& xs, const std::vector<double>& ys, double v) {
  const auto it = std::upper_bound(xs.begin(), xs.end(), v);
  const std::size_t j = std::clamp<std::size_t>(std::size_t(it - xs.begin()), 1, xs.size() - 1);
  const double t = (v - xs[j - 1]) / (xs[j] - xs[j - 1]);
  return ys[j - 1] + t * (ys[j] - ys[j - 1]);
}

}  // namespace

double king_density(double w) {
  if (w <= 0) return 0;
  if (w < 1e-3) {
    // e^W erf(sqrt W) and the polynomial cancel to O(W^{5/2}); the series avoids the cancellation.
    return 8.0 / (15.0 * std::sqrt(std::numbers::pi)) * std::pow(w, 2.5) * (1.0 + 2.0 * w / 7.0);
  }
  return std::exp(w) * std::erf(std::sqrt(w)) - std::sqrt(4.0 * w / std::numbers::pi) * (1.0 + 2.0 * w / 3.0);
}

double king_pressure(double w) {
  if (w <= 0) return 0;
  if (w < 1e-3) {
    return 16.0 / (105.0 * std::sqrt(std::numbers::pi)) * std::pow(w, 3.5) * (1.0 + 2.0 * w / 9.0);
  }
  return std::exp(w) * std::erf(std::sqrt(w)) -
         std::sqrt(4.0 * w / std::numbers::pi) * (1.0 + 2.0 * w / 3.0 + 4.0 * w * w / 15.0);
}

KingModel solve_king(double w0) {
  if (!(w0 > 0) || !(w0 <= 18)) throw_input_error("king_w0: must be in (0, 18] (got " + std::to_string(w0) + ")");
  const double rho0 = king_density(w0);
  KingModel km;
  km.w0 = w0;
  double x = std::log(kStartRadius);
  const double r = kStartRadius;
  State y = {w0 - 1.5 * r * r, -3.0 * r * r * r, -27.0 / 5.0 * std::pow(r, 5),
             4.5 * king_pressure(w0) / rho0 * r * r * r};
  auto record = [&](double xi, const State& s) {
    km.ln_r.push_back(xi);
    km.w.push_back(std::max(0.0, s[0]));
    km.mass.push_back(-s[1]);
  };
  record(x, y);
  for (;;) {
    const State next = rk4(x, y, kStep, rho0);
    if (next[0] > 0) {
      x += kStep;
      y = next;
      record(x, y);
      continue;
    }
    // W changes sign within this step: bisect the step length for W = 0.
    double lo = 0, hi = kStep;
    for (int it = 0; it < 60; ++it) {
      const double mid = 0.5 * (lo + hi);
      (rk4(x, y, mid, rho0)[0] > 0 ? lo : hi) = mid;
    }
    y = rk4(x, y, hi, rho0);
    x += hi;
    y[0] = 0;
    record(x, y);
    break;
  }
  km.tidal_radius = std::exp(x);
  km.total_mass = -y[1];
  km.potential_energy = y[2];
  km.kinetic_energy = y[3];
  km.henon = henon_scale(km.total_mass, km.kinetic_energy + km.potential_energy, "king");
  return km;
}

double KingModel::radius_of_mass(double m) const {
  if (m <= mass.front()) return std::exp(ln_r.front()) * std::cbrt(std::max(0.0, m) / mass.front());
  if (m >= mass.back()) return tidal_radius;
  return std::exp(interpolate(mass, ln_r, m));
}

double KingModel::mass_within(double r) const {
  if (r <= 0) return 0;
  const double x = std::log(r);
  if (x <= ln_r.front()) return mass.front() * std::pow(r / std::exp(ln_r.front()), 3.0);
  if (x >= ln_r.back()) return total_mass;
  return interpolate(ln_r, mass, x);
}

double KingModel::potential_at(double r) const {
  if (r <= std::exp(ln_r.front())) return w0 - 1.5 * r * r;
  if (r >= tidal_radius) return 0;
  return interpolate(ln_r, w, std::log(r));
}

}  // namespace nbody::ic

namespace nbody {

namespace {

void draw_king_bodies(const ic::KingModel& km, const IcRequest& req, Particles<double>& p, std::size_t begin,
                      std::size_t end) {
  const auto n = static_cast<std::size_t>(req.n);
  ic::for_each_body(req.seed, ic::kStreamBody, begin, end, [&](std::size_t k, std::size_t i, BodyRng& rng) {
    const double r = km.radius_of_mass(km.total_mass * rng.uniform_open());
    const double w = km.potential_at(r);
    const double v_escape = std::sqrt(2.0 * w);
    const double norm = std::expm1(w);
    double v = 0;
    while (w > 0) {
      v = v_escape * std::cbrt(rng.uniform());
      if (rng.uniform() * norm < std::expm1(w - 0.5 * v * v)) break;
    }
    ic::place_isotropic(p, k, r, v, 1.0 / double(n), rng);
    p.id[k] = i;
  });
}

}  // namespace

void draw_king(const IcRequest& req, Particles<double>& p, std::size_t begin, std::size_t end) {
  draw_king_bodies(ic::solve_king(req.model.king_w0), req, p, begin, end);
}

Particles<double> make_king(const IcRequest& req) {
  const ic::KingModel km = ic::solve_king(req.model.king_w0);
  Particles<double> p;
  p.resize(static_cast<std::size_t>(req.n));
  draw_king_bodies(km, req, p, 0, p.size());
  ic::apply(p, km.henon);
  centre(p);
  return p;
}

}  // namespace nbody
