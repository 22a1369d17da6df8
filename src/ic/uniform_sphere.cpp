// Homogeneous sphere with isotropic Maxwellian velocities at a chosen virial ratio
// Q = 2K/|W| (--virial-ratio, default 0: the cold collapse), in Henon units.
//
// Recipe.
// 1. Positions uniform in a ball of radius R: r = R u^{1/3}, isotropic directions.
// 2. Velocities: three independent standard normal components per body (a Maxwellian of one
//    dispersion everywhere: not an equilibrium, the classic collapse set-up), then centred.
// 3. Scaling: the model's potential energy is W = -3 G M^2 / (5 R); velocities are multiplied so
//    that the bodies' kinetic energy is exactly K = Q |W| / 2. The energy is then
//    E = (Q/2 - 1) 3 G M^2 / (5 R), and E = -1/4 gives R = (12/5) (1 - Q/2) (R = 2.4 for the cold
//    collapse). Q must be < 2 (a sphere with Q >= 2 is unbound and has no Henon scaling).
//    The free-fall time of the cold sphere is t_ff = sqrt(3 pi / (32 G rho)) = (pi/2) sqrt(R^3 / 2GM)
//    = 4.13 Henon time units at R = 2.4.
// For N bodies the expected pair-sum potential energy is W (1 - 1/N).
//
// n is the number of bodies (any n >= 1), all of mass 1/n.
#include <cmath>
#include <string>

#include "core/rng.hpp"
#include "ic/ic.hpp"
#include "ic/model_tools.hpp"
#include "nbody/error.hpp"

namespace nbody {

namespace {

double sphere_radius(const IcRequest& req) {
  const double q = req.model.virial_ratio;
  if (!(q >= 0 && q < 2)) {
    throw_input_error("virial_ratio: uniform-sphere needs 0 <= Q < 2 (got " + std::to_string(q) +
                      "; Q >= 2 is unbound and has no Henon scaling)");
  }
  return 12.0 / 5.0 * (1.0 - 0.5 * q);
}

}  // namespace

double uniform_sphere_radius(const IcRequest& req) { return sphere_radius(req); }

void draw_uniform_sphere(const IcRequest& req, Particles<double>& p, std::size_t begin, std::size_t end) {
  const double radius = sphere_radius(req);
  const auto n = static_cast<std::size_t>(req.n);
  ic::for_each_body(req.seed, ic::kStreamBody, begin, end, [&](std::size_t k, std::size_t i, BodyRng& rng) {
    ic::place_in_ball(p, k, radius, rng);
    p.vx[k] = rng.normal();
    p.vy[k] = rng.normal();
    p.vz[k] = rng.normal();
    p.m[k] = 1.0 / double(n);
    p.id[k] = i;
  });
}

Particles<double> make_uniform_sphere(const IcRequest& req) {
  const double q = req.model.virial_ratio;
  const double radius = sphere_radius(req);
  const auto n = static_cast<std::size_t>(req.n);
  Particles<double> p;
  p.resize(n);
  draw_uniform_sphere(req, p, 0, n);
  centre(p);
  const double k = ic::kinetic_energy(p);
  const double k_target = q * 0.5 * 3.0 / (5.0 * radius);
  const double s = k > 0 ? std::sqrt(k_target / k) : 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    p.vx[i] *= s;
    p.vy[i] *= s;
    p.vz[i] *= s;
  }
  return p;
}

}  // namespace nbody
