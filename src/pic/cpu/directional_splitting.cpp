#include "pic/cpu/directional_splitting.hpp"

#include <algorithm>
#include <cmath>

#include "nbody/error.hpp"

namespace nbody::pic {

DirectionalSplitting::DirectionalSplitting(int nx, int ny, double dx, double dy)
    : nx_(nx), ny_(ny), dx_(dx), dy_(dy) {
  if (dx > dy) throw_input_error("directional splitting: dx must not exceed dy (c dt = dx <= dy)");
  for (auto& v : f_) v.assign(std::size_t(nx) * std::size_t(ny), 0.0);
}

void DirectionalSplitting::shift_x() {
  std::vector<double> ey(f_[Ey].size()), bz(ey.size()), ez(ey.size()), by(ey.size());
  for (int j = 0; j < ny_; ++j)
    for (int i = 0; i < nx_; ++i) {
      const int l = (i + nx_ - 1) % nx_, r = (i + 1) % nx_;
      // dEy/dt = -dBz/dx, dBz/dt = -dEy/dx: Ey + Bz moves to +x, Ey - Bz to -x.
      const double fp = at(Ey, l, j) + at(Bz, l, j), fm = at(Ey, r, j) - at(Bz, r, j);
      // dEz/dt = dBy/dx, dBy/dt = dEz/dx: Ez - By moves to +x, Ez + By to -x.
      const double gp = at(Ez, l, j) - at(By, l, j), gm = at(Ez, r, j) + at(By, r, j);
      const std::size_t k = std::size_t(j) * nx_ + std::size_t(i);
      ey[k] = 0.5 * (fp + fm), bz[k] = 0.5 * (fp - fm);
      ez[k] = 0.5 * (gp + gm), by[k] = 0.5 * (gm - gp);
    }
  f_[Ey].swap(ey), f_[Bz].swap(bz), f_[Ez].swap(ez), f_[By].swap(by);
}

void DirectionalSplitting::lax_wendroff_y() {
  const double nu = dx_ / dy_;
  auto lw = [&](double hm, double h0, double hp, double dir) {
    // A characteristic moving at dir * c along y.
    return h0 - 0.5 * dir * nu * (hp - hm) + 0.5 * nu * nu * (hp - 2 * h0 + hm);
  };
  std::vector<double> ex(f_[Ex].size()), bz(ex.size()), ez(ex.size()), bx(ex.size());
  for (int j = 0; j < ny_; ++j) {
    const int d = (j + ny_ - 1) % ny_, u = (j + 1) % ny_;
    for (int i = 0; i < nx_; ++i) {
      // dEx/dt = dBz/dy, dBz/dt = dEx/dy: Ex - Bz moves to +y, Ex + Bz to -y.
      const double pm = lw(at(Ex, i, d) - at(Bz, i, d), at(Ex, i, j) - at(Bz, i, j), at(Ex, i, u) - at(Bz, i, u), 1);
      const double pp = lw(at(Ex, i, d) + at(Bz, i, d), at(Ex, i, j) + at(Bz, i, j), at(Ex, i, u) + at(Bz, i, u), -1);
      // dEz/dt = -dBx/dy, dBx/dt = -dEz/dy: Ez + Bx moves to +y, Ez - Bx to -y.
      const double qp = lw(at(Ez, i, d) + at(Bx, i, d), at(Ez, i, j) + at(Bx, i, j), at(Ez, i, u) + at(Bx, i, u), 1);
      const double qm = lw(at(Ez, i, d) - at(Bx, i, d), at(Ez, i, j) - at(Bx, i, j), at(Ez, i, u) - at(Bx, i, u), -1);
      const std::size_t k = std::size_t(j) * nx_ + std::size_t(i);
      ex[k] = 0.5 * (pm + pp), bz[k] = 0.5 * (pp - pm);
      ez[k] = 0.5 * (qp + qm), bx[k] = 0.5 * (qp - qm);
    }
  }
  f_[Ex].swap(ex), f_[Bz].swap(bz), f_[Ez].swap(ez), f_[Bx].swap(bx);
}

void DirectionalSplitting::step() {
  shift_x();
  lax_wendroff_y();
}

double DirectionalSplitting::energy() const {
  double e = 0;
  for (const auto& v : f_)
    for (double x : v) e += x * x;
  return 0.5 * e * dx_ * dy_;
}

double DirectionalSplitting::divergence_max() const {
  double m = 0;
  for (int j = 0; j < ny_; ++j)
    for (int i = 0; i < nx_; ++i) {
      const double d = (at(Ex, (i + 1) % nx_, j) - at(Ex, (i + nx_ - 1) % nx_, j)) / (2 * dx_) +
                       (at(Ey, i, (j + 1) % ny_) - at(Ey, i, (j + ny_ - 1) % ny_)) / (2 * dy_);
      m = std::max(m, std::fabs(d));
    }
  return m;
}

std::vector<std::complex<double>> DirectionalSplitting::amplification(double dx, double dy, double kx, double ky) {
  using C = std::complex<double>;
  const C I(0, 1);
  const double tx = kx * dx, ty = ky * dy, nu = dx / dy;
  // Shift by one cell to +x multiplies a mode by exp(-i kx dx).
  const C sp = std::exp(-I * tx), sm = std::exp(I * tx);
  // Lax-Wendroff factor of a characteristic moving to +y (dir = 1) or -y (dir = -1).
  auto g = [&](double dir) { return 1.0 - I * dir * nu * std::sin(ty) - nu * nu * (1.0 - std::cos(ty)); };
  const C gp = g(1), gm = g(-1);
  std::vector<C> ax(36, 0.0), ay(36, 0.0), m(36, 0.0);
  auto A = [](std::vector<C>& a, int r, int c) -> C& { return a[std::size_t(r) * 6 + std::size_t(c)]; };
  for (int k = 0; k < 6; ++k) A(ax, k, k) = A(ay, k, k) = 1.0;
  // A_x: Ey' = (sp (Ey + Bz) + sm (Ey - Bz)) / 2, Bz' = (sp (Ey + Bz) - sm (Ey - Bz)) / 2, ...
  A(ax, Ey, Ey) = 0.5 * (sp + sm), A(ax, Ey, Bz) = 0.5 * (sp - sm);
  A(ax, Bz, Ey) = 0.5 * (sp - sm), A(ax, Bz, Bz) = 0.5 * (sp + sm);
  A(ax, Ez, Ez) = 0.5 * (sp + sm), A(ax, Ez, By) = 0.5 * (sm - sp);
  A(ax, By, Ez) = 0.5 * (sm - sp), A(ax, By, By) = 0.5 * (sp + sm);
  // A_y: Ex - Bz with gp, Ex + Bz with gm; Ez + Bx with gp, Ez - Bx with gm.
  A(ay, Ex, Ex) = 0.5 * (gp + gm), A(ay, Ex, Bz) = 0.5 * (gm - gp);
  A(ay, Bz, Ex) = 0.5 * (gm - gp), A(ay, Bz, Bz) = 0.5 * (gp + gm);
  A(ay, Ez, Ez) = 0.5 * (gp + gm), A(ay, Ez, Bx) = 0.5 * (gp - gm);
  A(ay, Bx, Ez) = 0.5 * (gp - gm), A(ay, Bx, Bx) = 0.5 * (gp + gm);
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 6; ++c)
      for (int k = 0; k < 6; ++k) A(m, r, c) += A(ay, r, k) * A(ax, k, c);
  return m;
}

namespace {
// The roots of the characteristic polynomial of a 3 x 3 complex matrix (Durand-Kerner).
std::vector<std::complex<double>> eig3(const std::complex<double> a[3][3]) {
  using C = std::complex<double>;
  const C tr = a[0][0] + a[1][1] + a[2][2];
  const C minors = a[0][0] * a[1][1] - a[0][1] * a[1][0] + a[0][0] * a[2][2] - a[0][2] * a[2][0] +
                   a[1][1] * a[2][2] - a[1][2] * a[2][1];
  const C det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  auto p = [&](C z) { return ((z - tr) * z + minors) * z - det; };
  C r[3] = {C(0.4, 0.9), C(0.4, 0.9) * C(0.4, 0.9), C(0.4, 0.9) * C(0.4, 0.9) * C(0.4, 0.9)};
  for (int it = 0; it < 500; ++it)
    for (int k = 0; k < 3; ++k) {
      C d = 1.0;
      for (int l = 0; l < 3; ++l)
        if (l != k) d *= r[k] - r[l];
      r[k] -= p(r[k]) / d;
    }
  return {r[0], r[1], r[2]};
}
}  // namespace

std::vector<std::complex<double>> DirectionalSplitting::eigenvalues(double dx, double dy, double kx, double ky) {
  const auto m = amplification(dx, dy, kx, ky);
  std::vector<std::complex<double>> out;
  const int te[3] = {Ex, Ey, Bz}, tm[3] = {Ez, Bx, By};
  for (const int* b : {te, tm}) {
    std::complex<double> a[3][3];
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) a[r][c] = m[std::size_t(b[r]) * 6 + std::size_t(b[c])];
    for (auto z : eig3(a)) out.push_back(z);
  }
  return out;
}

}  // namespace nbody::pic
