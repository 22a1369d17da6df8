// The two set-ups of NVIDIA's CUDA samples `nbody` program besides its random cube
// (randomizeBodies, NBODY_CONFIG_SHELL and NBODY_CONFIG_EXPAND), implemented from the sample's
// described behaviour. Like `cube` they keep the sample's units: unit masses (total mass n) and
// G = 1, lengths from the sample's two parameters:
//   --cluster-scale s (the sample's clusterScale; default 1.54, its first demo's value)
//   --velocity-scale k (the sample's velocityScale; default 8, its first demo's value).
// The sample's first demo also uses dt = 0.016 and softening 0.1 (see examples/).
// Neither is an equilibrium, so there is no Henon scaling; both are centred (the velocity fields
// below are linear in position, so centring keeps their form).
//
// shell: bodies on a thick spherical shell, radius uniform in [2.5 s, 4 s] along an isotropic
//   direction, rotating rigidly about the z axis: v = s k (x cross z_hat), i.e. angular velocity
//   -s k z_hat, speed s k R_cyl. (For a body within 1e-6 of the +z pole the sample takes the
//   axis (y, x, 0) instead; so does this.) The sample draws the direction from a point of the
//   cube and an independent radius factor per coordinate, which makes its shell lumpy; here the
//   direction is isotropic and a body has one radius.
// expand: bodies uniform in a ball of radius R = s n / 1024 (R = s when that is below 1), moving
//   outward with v = k x: a homologous ("Hubble") expansion at rate k.
//
// n is the number of bodies (any n >= 1), each of mass 1.
#include <cmath>

#include "core/rng.hpp"
#include "ic/ic.hpp"
#include "ic/model_tools.hpp"

namespace nbody {

void draw_shell(const IcRequest& req, Particles<double>& p, std::size_t begin, std::size_t end) {
  const double s = req.model.cluster_scale;
  const double omega = s * req.model.velocity_scale;
  const double inner = 2.5 * s, outer = 4.0 * s;
  ic::for_each_body(req.seed, ic::kStreamBody, begin, end, [&](std::size_t k, std::size_t i, BodyRng& rng) {
    double dx, dy, dz;
    rng.unit_vector(dx, dy, dz);
    const double r = rng.uniform(inner, outer);
    const double x = r * dx, y = r * dy, z = r * dz;
    double ax = 0, ay = 0, az = 1;
    if (1.0 - dz < 1e-6) {
      const double len = std::hypot(dy, dx);
      ax = len > 0 ? dy / len : 0.0;
      ay = len > 0 ? dx / len : 0.0;
      az = 0;
    }
    p.x[k] = x;
    p.y[k] = y;
    p.z[k] = z;
    p.vx[k] = omega * (y * az - z * ay);
    p.vy[k] = omega * (z * ax - x * az);
    p.vz[k] = omega * (x * ay - y * ax);
    p.m[k] = 1.0;
    p.id[k] = i;
  });
}

Particles<double> make_shell(const IcRequest& req) {
  Particles<double> p;
  p.resize(static_cast<std::size_t>(req.n));
  draw_shell(req, p, 0, p.size());
  centre(p);
  return p;
}

void draw_expand(const IcRequest& req, Particles<double>& p, std::size_t begin, std::size_t end) {
  const double s = req.model.cluster_scale;
  double radius = s * double(req.n) / 1024.0;
  if (radius < 1.0) radius = s;
  const double rate = req.model.velocity_scale;
  ic::for_each_body(req.seed, ic::kStreamBody, begin, end, [&](std::size_t k, std::size_t i, BodyRng& rng) {
    ic::place_in_ball(p, k, radius, rng);
    p.vx[k] = rate * p.x[k];
    p.vy[k] = rate * p.y[k];
    p.vz[k] = rate * p.z[k];
    p.m[k] = 1.0;
    p.id[k] = i;
  });
}

Particles<double> make_expand(const IcRequest& req) {
  Particles<double> p;
  p.resize(static_cast<std::size_t>(req.n));
  draw_expand(req, p, 0, p.size());
  centre(p);
  return p;
}

}  // namespace nbody
