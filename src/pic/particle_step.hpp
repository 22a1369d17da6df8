#pragma once
// One particle's PIC step, shared by the CPU loop and the fused CUDA kernel: gather E and B at
// x^n (the deposition's shape), push u^{n-1/2} -> u^{n+1/2}, move to x^{n+1}, apply the
// particle boundaries, deposit Esirkepov's current for the move, wrap periodic coordinates.
// The old position stays in registers from the gather to the deposit.
#include <cmath>
#include <cstdint>

#include "pic/interpolation.hpp"
#include "pic/random.hpp"
#include "pic/species.hpp"

namespace nbody::pic {

struct PushParams {
  double x0 = 0, y0 = 0, dx = 1, dy = 1, lx = 1, ly = 1;  // grid origin, cell, box
  double dt = 0;
  double alpha = 0;   // (q/m) dt / 2
  double charge = 0;  // q (per real particle)
  double thermal_u = 0;
  ParticleBoundary side[4] = {};
  PusherKind pusher = PusherKind::boris;
  Vec3d external_e, external_b;
  bool deposit = true;
  CounterRng rng{0, 0};  // the thermalising boundary's draws (keyed by the step)
};

struct ParticleRef {
  double x, y, ux, uy, uz, w;
};

// Applies the boundary of the side the coordinate `c` left [lo, lo + len) through; `uc` is the
// momentum component along that axis. Returns false when the particle is absorbed.
PIC_HD bool apply_side(double& c, double lo, double len, Vec3d& u, double& uc, ParticleBoundary low_side,
                       ParticleBoundary high_side, double& wrap, double thermal_u, const CounterRng& rng,
                       std::uint64_t key) {
  const double hi = lo + len;
  if (c >= lo && c < hi) return true;
  const bool low = c < lo;
  switch (low ? low_side : high_side) {
    case ParticleBoundary::periodic: wrap = low ? len : -len; return true;
    case ParticleBoundary::absorb: return false;
    case ParticleBoundary::reflect:
      c = low ? 2 * lo - c : 2 * hi - c;
      uc = -uc;
      return true;
    case ParticleBoundary::thermal: {
      c = low ? 2 * lo - c : 2 * hi - c;
      const double un = std::fabs(thermal_u * rng.normal(key));
      u.x = thermal_u * rng.normal(key + 1);
      u.y = thermal_u * rng.normal(key + 2);
      u.z = thermal_u * rng.normal(key + 3);
      uc = low ? un : -un;
      return true;
    }
  }
  return true;
}

// Advances particle `index` (its values in `p`); returns false when it was absorbed.
template <class Shape, class Accumulate>
PIC_HD bool advance_particle(ParticleRef& p, std::uint64_t index, const FieldViews& v, const PushParams& s,
                             const Accumulate& acc) {
  const double inv_dx = 1.0 / s.dx, inv_dy = 1.0 / s.dy;
  const double xi0 = (p.x - s.x0) * inv_dx, yi0 = (p.y - s.y0) * inv_dy;
  Vec3d E, B;
  gather_fields<Shape>(v, xi0, yi0, E, B);
  E = axpy(1.0, s.external_e, E);
  B = axpy(1.0, s.external_b, B);
  Vec3d u = push_momentum(s.pusher, {p.ux, p.uy, p.uz}, E, B, s.alpha);
  double inv_g = 1.0 / lorentz_gamma(u);
  double x1 = p.x + s.dt * u.x * inv_g, y1 = p.y + s.dt * u.y * inv_g;
  double wrap_x = 0, wrap_y = 0;
  bool keep = apply_side(x1, s.x0, s.lx, u, u.x, s.side[0], s.side[1], wrap_x, s.thermal_u, s.rng, 8 * index);
  keep = apply_side(y1, s.y0, s.ly, u, u.y, s.side[2], s.side[3], wrap_y, s.thermal_u, s.rng, 8 * index + 4) && keep;
  inv_g = 1.0 / lorentz_gamma(u);
  if (s.deposit)
    deposit_esirkepov<Shape>(v, xi0, yi0, (x1 - s.x0) * inv_dx, (y1 - s.y0) * inv_dy, u.z * inv_g, s.charge * p.w, s.dx,
                             s.dy, s.dt, acc);
  if (!keep) return false;
  p.x = x1 + wrap_x;
  p.y = y1 + wrap_y;
  // A wrap by the box length can round onto the upper edge: keep the coordinate inside.
  if (p.x >= s.x0 + s.lx) p.x = s.x0;
  if (p.y >= s.y0 + s.ly) p.y = s.y0;
  p.ux = u.x, p.uy = u.y, p.uz = u.z;
  return true;
}

}  // namespace nbody::pic
