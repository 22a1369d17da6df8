#include "ensemble/kepler.hpp"

#include <cmath>
#include <numbers>

namespace nbody::ensemble {
namespace {
constexpr double kPi = std::numbers::pi;

// An angle in [0, 2 pi).
double wrap(double a) {
  a = std::fmod(a, 2 * kPi);
  return a < 0 ? a + 2 * kPi : a;
}

// The orbit plane's unit vectors P (to pericentre) and Q in space.
void plane_axes(const Elements& el, double P[3], double Q[3]) {
  const double cO = std::cos(el.node), sO = std::sin(el.node);
  const double cw = std::cos(el.peri), sw = std::sin(el.peri);
  const double ci = std::cos(el.inc), si = std::sin(el.inc);
  P[0] = cO * cw - sO * sw * ci, P[1] = sO * cw + cO * sw * ci, P[2] = sw * si;
  Q[0] = -cO * sw - sO * cw * ci, Q[1] = -sO * sw + cO * cw * ci, Q[2] = cw * si;
}
}  // namespace

double solve_kepler(double M, double e) {
  M = std::remainder(M, 2 * kPi);  // in [-pi, pi]
  double E = e < 0.8 ? M : (M < 0 ? -kPi : kPi);
  for (int it = 0; it < 64; ++it) {
    const double f = E - e * std::sin(E) - M;
    const double d = f / (1 - e * std::cos(E));
    E -= d;
    if (std::fabs(d) <= 1e-15 * (1 + std::fabs(E))) break;
  }
  return E;
}

double solve_kepler_hyperbolic(double M, double e) {
  double H = std::asinh(M / e);
  for (int it = 0; it < 100; ++it) {
    const double f = e * std::sinh(H) - H - M;
    const double d = f / (e * std::cosh(H) - 1);
    H -= d;
    if (std::fabs(d) <= 1e-15 * (1 + std::fabs(H))) break;
  }
  return H;
}

void elements_to_state(const Elements& el, double mu, double pos[3], double vel[3]) {
  double P[3], Q[3];
  plane_axes(el, P, Q);
  double xp, yp, vxp, vyp;
  if (el.e < 1) {
    const double E = solve_kepler(el.mean, el.e);
    const double cE = std::cos(E), sE = std::sin(E), b = el.a * std::sqrt(1 - el.e * el.e);
    const double n = std::sqrt(mu / (el.a * el.a * el.a)), edot = n / (1 - el.e * cE);
    xp = el.a * (cE - el.e), yp = b * sE;
    vxp = -el.a * sE * edot, vyp = b * cE * edot;
  } else {
    const double a = -std::fabs(el.a);
    const double H = solve_kepler_hyperbolic(el.mean, el.e);
    const double cH = std::cosh(H), sH = std::sinh(H), b = -a * std::sqrt(el.e * el.e - 1);
    const double n = std::sqrt(mu / (-a * a * a)), hdot = n / (el.e * cH - 1);
    xp = a * (cH - el.e), yp = b * sH;
    vxp = a * sH * hdot, vyp = b * cH * hdot;
  }
  for (int c = 0; c < 3; ++c) pos[c] = xp * P[c] + yp * Q[c], vel[c] = vxp * P[c] + vyp * Q[c];
}

Elements state_to_elements(const double r[3], const double v[3], double mu) {
  Elements el;
  const double rn = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
  const double v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  const double h[3] = {r[1] * v[2] - r[2] * v[1], r[2] * v[0] - r[0] * v[2], r[0] * v[1] - r[1] * v[0]};
  const double hn = std::sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);
  const double rv = r[0] * v[0] + r[1] * v[1] + r[2] * v[2];
  double ev[3];
  for (int c = 0; c < 3; ++c) ev[c] = ((v2 - mu / rn) * r[c] - rv * v[c]) / mu;
  el.e = std::sqrt(ev[0] * ev[0] + ev[1] * ev[1] + ev[2] * ev[2]);
  el.a = 1.0 / (2.0 / rn - v2 / mu);
  el.inc = hn > 0 ? std::acos(std::fmax(-1.0, std::fmin(1.0, h[2] / hn))) : 0;
  const double nvec[2] = {-h[1], h[0]};
  const double nn = std::hypot(nvec[0], nvec[1]);
  el.node = nn > 0 ? std::atan2(nvec[1], nvec[0]) : 0;
  // The pericentre's angle from the node line in the plane (from the x axis for a flat orbit).
  double ex = nn > 0 ? nvec[0] / nn : 1, ey = nn > 0 ? nvec[1] / nn : 0;
  // Node direction N, in-plane perpendicular W = h x N / |h|.
  const double N[3] = {ex, ey, 0};
  double W[3] = {0, 0, 0};
  if (hn > 0) {
    W[0] = (h[1] * N[2] - h[2] * N[1]) / hn, W[1] = (h[2] * N[0] - h[0] * N[2]) / hn,
    W[2] = (h[0] * N[1] - h[1] * N[0]) / hn;
  }
  auto angle = [&](const double u[3]) { return std::atan2(u[0] * W[0] + u[1] * W[1] + u[2] * W[2], u[0] * N[0] + u[1] * N[1] + u[2] * N[2]); };
  const double true_anomaly_from_node = angle(r);
  el.peri = el.e > 1e-12 ? angle(ev) : 0;
  const double f = true_anomaly_from_node - el.peri;
  if (el.e < 1) {
    const double E = 2 * std::atan2(std::sqrt(1 - el.e) * std::sin(f / 2), std::sqrt(1 + el.e) * std::cos(f / 2));
    el.mean = wrap(E - el.e * std::sin(E));
    el.node = wrap(el.node), el.peri = wrap(el.peri);
  } else {
    const double H = 2 * std::atanh(std::sqrt((el.e - 1) / (el.e + 1)) * std::tan(f / 2));
    el.mean = el.e * std::sinh(H) - H;
  }
  return el;
}

}  // namespace nbody::ensemble
