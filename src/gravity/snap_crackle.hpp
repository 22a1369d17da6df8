#pragma once
// The second and third time derivatives of the Plummer-softened acceleration, snap and crackle,
// for one pair: what the Hermite integrator's first step needs to use Aarseth's criterion from
// the start instead of the estimate eta |a| / |j| (NBODY6 computes them the same way at the
// start, its FPOLY2). Written once for the host loops and the CUDA kernel.
//
// With r, v, a, j the source's position, velocity, acceleration and jerk relative to the
// target's, R^2 = r^2 + eps^2 and, differentiating A = m r / R^3 three times in time
// (e.g. Nitadori & Makino 2008, New Astron. 13, 498, eqs. 18-21):
//   alpha = r.v / R^2,  beta = (v.v + r.a) / R^2 + alpha^2,
//   gamma = (3 v.a + r.j) / R^2 + alpha (3 beta - 4 alpha^2),
//   A = m r / R^3,  J = m v / R^3 - 3 alpha A,
//   S = m a / R^3 - 6 alpha J - 3 beta A,
//   C = m j / R^3 - 9 alpha S - 9 beta J - 3 gamma A.
// A coincident pair (R = 0: the target itself without softening) adds nothing. In float64
// whatever the state's precision: the terms are formed once a run.
#include <cmath>

#include "core/hd.hpp"
#include "gravity/params.hpp"

namespace nbody::gravity {

// Whether these pair terms are the law's: Plummer softening, or none (the spline law's would need
// the kernel's higher derivatives). A solver declares capabilities().snap_crackle by this.
inline bool has_snap_crackle(const GravityParams& g) { return g.law == SofteningLaw::plummer || g.eps2() == 0.0; }

struct Derivatives3 {
  double x, y, z;
};

// One source's relative state (source minus target) and mass.
struct RelativeMotion {
  double rx, ry, rz, vx, vy, vz, ax, ay, az, jx, jy, jz, m;
};

NBODY_HD void accumulate_snap_crackle(double eps2, const RelativeMotion& d, Derivatives3& snap,
                                             Derivatives3& crackle) {
  const double r2 = eps2 + d.rx * d.rx + d.ry * d.ry + d.rz * d.rz;
  if (!(r2 > 0.0)) return;
  const double inv2 = 1.0 / r2;
#if defined(__CUDA_ARCH__)
  const double inv = sqrt(inv2);
#else
  const double inv = std::sqrt(inv2);
#endif
  const double mr3 = d.m * inv * inv2;
  const double rv = d.rx * d.vx + d.ry * d.vy + d.rz * d.vz;
  const double vv = d.vx * d.vx + d.vy * d.vy + d.vz * d.vz;
  const double ra = d.rx * d.ax + d.ry * d.ay + d.rz * d.az;
  const double va = d.vx * d.ax + d.vy * d.ay + d.vz * d.az;
  const double rj = d.rx * d.jx + d.ry * d.jy + d.rz * d.jz;
  const double alpha = rv * inv2;
  const double beta = (vv + ra) * inv2 + alpha * alpha;
  const double gamma = (3.0 * va + rj) * inv2 + alpha * (3.0 * beta - 4.0 * alpha * alpha);
  const double Ax = mr3 * d.rx, Ay = mr3 * d.ry, Az = mr3 * d.rz;
  const double Jx = mr3 * d.vx - 3.0 * alpha * Ax;
  const double Jy = mr3 * d.vy - 3.0 * alpha * Ay;
  const double Jz = mr3 * d.vz - 3.0 * alpha * Az;
  const double Sx = mr3 * d.ax - 6.0 * alpha * Jx - 3.0 * beta * Ax;
  const double Sy = mr3 * d.ay - 6.0 * alpha * Jy - 3.0 * beta * Ay;
  const double Sz = mr3 * d.az - 6.0 * alpha * Jz - 3.0 * beta * Az;
  snap.x += Sx;
  snap.y += Sy;
  snap.z += Sz;
  crackle.x += mr3 * d.jx - 9.0 * alpha * Sx - 9.0 * beta * Jx - 3.0 * gamma * Ax;
  crackle.y += mr3 * d.jy - 9.0 * alpha * Sy - 9.0 * beta * Jy - 3.0 * gamma * Ay;
  crackle.z += mr3 * d.jz - 9.0 * alpha * Sz - 9.0 * beta * Jz - 3.0 * gamma * Az;
}

}  // namespace nbody::gravity
