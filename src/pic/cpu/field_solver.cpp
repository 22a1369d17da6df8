#include "pic/cpu/field_solver.hpp"

#include "pic/physics/field_stencils.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace nbody::pic {

const char* solver_name(SolverKind k) { return k == SolverKind::ck ? "ck" : "yee"; }

CurlCoefficients curl_coefficients(SolverKind kind, double dx, double dy) {
  CurlCoefficients c;
  if (kind == SolverKind::yee) return c;
  // Cowan et al., PRSTAB 16, 041303 (2013), 2D: delta = the smaller cell; r = (delta/d)^2.
  const double delta = std::min(dx, dy);
  const double rx = (delta / dx) * (delta / dx);
  const double ry = (delta / dy) * (delta / dy);
  c.beta_xy = 0.125 * rx;
  c.beta_yx = 0.125 * ry;
  c.alpha_x = 1.0 - 2.0 * c.beta_xy;
  c.alpha_y = 1.0 - 2.0 * c.beta_yx;
  return c;
}

double max_stable_dt(SolverKind kind, double dx, double dy) {
  if (kind == SolverKind::ck) return std::min(dx, dy);
  return 1.0 / std::sqrt(1.0 / (dx * dx) + 1.0 / (dy * dy));
}

double max_stable_dt_plasma(SolverKind kind, double dx, double dy, double omega_p) {
  const double d = max_stable_dt(kind, dx, dy);
  return 1.0 / std::sqrt(1.0 / (d * d) + 0.25 * omega_p * omega_p);
}

double discrete_omega(SolverKind kind, double dx, double dy, double dt, double kx, double ky) {
  const CurlCoefficients c = curl_coefficients(kind, dx, dy);
  const double sx = std::sin(0.5 * kx * dx) / dx, sy = std::sin(0.5 * ky * dy) / dy;
  const double smooth_x = c.alpha_x + 2 * c.beta_xy * std::cos(ky * dy);
  const double smooth_y = c.alpha_y + 2 * c.beta_yx * std::cos(kx * dx);
  const double s2 = dt * dt * (sx * sx * smooth_x + sy * sy * smooth_y);
  if (s2 > 1.0 + 1e-15) return -1.0;
  return 2.0 / dt * std::asin(std::sqrt(std::min(1.0, s2)));
}

PmlLayer make_pml(const GridGeometry& g, const FieldBoundaries& bc, bool laser_left) {
  PmlLayer p;
  if (bc.x != FieldBoundary::open || bc.pml_cells_x <= 0) return p;
  p.cells = bc.pml_cells_x;
  p.left = !laser_left;
  p.right = true;
  p.nx = g.nx;
  p.sigma_max = 0.8 * 4.0 / g.dx;
  return p;
}

MaxwellSolver::MaxwellSolver(SolverKind kind, const GridGeometry& geom, FieldBoundaries bc, bool laser_left)
    : kind_(kind), g_(geom), bc_(bc), c_(curl_coefficients(kind, geom.dx, geom.dy)), pml_(make_pml(geom, bc, laser_left)) {}

namespace {

// The index range [lo, hi] a component is updated over along one axis: all n points on a periodic
// axis; on an open axis the n+1 nodes, or the n half points.
struct Range {
  int lo, hi;
};
// The n points of a periodic axis or of a block whose high side is a cut (the next point is the
// neighbour's); before an open high edge also the boundary node n.
Range span(bool open_hi, int n, bool half) { return {0, open_hi && !half ? n : n - 1}; }

}  // namespace

void copy_periodic_guards(const FieldView& v, int nx, int ny, bool periodic_x, bool periodic_y) {
  if (periodic_x)
    for (int j = -kGuard; j < ny + kGuard; ++j)
      for (int g = 1; g <= kGuard; ++g) {
        v(-g, j) = v(nx - g, j);
        v(nx - 1 + g, j) = v(g - 1, j);
      }
  if (periodic_y)
    for (int g = 1; g <= kGuard; ++g)
      for (int i = -kGuard; i < nx + kGuard; ++i) {
        v(i, -g) = v(i, ny - g);
        v(i, ny - 1 + g) = v(i, g - 1);
      }
}


void MaxwellSolver::set_slab(SlabSides s) {
  slab_ = std::move(s);
  if (pml_.cells > 0) pml_.nx = slab_.global_nx;
}

void MaxwellSolver::advance_b(Fields& f, double dt, bool pml_update) const {
  const FieldView ex = f.view(kEx), ey = f.view(kEy), ez = f.view(kEz);
  const FieldView bx = f.view(kBx), by = f.view(kBy), bz = f.view(kBz);
  const double cx = dt / g_.dx, cy = dt / g_.dy;
  const bool free_lo = !open_lo(), free_hi = !open_hi();  // neighbour values beyond the side
  const bool free_y_lo = !open_y_lo(), free_y_hi = !open_y_hi();
  const int ioff = slab_.i_offset;
  // The smoothing's transverse neighbours: the guards on a periodic axis or at a cut, images at
  // an open edge (field_stencils.hpp).
  const StencilCoefficients sc{c_.alpha_x, c_.beta_xy, c_.alpha_y, c_.beta_yx};
  const SmoothingEdges se{g_.nx, g_.ny, free_lo, free_hi, free_y_lo, free_y_hi};
  // Bx (i, j+1/2) -= dt d*_y Ez
  {
    const Range ri = span(open_hi(), g_.nx, false), rj = span(open_y_hi(), g_.ny, true);
    for (int j = rj.lo; j <= rj.hi; ++j)
      for (int i = ri.lo; i <= ri.hi; ++i) bx(i, j) -= cy * curl_dy(ez, i, j, bx_transverse(se, i), sc);
  }
  if (pml_.cells > 0)
    for (auto& v : f.psi)
      if (v.size() != g_.size()) v.assign(g_.size(), 0.0);
  double* psi_by = pml_.cells > 0 ? f.psi[kPsiBy].data() : nullptr;
  double* psi_bz = pml_.cells > 0 ? f.psi[kPsiBz].data() : nullptr;
  // By (i+1/2, j) += dt d*_x Ez
  {
    const Range ri = span(open_hi(), g_.nx, true), rj = span(open_y_hi(), g_.ny, false);
    for (int j = rj.lo; j <= rj.hi; ++j) {
      const Transverse t = by_transverse(se, j);
      for (int i = ri.lo; i <= ri.hi; ++i) {
        double d = curl_dx(ez, i, j, t, sc);
        if (psi_by) d = pml_derivative(d, psi_by[by.index(i, j)], pml_.sigma(i + ioff + 0.5), 2 * dt, pml_update);
        by(i, j) += cx * d;
      }
    }
  }
  // Bz (i+1/2, j+1/2) -= dt (d*_x Ey - d*_y Ex)
  {
    const Range ri = span(open_hi(), g_.nx, true), rj = span(open_y_hi(), g_.ny, true);
    for (int j = rj.lo; j <= rj.hi; ++j) {
      const Transverse tx = bz_x_transverse(se, j);
      for (int i = ri.lo; i <= ri.hi; ++i) {
        double d = curl_dx(ey, i, j, tx, sc);
        if (psi_bz) d = pml_derivative(d, psi_bz[bz.index(i, j)], pml_.sigma(i + ioff + 0.5), 2 * dt, pml_update);
        bz(i, j) -= cx * d - cy * curl_dy(ex, i, j, bz_y_transverse(se, i), sc);
      }
    }
  }
  fill_guards(f);
}

void MaxwellSolver::advance_e(Fields& f, double dt, double t, const IncidentField* incident) const {
  const FieldView ex = f.view(kEx), ey = f.view(kEy), ez = f.view(kEz);
  const FieldView bx = f.view(kBx), by = f.view(kBy), bz = f.view(kBz);
  const FieldView jx = f.view(kJx), jy = f.view(kJy), jz = f.view(kJz);
  const double cx = dt / g_.dx, cy = dt / g_.dy;
  const bool ox_lo = open_lo(), ox_hi = open_hi(), oy_lo = open_y_lo(), oy_hi = open_y_hi();
  const int ioff = slab_.i_offset;
  // The boundary values before the update, for Mur's condition.
  const int nx = g_.nx, ny = g_.ny;
  std::vector<double> xl[2][2], xr[2][2], yl[2][2], yr[2][2];  // [component][point 0/1]
  const FieldView xcomp[2] = {ey, ez}, ycomp[2] = {ex, ez};
  if (ox_lo || ox_hi)
    for (int c = 0; c < 2; ++c)
      for (int p = 0; p < 2; ++p) {
        xl[c][p].resize(ny + 1);
        xr[c][p].resize(ny + 1);
        for (int j = 0; j <= ny; ++j) {
          xl[c][p][j] = xcomp[c](p, j);
          xr[c][p][j] = xcomp[c](nx - p, j);
        }
      }
  if (oy_lo || oy_hi)
    for (int c = 0; c < 2; ++c)
      for (int p = 0; p < 2; ++p) {
        yl[c][p].resize(nx + 1);
        yr[c][p].resize(nx + 1);
        for (int i = 0; i <= nx; ++i) {
          yl[c][p][i] = ycomp[c](i, p);
          yr[c][p][i] = ycomp[c](i, ny - p);
        }
      }
  // Ex (i+1/2, j) += dt (d_y Bz - Jx)
  {
    const Range ri = span(ox_hi, nx, true), rj = span(oy_hi, ny, false);
    for (int j = rj.lo + oy_lo; j <= rj.hi - oy_hi; ++j)
      for (int i = ri.lo; i <= ri.hi; ++i) ex(i, j) += cy * (bz(i, j) - bz(i, j - 1)) - dt * jx(i, j);
  }
  if (pml_.cells > 0)
    for (auto& v : f.psi)
      if (v.size() != g_.size()) v.assign(g_.size(), 0.0);
  double* psi_ey = pml_.cells > 0 ? f.psi[kPsiEy].data() : nullptr;
  double* psi_ez = pml_.cells > 0 ? f.psi[kPsiEz].data() : nullptr;
  // Ey (i, j+1/2) += dt (-d_x Bz - Jy)
  {
    const Range ri = span(ox_hi, nx, false), rj = span(oy_hi, ny, true);
    for (int j = rj.lo; j <= rj.hi; ++j)
      for (int i = ri.lo + ox_lo; i <= ri.hi - ox_hi; ++i) {
        double d = bz(i, j) - bz(i - 1, j);
        if (psi_ey) d = pml_derivative(d, psi_ey[ey.index(i, j)], pml_.sigma(i + ioff), dt, true);
        ey(i, j) += -cx * d - dt * jy(i, j);
      }
  }
  // Ez (i, j) += dt (d_x By - d_y Bx - Jz)
  {
    const Range ri = span(ox_hi, nx, false), rj = span(oy_hi, ny, false);
    for (int j = rj.lo + oy_lo; j <= rj.hi - oy_hi; ++j)
      for (int i = ri.lo + ox_lo; i <= ri.hi - ox_hi; ++i) {
        double d = by(i, j) - by(i - 1, j);
        if (psi_ez) d = pml_derivative(d, psi_ez[ez.index(i, j)], pml_.sigma(i + ioff), dt, true);
        ez(i, j) += cx * d - cy * (bx(i, j) - bx(i, j - 1)) - dt * jz(i, j);
      }
  }
  // Mur (1981) first order on the tangential components of an open boundary:
  //   E_0^{n+1} = E_1^n + k (E_1^{n+1} - E_0^n), k = (c dt - d) / (c dt + d),
  // applied to the scattered field E - E_incident at the left boundary when a wave is injected.
  if (ox_lo || ox_hi) {
    const double k = (dt - g_.dx) / (dt + g_.dx);
    for (int c = 0; c < 2; ++c) {
      const int jmax = c == 0 ? ny - 1 : ny;  // Ey lives on half points in y
      for (int j = 0; j <= jmax; ++j) {
        double inc0_old = 0, inc1_old = 0, inc0_new = 0, inc1_new = 0;
        if (incident) {
          const double y = g_.y0 + (j + slab_.j_offset + (c == 0 ? 0.5 : 0.0)) * g_.dy;
          double a, b;
          (*incident)(g_.x0, y, t, a, b);
          inc0_old = c == 0 ? a : b;
          (*incident)(g_.x0 + g_.dx, y, t, a, b);
          inc1_old = c == 0 ? a : b;
          (*incident)(g_.x0, y, t + dt, a, b);
          inc0_new = c == 0 ? a : b;
          (*incident)(g_.x0 + g_.dx, y, t + dt, a, b);
          inc1_new = c == 0 ? a : b;
        }
        const FieldView e = xcomp[c];
        if (ox_lo) e(0, j) = mur_value(e(1, j), xl[c][0][j], xl[c][1][j], k, inc0_new, inc0_old, inc1_new, inc1_old);
        if (ox_hi) e(nx, j) = mur_value(e(nx - 1, j), xr[c][0][j], xr[c][1][j], k, 0, 0, 0, 0);
      }
    }
  }
  if (oy_lo || oy_hi) {
    const double k = (dt - g_.dy) / (dt + g_.dy);
    for (int c = 0; c < 2; ++c) {
      const int imax = c == 0 ? nx - 1 : nx;
      for (int i = 0; i <= imax; ++i) {
        const FieldView e = ycomp[c];
        if (oy_lo) e(i, 0) = mur_value(e(i, 1), yl[c][0][i], yl[c][1][i], k, 0, 0, 0, 0);
        if (oy_hi) e(i, ny) = mur_value(e(i, ny - 1), yr[c][0][i], yr[c][1][i], k, 0, 0, 0, 0);
      }
    }
  }
  fill_guards(f);
}

void MaxwellSolver::fill_guards(Fields& f) const {
  const int nx = g_.nx, ny = g_.ny;
  // x first (exchanged at cuts, else the periodic copies), then y over every column: corners.
  if (slab_.exchange) slab_.exchange(f);
  for (int c = kEx; c <= kBz; ++c) copy_periodic_guards(f.view(c), nx, ny, periodic_copy_x(), false);
  if (slab_.exchange_y) slab_.exchange_y(f);
  for (int c = kEx; c <= kBz; ++c) copy_periodic_guards(f.view(c), nx, ny, false, periodic_copy_y());
}

void MaxwellSolver::fold_sources(Fields& f, int first, int last) const {
  const int nx = g_.nx, ny = g_.ny;
  for (int c = first; c <= last; ++c) {
    const FieldView v = f.view(c);
    // y first over the full x range (guards included), then x: corner deposits reach their image.
    if (bc_.y == FieldBoundary::periodic) {
      for (int i = -kGuard; i < nx + kGuard; ++i) fold_periodic_column(v, i, ny);
    } else {
      // Beyond the open boundary: dropped (the node ny itself is a boundary node and kept).
      for (int i = -kGuard; i < nx + kGuard; ++i) {
        for (int g = 1; g <= kGuard; ++g) v(i, -g) = 0;
        for (int j = ny + 1; j < ny + kGuard; ++j) v(i, j) = 0;
      }
    }
    if (bc_.x == FieldBoundary::periodic) {
      for (int j = -kGuard; j < ny + kGuard; ++j) fold_periodic_row(v, j, nx);
    } else {
      for (int j = -kGuard; j < ny + kGuard; ++j) {
        for (int g = 1; g <= kGuard; ++g) v(-g, j) = 0;
        for (int i = nx + 1; i < nx + kGuard; ++i) v(i, j) = 0;
      }
    }
    // Refresh the guards with the folded values.
    copy_periodic_guards(v, nx, ny, bc_.x == FieldBoundary::periodic, bc_.y == FieldBoundary::periodic);
  }
}

}  // namespace nbody::pic
