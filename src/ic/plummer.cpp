// Plummer sphere by the method of Aarseth, Henon & Wielen (1974, A&A 37, 183):
// the radius from the inverted cumulative mass, the speed by rejection from the distribution
// g(q) = q^2 (1 - q^2)^{7/2} of q = v / v_escape, isotropic directions. Sampled in units with
// G = M = b = 1 (E = -3 pi / 64), then scaled to Henon units (E = -1/4): lengths by 3 pi / 16,
// velocities by its inverse square root.
#include <cmath>
#include <numbers>

#include "core/rng.hpp"
#include "ic/ic.hpp"

namespace nbody {
namespace {

// The outermost 0.1 % of the mass is not sampled (as NEMO's mkplummer does by default): the
// model's radius is unbounded and a handful of bodies at hundreds of scale lengths would only
// add noise. It moves the half-mass radius by under 0.1 %.
constexpr double kMassCut = 0.999;

double sample_speed_fraction(Rng& rng) {
  for (;;) {
    const double q = rng.uniform();
    const double g = 0.1 * rng.uniform();  // g(q) <= 0.092 on [0, 1]
    if (g < q * q * std::pow(1.0 - q * q, 3.5)) return q;
  }
}

}  // namespace

Particles<double> make_plummer(const IcRequest& req) {
  const auto n = static_cast<std::size_t>(req.n);
  Particles<double> p;
  p.resize(n);
  Rng rng(req.seed);
  const double length = 3.0 * std::numbers::pi / 16.0;
  const double velocity = 1.0 / std::sqrt(length);
  for (std::size_t i = 0; i < n; ++i) {
    const double mass_fraction = kMassCut * rng.uniform_open();
    const double r = 1.0 / std::sqrt(std::pow(mass_fraction, -2.0 / 3.0) - 1.0);
    double ux, uy, uz;
    rng.unit_vector(ux, uy, uz);
    const double v = sample_speed_fraction(rng) * std::numbers::sqrt2 * std::pow(1.0 + r * r, -0.25);
    double wx, wy, wz;
    rng.unit_vector(wx, wy, wz);
    p.x[i] = length * r * ux;
    p.y[i] = length * r * uy;
    p.z[i] = length * r * uz;
    p.vx[i] = velocity * v * wx;
    p.vy[i] = velocity * v * wy;
    p.vz[i] = velocity * v * wz;
    p.m[i] = 1.0 / double(n);
    p.id[i] = i;
  }
  centre(p);
  return p;
}

}  // namespace nbody
