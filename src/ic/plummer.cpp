// Plummer sphere by the method of Aarseth, Henon & Wielen (1974, A&A 37, 183):
// the radius from the inverted cumulative mass, the speed by rejection from the distribution
// g(q) = q^2 (1 - q^2)^{7/2} of q = v / v_escape, isotropic directions. Sampled in units with
// G = M = b = 1 (E = -3 pi / 64), then scaled to Henon units (E = -1/4): lengths by 3 pi / 16,
// velocities by its inverse square root.
#include <cmath>
#include <numbers>

#include "core/rng.hpp"
#include "ic/ic.hpp"
#include "ic/model_tools.hpp"

namespace nbody {
namespace {

// The outermost 0.1 % of the mass is not sampled (as NEMO's mkplummer does by default): the
// model's radius is unbounded and a handful of bodies at hundreds of scale lengths would only
// add noise. It moves the half-mass radius by under 0.1 %.
constexpr double kMassCut = 0.999;

double sample_speed_fraction(BodyRng& rng) {
  for (;;) {
    const double q = rng.uniform();
    const double g = 0.1 * rng.uniform();  // g(q) <= 0.092 on [0, 1]
    if (g < q * q * std::pow(1.0 - q * q, 3.5)) return q;
  }
}

}  // namespace

void draw_plummer(const IcRequest& req, Particles<double>& p, std::size_t begin, std::size_t end) {
  const auto n = static_cast<std::size_t>(req.n);
  const double length = 3.0 * std::numbers::pi / 16.0;
  const double velocity = 1.0 / std::sqrt(length);
  ic::for_each_body(req.seed, ic::kStreamBody, begin, end, [&](std::size_t k, std::size_t i, BodyRng& rng) {
    const double mass_fraction = kMassCut * rng.uniform_open();
    const double r = 1.0 / std::sqrt(std::pow(mass_fraction, -2.0 / 3.0) - 1.0);
    double ux, uy, uz;
    rng.unit_vector(ux, uy, uz);
    const double v = sample_speed_fraction(rng) * std::numbers::sqrt2 * std::pow(1.0 + r * r, -0.25);
    double wx, wy, wz;
    rng.unit_vector(wx, wy, wz);
    p.x[k] = length * r * ux;
    p.y[k] = length * r * uy;
    p.z[k] = length * r * uz;
    p.vx[k] = velocity * v * wx;
    p.vy[k] = velocity * v * wy;
    p.vz[k] = velocity * v * wz;
    p.m[k] = 1.0 / double(n);
    p.id[k] = i;
  });
}

Particles<double> make_plummer(const IcRequest& req) {
  Particles<double> p;
  p.resize(static_cast<std::size_t>(req.n));
  draw_plummer(req, p, 0, p.size());
  centre(p);
  return p;
}

}  // namespace nbody
