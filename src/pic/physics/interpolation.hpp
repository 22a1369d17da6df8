#pragma once
// Field gather and Esirkepov current deposition for one particle, templated on the shape and on
// the accumulator (a plain += on the host, atomicAdd or a private buffer on the GPU).
#include "pic/physics/grid.hpp"
#include "pic/physics/pusher.hpp"
#include "pic/physics/shapes.hpp"

namespace nbody::pic {

// The shape weights of one component staggered by (sx, sy) half cells, at xi, yi (cell units
// from node (0,0)), summed over the support: sum_m sum_n wx[m] wy[n] f(ix + m, iy + n).
template <class Shape>
PIC_HD double interpolate(const FieldView& f, double xi, double yi) {
  const int ix = Shape::first(xi);
  const int iy = Shape::first(yi);
  double wx[Shape::support], wy[Shape::support];
  Shape::weights(xi, ix, wx);
  Shape::weights(yi, iy, wy);
  double sum = 0;
  for (int n = 0; n < Shape::support; ++n) {
    double row = 0;
    for (int m = 0; m < Shape::support; ++m) row += wx[m] * f(ix + m, iy + n);
    sum += wy[n] * row;
  }
  return sum;
}

// E and B at a particle at (xi, yi) in cell units, each component from its staggered position.
template <class Shape>
PIC_HD void gather_fields(const FieldViews& f, double xi, double yi, Vec3d& E, Vec3d& B) {
  E.x = interpolate<Shape>(f.e[0], xi - 0.5, yi);
  E.y = interpolate<Shape>(f.e[1], xi, yi - 0.5);
  E.z = interpolate<Shape>(f.e[2], xi, yi);
  B.x = interpolate<Shape>(f.b[0], xi, yi - 0.5);
  B.y = interpolate<Shape>(f.b[1], xi - 0.5, yi);
  B.z = interpolate<Shape>(f.b[2], xi - 0.5, yi - 0.5);
}

struct HostAccumulate {
  PIC_HD void operator()(double* p, double v) const { *p += v; }
};

// Esirkepov (2001) charge-conserving deposition of a particle moving from (x0, y0) to (x1, y1)
// (cell units) in one step dt with the out-of-plane velocity vz. qw = charge times weight.
// The discrete continuity equation (rho^{n+1} - rho^n)/dt + div J = 0 holds exactly with the
// shape's nodal charge and the Yee divergence, so Gauss's law is kept to rounding.
// Requires |x1 - x0| < 1 and |y1 - y0| < 1 (no particle crosses more than one cell per step).
template <class Shape, class Accumulate>
PIC_HD void deposit_esirkepov(const FieldViews& f, double x0, double y0, double x1, double y1, double vz,
                              double qw, double dx, double dy, double dt, const Accumulate& acc) {
  constexpr int K = Shape::support + 2;  // the old shape, one point either side
  double sx0[K] = {}, sx1[K] = {}, sy0[K] = {}, sy1[K] = {};
  const int fx0 = Shape::first(x0), fy0 = Shape::first(y0);
  const int fx1 = Shape::first(x1), fy1 = Shape::first(y1);
  const int bx = fx0 - 1, by = fy0 - 1;  // the first stencil point
  Shape::weights(x0, fx0, sx0 + 1);
  Shape::weights(y0, fy0, sy0 + 1);
  // The new shape lands at offset fx1 - bx (0, 1 or 2) in the stencil: placed by selects with
  // constant indices rather than by a pointer offset, so that on the GPU the arrays stay in
  // registers (a run-time index into a local array puts it in local memory).
  double wx1[Shape::support], wy1[Shape::support];
  Shape::weights(x1, fx1, wx1);
  Shape::weights(y1, fy1, wy1);
  const int ox = fx1 - bx, oy = fy1 - by;
PIC_UNROLL
  for (int k = 0; k < K; ++k) {
PIC_UNROLL
    for (int q = 0; q < Shape::support; ++q) {
      if (k - q == ox) sx1[k] = wx1[q];
      if (k - q == oy) sy1[k] = wy1[q];
    }
  }
  double dsx[K], dsy[K];
  for (int k = 0; k < K; ++k) {
    dsx[k] = sx1[k] - sx0[k];
    dsy[k] = sy1[k] - sy0[k];
  }
  const double inv_area = 1.0 / (dx * dy);
  const double cx = -qw * dx / dt * inv_area;
  const double cy = -qw * dy / dt * inv_area;
  const double cz = qw * vz * inv_area;
  // Jx: the running sum along x of -q w dx/dt W_x; the last point's sum is zero.
  for (int n = 0; n < K; ++n) {
    const double ay = sy0[n] + 0.5 * dsy[n];
    double run = 0;
    for (int m = 0; m < K - 1; ++m) {
      run += cx * dsx[m] * ay;
      if (run != 0.0) acc(&f.j[0](bx + m, by + n), run);
    }
  }
  for (int m = 0; m < K; ++m) {
    const double ax = sx0[m] + 0.5 * dsx[m];
    double run = 0;
    for (int n = 0; n < K - 1; ++n) {
      run += cy * dsy[n] * ax;
      if (run != 0.0) acc(&f.j[1](bx + m, by + n), run);
    }
  }
  for (int n = 0; n < K; ++n) {
    for (int m = 0; m < K; ++m) {
      const double w = sx0[m] * sy0[n] + 0.5 * dsx[m] * sy0[n] + 0.5 * sx0[m] * dsy[n] +
                       (1.0 / 3.0) * dsx[m] * dsy[n];
      if (w != 0.0) acc(&f.j[2](bx + m, by + n), cz * w);
    }
  }
}

// The charge of one particle at (xi, yi) onto the nodes.
template <class Shape, class Accumulate>
PIC_HD void deposit_charge(const FieldView& rho, double xi, double yi, double qw_per_area, const Accumulate& acc) {
  const int ix = Shape::first(xi), iy = Shape::first(yi);
  double wx[Shape::support], wy[Shape::support];
  Shape::weights(xi, ix, wx);
  Shape::weights(yi, iy, wy);
  for (int n = 0; n < Shape::support; ++n)
    for (int m = 0; m < Shape::support; ++m) acc(&rho(ix + m, iy + n), qw_per_area * wx[m] * wy[n]);
}

}  // namespace nbody::pic
