#pragma once
// The opening test of the group walk: whether a cell must be opened (its children or bodies
// visited) for a group of targets, or its multipole accepted. Host and device; R the arithmetic.
//
// Barnes-Hut with the safety term (the "vector" criterion of Bonsai and cornerstone/Ryoanji): a
// cell of side l whose centre of mass lies delta from its geometric centre is accepted when the
// group's bounding box keeps at least
//   r_crit = l / theta + delta
// from the centre of mass. delta guards the cells whose mass sits in a corner (where l/theta
// alone lets a target come closer to the cell's bodies than the angle promises); theta = 0 opens
// every cell (r_crit infinite), which is the direct sum.
//
// Relative (GADGET's): accepted when G M l^2 <= alpha |a_old| r^4, r the distance from the
// group's box to the centre of mass and |a_old| the smallest acceleration of the group's targets
// in the previous force pass; opened in any case when the group's box reaches into the cell's
// cube enlarged 1.2 times about its geometric centre (GADGET's guard against a target inside a
// large cell). Without a previous |a| (the first pass) the Barnes-Hut test is used.
//
// The spline law's kernel is not Newtonian within its support h: a cell whose box comes closer
// than h to the group's box is opened, so that every accepted multipole sees Newtonian gravity.
#include "core/hd.hpp"

namespace nbody::gravity::tree {

// An axis-aligned box: centre and half-extents per axis.
template <class R>
struct Box {
  R cx, cy, cz;
  R hx, hy, hz;
};

template <class R>
NBODY_HD R gap(R d, R h) {
  const R g = (d < R(0) ? -d : d) - h;
  return g > R(0) ? g : R(0);
}

// The squared distance from a box to a point (0 inside).
template <class R>
NBODY_HD R distance2(const Box<R>& b, R px, R py, R pz) {
  const R gx = gap(px - b.cx, b.hx), gy = gap(py - b.cy, b.hy), gz = gap(pz - b.cz, b.hz);
  return gx * gx + gy * gy + gz * gz;
}

// The squared distance between two boxes (0 where they overlap).
template <class R>
NBODY_HD R distance2(const Box<R>& a, const Box<R>& b) {
  const R gx = gap(a.cx - b.cx, a.hx + b.hx), gy = gap(a.cy - b.cy, a.hy + b.hy), gz = gap(a.cz - b.cz, a.hz + b.hz);
  return gx * gx + gy * gy + gz * gz;
}

// What the test needs of a cell: its cube (geometric centre, half side), mass, centre of mass and
// its squared Barnes-Hut radius (barnes_hut_radius2, computed once with the multipoles).
template <class R>
struct CellView {
  R cx, cy, cz, half;
  R m, mx, my, mz;
  R rcrit2;
};

// (l/theta + delta)^2 for a cell of half side `half` whose centre of mass is `delta` from its
// centre; `infinity` (the caller's) for theta = 0.
template <class R>
NBODY_HD R barnes_hut_radius2(R half, R delta, R theta, R infinity) {
  if (!(theta > R(0))) return infinity;
  const R r = R(2) * half / theta + delta;
  return r * r;
}

template <class R>
struct OpeningTest {
  bool relative = false;  // GADGET's criterion (where the group has a previous |a|)
  R G = 1;
  R alpha = 0;
  R near2 = 0;  // the spline law's support squared (0: Plummer)

  // a_min: the smallest previous |a| of the group's targets (0: unknown, Barnes-Hut).
  NBODY_HD bool opens(const Box<R>& group, R a_min, const CellView<R>& c) const {
    if (near2 > R(0) && distance2(group, Box<R>{c.cx, c.cy, c.cz, c.half, c.half, c.half}) < near2) return true;
    const R d2 = distance2(group, c.mx, c.my, c.mz);
    if (relative && a_min > R(0)) {
      const R guard = R(1.2) * c.half;
      if (distance2(group, Box<R>{c.cx, c.cy, c.cz, guard, guard, guard}) <= R(0)) return true;
      const R l2 = R(4) * c.half * c.half;
      return G * c.m * l2 > alpha * a_min * d2 * d2;
    }
    return d2 < c.rcrit2;
  }
};

}  // namespace nbody::gravity::tree
