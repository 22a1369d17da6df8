#pragma once
// One particle's PIC step, shared by the CPU loop and the fused CUDA kernel: gather E and B at
// x^n (the deposition's shape), push u^{n-1/2} -> u^{n+1/2}, move to x^{n+1}, apply the
// particle boundaries, deposit Esirkepov's current for the move, wrap periodic coordinates.
// The old position stays in registers from the gather to the deposit.
#include <cmath>
#include <cstdint>

#include "pic/physics/interpolation.hpp"
#include "pic/physics/particle_precision.hpp"
#include "pic/physics/random.hpp"
#include "pic/physics/species.hpp"

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
  // The GPU path's float32 particle store (particle_precision.hpp): the new position is moved
  // onto the store's grid before the deposit (snap_to_store), so that the current is that of the
  // move between the stored positions and Esirkepov's charge conservation holds to float64
  // rounding. store_cells: the whole grid.
  bool float32_store = false;
  CellCoords store_cells;
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

// The particle step in four parts, which advance_particle runs in one go (the fused kernel and
// the CPU loop) and the study's separate kernels run one kernel each, with the same arithmetic:
//   gather_at       E and B at the particle (the external fields added)
//   push_and_move   u^{n-1/2} -> u^{n+1/2}, the new position, the particle boundaries
//   deposit_move    Esirkepov's current of the move (also for a particle absorbed on the way)
//   finish_move     the new state stored, periodic coordinates wrapped; false when absorbed
struct ParticleMove {
  double xi0, yi0;  // the old position in cell units
  double x1, y1;    // the new position, before wrapping
  Vec3d u;          // the new momentum
  double wrap_x, wrap_y;
  bool keep;
  PackedPosition stored;  // the float32 store's new position (set by snap_to_store)
};

// The float32 store: the new position (after the wrap) moved to the one the store will hold,
// decode(encode(x)); the unwrapped end of the move follows it, the encoded position is kept (the
// store's bits for finish_move's position: encode is exact on the decoded value, the wrap's
// x1 - L + L rounding included).
PIC_HD void snap_to_store(ParticleMove& m, const CellCoords& c) {
  double x = 0, y = 0;
  m.stored = encode_position(m.x1 + m.wrap_x, m.y1 + m.wrap_y, c);
  decode_position(m.stored, c, x, y);
  m.x1 = x - m.wrap_x;
  m.y1 = y - m.wrap_y;
}

template <class Shape>
PIC_HD void gather_at(const ParticleRef& p, const FieldViews& v, const PushParams& s, Vec3d& E, Vec3d& B) {
  const double xi0 = (p.x - s.x0) * (1.0 / s.dx), yi0 = (p.y - s.y0) * (1.0 / s.dy);
  gather_fields<Shape>(v, xi0, yi0, E, B);
  E = axpy(1.0, s.external_e, E);
  B = axpy(1.0, s.external_b, B);
}

PIC_HD ParticleMove push_and_move(const ParticleRef& p, std::uint64_t index, const Vec3d& E, const Vec3d& B,
                                  const PushParams& s) {
  ParticleMove m;
  m.xi0 = (p.x - s.x0) * (1.0 / s.dx);
  m.yi0 = (p.y - s.y0) * (1.0 / s.dy);
  m.u = push_momentum(s.pusher, {p.ux, p.uy, p.uz}, E, B, s.alpha);
  const double inv_g = 1.0 / lorentz_gamma(m.u);
  m.x1 = p.x + s.dt * m.u.x * inv_g;
  m.y1 = p.y + s.dt * m.u.y * inv_g;
  m.wrap_x = 0, m.wrap_y = 0;
  m.keep = apply_side(m.x1, s.x0, s.lx, m.u, m.u.x, s.side[0], s.side[1], m.wrap_x, s.thermal_u, s.rng, 8 * index);
  m.keep = apply_side(m.y1, s.y0, s.ly, m.u, m.u.y, s.side[2], s.side[3], m.wrap_y, s.thermal_u, s.rng, 8 * index + 4) &&
           m.keep;
  if (s.float32_store && m.keep) snap_to_store(m, s.store_cells);
  return m;
}

template <class Shape, class Accumulate>
PIC_HD void deposit_move(const ParticleMove& m, double weight, const FieldViews& v, const PushParams& s,
                         const Accumulate& acc) {
  if (!s.deposit) return;
  const double inv_g = 1.0 / lorentz_gamma(m.u);
  deposit_esirkepov<Shape>(v, m.xi0, m.yi0, (m.x1 - s.x0) * (1.0 / s.dx), (m.y1 - s.y0) * (1.0 / s.dy), m.u.z * inv_g,
                           s.charge * weight, s.dx, s.dy, s.dt, acc);
}

PIC_HD bool finish_move(ParticleRef& p, const ParticleMove& m, const PushParams& s) {
  if (!m.keep) return false;
  p.x = m.x1 + m.wrap_x;
  p.y = m.y1 + m.wrap_y;
  // A wrap by the box length can round onto the upper edge: keep the coordinate inside.
  if (p.x >= s.x0 + s.lx) p.x = s.x0;
  if (p.y >= s.y0 + s.ly) p.y = s.y0;
  p.ux = m.u.x, p.uy = m.u.y, p.uz = m.u.z;
  return true;
}

// Advances particle `index` (its values in `p`); returns false when it was absorbed.
template <class Shape, class Accumulate>
PIC_HD bool advance_particle(ParticleRef& p, std::uint64_t index, const FieldViews& v, const PushParams& s,
                             const Accumulate& acc) {
  Vec3d E, B;
  gather_at<Shape>(p, v, s, E, B);
  const ParticleMove m = push_and_move(p, index, E, B, s);
  deposit_move<Shape>(m, p.w, v, s, acc);
  return finish_move(p, m, s);
}

}  // namespace nbody::pic
