#pragma once
// Multipoles of the tree's cells to quadrupole order: the mass M, the centre of mass c (about
// which the dipole vanishes), the traceless quadrupole Q_ij = sum m (3 y_i y_j - |y|^2 d_ij),
// y = x - c, and the trace of the second moment t = sum m |y|^2. The potential of a cell at a
// target x, d = c - x, r = |d|:
//   phi = -M/r - (1/2) d.Q.d / r^5
// and its acceleration (minus the gradient over x)
//   a = M d / r^3 - Q.d / r^5 + (5/2) (d.Q.d) d / r^7.
// With Plummer softening the expansion of the softened potential -1/R, R^2 = r^2 + eps^2, to
// the same order is exact: r becomes R in every term and d.Q.d becomes d.Q.d - t eps^2 (the
// second moment's trace does not drop out of the softened Laplacian). Leaving t out, as Bonsai
// does, errs by t eps^2 / R^5 a term: the dominant error of cells accepted within a few eps
// (a cusp resolved below the softening). The spline law's cells are opened where any of their
// bodies might be within the kernel's support, and use eps = 0. Host and device; R is the
// arithmetic (double for the CPU oracle).
#include "gravity/interaction.hpp"

namespace nbody::gravity::tree {

template <class R>
struct Multipole {
  R m = 0;
  R x = 0, y = 0, z = 0;  // centre of mass
  R qxx = 0, qxy = 0, qxz = 0, qyy = 0, qyz = 0, qzz = 0;
  R tr = 0;  // sum m |y|^2, the trace of the second moment
};

// Adds a point mass m at offset (dx, dy, dz) from the expansion centre to the quadrupole's raw
// second moment (P2M; made traceless by `traceless`).
template <class R>
NBODY_HD void add_second_moment(Multipole<R>& q, R m, R dx, R dy, R dz) {
  q.qxx += m * dx * dx;
  q.qxy += m * dx * dy;
  q.qxz += m * dx * dz;
  q.qyy += m * dy * dy;
  q.qyz += m * dy * dz;
  q.qzz += m * dz * dz;
}

// The second moment S_ij = sum m y_i y_j turned into Q = 3 S - tr(S) I (tr(S) kept).
template <class R>
NBODY_HD void make_traceless(Multipole<R>& q) {
  const R tr = q.qxx + q.qyy + q.qzz;
  q.tr = tr;
  q.qxx = R(3) * q.qxx - tr;
  q.qyy = R(3) * q.qyy - tr;
  q.qzz = R(3) * q.qzz - tr;
  q.qxy *= R(3);
  q.qxz *= R(3);
  q.qyz *= R(3);
}

// M2M: adds a child's traceless quadrupole, moved from its centre of mass by (dx, dy, dz) =
// c_child - c_parent: Q += Q_child + M_child (3 s s^T - |s|^2 I), t += t_child + M_child |s|^2.
template <class R>
NBODY_HD void add_shifted(Multipole<R>& parent, const Multipole<R>& child, R dx, R dy, R dz) {
  const R m = child.m;
  const R s2 = dx * dx + dy * dy + dz * dz;
  parent.tr += child.tr + m * s2;
  parent.qxx += child.qxx + m * (R(3) * dx * dx - s2);
  parent.qyy += child.qyy + m * (R(3) * dy * dy - s2);
  parent.qzz += child.qzz + m * (R(3) * dz * dz - s2);
  parent.qxy += child.qxy + R(3) * m * dx * dy;
  parent.qxz += child.qxz + R(3) * m * dx * dz;
  parent.qyz += child.qyz + R(3) * m * dy * dz;
}

// The multipoles of a tree's cells as arrays (the CPU's vectors or the GPU's device arrays).
template <class R>
struct MultipoleArrays {
  const R *m, *x, *y, *z, *qxx, *qxy, *qxz, *qyy, *qyz, *qzz, *tr;
  NBODY_HD Multipole<R> at(int k) const {
    return {m[k], x[k], y[k], z[k], qxx[k], qxy[k], qxz[k], qyy[k], qyz[k], qzz[k], tr[k]};
  }
};

// P2M: the multipole of the bodies [b, e) about their centre of mass; about (cx, cy, cz), the
// cell's geometric centre, when they have no mass.
template <class R>
NBODY_HD Multipole<R> bodies_multipole(const R* x, const R* y, const R* z, const R* m, int b, int e, R cx, R cy, R cz) {
  Multipole<R> q;
  R sx = 0, sy = 0, sz = 0;
  for (int i = b; i < e; ++i) {
    q.m += m[i];
    sx += m[i] * x[i];
    sy += m[i] * y[i];
    sz += m[i] * z[i];
  }
  if (q.m > 0) {
    q.x = sx / q.m, q.y = sy / q.m, q.z = sz / q.m;
  } else {
    q.x = cx, q.y = cy, q.z = cz;
  }
  for (int i = b; i < e; ++i) add_second_moment(q, m[i], x[i] - q.x, y[i] - q.y, z[i] - q.z);
  make_traceless(q);
  return q;
}

// M2M: the multipole of the children [b, e) (cells of `c`) about their common centre of mass;
// about (cx, cy, cz) when they have no mass.
template <class R>
NBODY_HD Multipole<R> children_multipole(const MultipoleArrays<R>& c, int b, int e, R cx, R cy, R cz) {
  Multipole<R> q;
  R sx = 0, sy = 0, sz = 0;
  for (int k = b; k < e; ++k) {
    q.m += c.m[k];
    sx += c.m[k] * c.x[k];
    sy += c.m[k] * c.y[k];
    sz += c.m[k] * c.z[k];
  }
  if (q.m > 0) {
    q.x = sx / q.m, q.y = sy / q.m, q.z = sz / q.m;
  } else {
    q.x = cx, q.y = cy, q.z = cz;
  }
  for (int k = b; k < e; ++k) add_shifted(q, c.at(k), c.x[k] - q.x, c.y[k] - q.y, c.z[k] - q.z);
  return q;
}

// M2P: the acceleration (without G) and potential of a cell at a target. d = centre of mass
// minus target; eps2 the Plummer softening (0 for the spline law, whose near cells are opened).
template <class R>
struct MultipoleEval {
  R eps2;

  NBODY_HD void accumulate(R dx, R dy, R dz, const Multipole<R>& c, R& ax, R& ay, R& az) const {
    const R r2 = eps2 + dx * dx + dy * dy + dz * dz;
    const R inv = reciprocal_sqrt(r2);
    const R inv2 = inv * inv;
    const R inv3 = inv * inv2;
    const R inv5 = inv3 * inv2;
    const R qdx = c.qxx * dx + c.qxy * dy + c.qxz * dz;
    const R qdy = c.qxy * dx + c.qyy * dy + c.qyz * dz;
    const R qdz = c.qxz * dx + c.qyz * dy + c.qzz * dz;
    const R dqd = dx * qdx + dy * qdy + dz * qdz - c.tr * eps2;
    const R radial = c.m * inv3 + R(2.5) * dqd * inv5 * inv2;
    ax += radial * dx - qdx * inv5;
    ay += radial * dy - qdy * inv5;
    az += radial * dz - qdz * inv5;
  }

  NBODY_HD R potential(R dx, R dy, R dz, const Multipole<R>& c) const {
    const R r2 = eps2 + dx * dx + dy * dy + dz * dz;
    const R inv = reciprocal_sqrt(r2);
    const R inv2 = inv * inv;
    const R qdx = c.qxx * dx + c.qxy * dy + c.qxz * dz;
    const R qdy = c.qxy * dx + c.qyy * dy + c.qyz * dz;
    const R qdz = c.qxz * dx + c.qyz * dy + c.qzz * dz;
    const R dqd = dx * qdx + dy * qdy + dz * qdz - c.tr * eps2;
    return -c.m * inv - R(0.5) * dqd * inv * inv2 * inv2;
  }
};

}  // namespace nbody::gravity::tree
