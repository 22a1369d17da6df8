// The fields of the GPU path (engine.hpp's FieldState): E, B, J, rho and the PML's memories on
// the device, their guards (periodic images, folds, a block's cuts) and the Maxwell solver's
// half steps with Mur's open boundaries.
#include "pic/cuda/module_globals.cuh"

#include <vector>

#include "cuda/check.hpp"
#include "pic/cuda/engine.hpp"
#include "pic/cuda/fields/maxwell.cuh"
#include "pic/cuda/fields/mur.cuh"
#include "pic/cuda/fields/periodic.cuh"

namespace nbody::pic {
namespace {

using nbody::cuda::ElementwisePolicy;

SolverArgs solver_args(const PicGpu::Impl& m, double dt, bool pml_update = false) {
  const FieldState& fs = m.fields;
  const PicSettings& s = m.s;
  const GridGeometry& g = m.g;
  const CurlCoefficients c = curl_coefficients(s.solver, g.dx, g.dy);
  SolverArgs a{fs.view(kEx), fs.view(kEy), fs.view(kEz), fs.view(kBx), fs.view(kBy), fs.view(kBz),
               fs.view(kJx), fs.view(kJy), fs.view(kJz), {c.alpha_x, c.beta_xy, c.alpha_y, c.beta_yx},
               dt / g.dx, dt / g.dy, dt, g.nx, g.ny, s.field_bc.x == FieldBoundary::periodic,
               s.field_bc.y == FieldBoundary::periodic};
  if (fs.pml.cells > 0) {
    a.psi_by = fs.psi[kPsiBy], a.psi_bz = fs.psi[kPsiBz], a.psi_ey = fs.psi[kPsiEy], a.psi_ez = fs.psi[kPsiEz];
    a.pml = fs.pml;
    a.pml_update = pml_update;
  }
  const bool cut = m.exchange.cut();
  a.free_lo = !fs.open_lo() && (s.field_bc.x == FieldBoundary::periodic || cut);
  a.free_hi = !fs.open_hi() && (s.field_bc.x == FieldBoundary::periodic || cut);
  a.free_ylo = !fs.open_y_lo();
  a.free_yhi = !fs.open_y_hi();
  a.ioff = m.slab ? m.so.i_offset : 0;
  return a;
}

Range2 span(const PicGpu::Impl& m, bool half_x, bool half_y) {
  auto r = [](FieldBoundary b, int n, bool half, int& lo, int& hi) {
    lo = 0;
    hi = b == FieldBoundary::periodic ? n - 1 : (half ? n - 1 : n);
  };
  const PicSettings& s = m.s;
  Range2 out{};
  r(s.field_bc.x, m.g.nx, half_x, out.ilo, out.ihi);
  if (s.field_bc.x == FieldBoundary::open && !m.fields.open_hi()) out.ihi = m.g.nx - 1;  // a cut high side: as periodic
  r(s.field_bc.y, m.g.ny, half_y, out.jlo, out.jhi);
  if (s.field_bc.y == FieldBoundary::open && !m.fields.open_y_hi()) out.jhi = m.g.ny - 1;
  return out;
}

template <class K>
void launch(K kernel, const SolverArgs& a, const Range2& r) {
  if (r.count() == 0) return;
  kernel<<<exact_blocks(std::size_t(r.count())), ElementwisePolicy::kBlock>>>(a, r);
  NBODY_CUDA_CHECK_LAUNCH();
}

}  // namespace

FieldState::~FieldState() {
  for (double* p : f)
    if (p) cudaFree(p);
  for (double* p : psi)
    if (p) cudaFree(p);
  for (void* p : {static_cast<void*>(view_table), static_cast<void*>(rho_table), static_cast<void*>(save_x),
                  static_cast<void*>(save_y)})
    if (p) cudaFree(p);
}

void FieldState::upload(const PicSimulation& from) {
  const GridGeometry& g = m.g;
  for (int c = 0; c < kComponents; ++c) {
    f[c] = m.alloc<double>(g.size());
    NBODY_CUDA_CHECK(cudaMemcpy(f[c], from.fields().data[c].data(), g.size() * sizeof(double), cudaMemcpyHostToDevice));
  }
  pml = from.solver().pml();
  if (m.slab && pml.cells > 0) pml.nx = m.so.global.nx;  // (MaxwellSolver::set_slab)
  if (pml.cells > 0)
    for (int c = 0; c < kPsiCount; ++c) {
      psi[c] = m.alloc<double>(g.size());
      const std::vector<double>& h = from.fields().psi[c];
      if (h.size() == g.size()) {
        NBODY_CUDA_CHECK(cudaMemcpy(psi[c], h.data(), g.size() * sizeof(double), cudaMemcpyHostToDevice));
      } else {
        NBODY_CUDA_CHECK(cudaMemset(psi[c], 0, g.size() * sizeof(double)));
      }
    }
  std::vector<FieldView> table;
  for (int c : {kEx, kEy, kEz, kBx, kBy, kBz, kJx, kJy, kJz}) table.push_back(view(c));
  view_table = m.alloc<FieldView>(table.size());
  NBODY_CUDA_CHECK(cudaMemcpy(view_table, table.data(), table.size() * sizeof(FieldView), cudaMemcpyHostToDevice));
  const FieldView rho = view(kRho);
  rho_table = m.alloc<FieldView>(1);
  NBODY_CUDA_CHECK(cudaMemcpy(rho_table, &rho, sizeof(FieldView), cudaMemcpyHostToDevice));
  save_x = m.alloc<double>(8 * std::size_t(g.ny + 1));
  save_y = m.alloc<double>(8 * std::size_t(g.nx + 1));
}

FieldViews FieldState::particle_views() const {
  FieldViews v;
  for (int c = 0; c < 3; ++c) v.e[c] = view(kEx + c), v.b[c] = view(kBx + c), v.j[c] = view(kJx + c);
  if (m.slab) {
    const int off = m.so.i_offset + m.so.j_offset * m.g.stride();
    for (int c = 0; c < 3; ++c) v.e[c].ioff = v.b[c].ioff = v.j[c].ioff = off;
  }
  return v;
}

bool FieldState::open_lo() const { return m.s.field_bc.x == FieldBoundary::open && !(m.slab && m.so.cut_lo); }
bool FieldState::open_hi() const { return m.s.field_bc.x == FieldBoundary::open && !(m.slab && m.so.cut_hi); }
bool FieldState::open_y_lo() const { return m.s.field_bc.y == FieldBoundary::open && !(m.slab && m.so.cut_y_lo); }
bool FieldState::open_y_hi() const { return m.s.field_bc.y == FieldBoundary::open && !(m.slab && m.so.cut_y_hi); }

void FieldState::fold_y(FieldView* table, int ncomp, bool periodic) const {
  fold_columns<<<exact_blocks(std::size_t(ncomp) * std::size_t(m.g.stride())), ElementwisePolicy::kBlock>>>(
      table, ncomp, m.g.nx, m.g.ny, periodic);
  NBODY_CUDA_CHECK_LAUNCH();
}

void FieldState::fold_x(FieldView* table, int ncomp, bool periodic) const {
  fold_rows<<<exact_blocks(std::size_t(ncomp) * std::size_t(m.g.rows())), ElementwisePolicy::kBlock>>>(
      table, ncomp, m.g.nx, m.g.ny, periodic);
  NBODY_CUDA_CHECK_LAUNCH();
}

void FieldState::fill_guards() {
  const GridGeometry& g = m.g;
  BlockExchange& x = m.exchange;
  // A block's cut x sides: the neighbours' columns; then its cut y sides: the neighbours' rows
  // over every column (the x guards included: the corners from the diagonal neighbour).
  if (x.cut()) x.swap_guards(1, false, view_table, 6, 0, g.nx - kGuard, -kGuard, g.nx, false);
  if (m.s.field_bc.x == FieldBoundary::periodic && !x.cut()) {
    fill_rows<<<exact_blocks(6 * std::size_t(g.rows())), ElementwisePolicy::kBlock>>>(view_table, 6, g.nx, g.ny);
    NBODY_CUDA_CHECK_LAUNCH();
  }
  if (x.cut_y()) x.swap_guards(1, true, view_table, 6, 0, g.ny - kGuard, -kGuard, g.ny, false);
  if (m.s.field_bc.y == FieldBoundary::periodic && !x.cut_y()) {
    fill_columns<<<exact_blocks(6 * std::size_t(g.stride())), ElementwisePolicy::kBlock>>>(view_table, 6, g.nx, g.ny);
    NBODY_CUDA_CHECK_LAUNCH();
  }
}

void FieldState::fold_currents() {
  const GridGeometry& g = m.g;
  FieldView* j = view_table + 6;
  const bool px = m.s.field_bc.x == FieldBoundary::periodic, py = m.s.field_bc.y == FieldBoundary::periodic;
  fold_y(j, 3, py);
  fold_x(j, 3, px);
  if (px) {
    fill_rows<<<exact_blocks(3 * std::size_t(g.rows())), ElementwisePolicy::kBlock>>>(j, 3, g.nx, g.ny);
    NBODY_CUDA_CHECK_LAUNCH();
  }
  if (py) {
    fill_columns<<<exact_blocks(3 * std::size_t(g.stride())), ElementwisePolicy::kBlock>>>(j, 3, g.nx, g.ny);
    NBODY_CUDA_CHECK_LAUNCH();
  }
}

void FieldState::advance_b(double dt, bool pml_update) {
  const SolverArgs a = solver_args(m, dt, pml_update);
  launch(update_bx, a, span(m, false, true));
  launch(update_by, a, span(m, true, false));
  launch(update_bz, a, span(m, true, true));
  fill_guards();
}

void FieldState::advance_e(double dt, double t) {
  const GridGeometry& g = m.g;
  const SolverArgs a = solver_args(m, dt);
  const bool ox_lo = open_lo(), ox_hi = open_hi(), oy_lo = open_y_lo(), oy_hi = open_y_hi();
  const bool oy = oy_lo || oy_hi;
  if (ox_lo || ox_hi) {
    save_x_lines<<<exact_blocks(std::size_t(g.ny + 1)), ElementwisePolicy::kBlock>>>(a, save_x);
    NBODY_CUDA_CHECK_LAUNCH();
  }
  if (oy) {
    save_y_lines<<<exact_blocks(std::size_t(g.nx + 1)), ElementwisePolicy::kBlock>>>(a, save_y);
    NBODY_CUDA_CHECK_LAUNCH();
  }
  Range2 rx = span(m, true, false), ry = span(m, false, true), rz = span(m, false, false);
  rx.jlo += oy_lo, rx.jhi -= oy_hi;
  ry.ilo += ox_lo, ry.ihi -= ox_hi;
  rz.ilo += ox_lo, rz.ihi -= ox_hi, rz.jlo += oy_lo, rz.jhi -= oy_hi;
  launch(update_ex, a, rx);
  launch(update_ey, a, ry);
  launch(update_ez, a, rz);
  if (ox_lo || ox_hi) {
    mur_x<<<exact_blocks(std::size_t(g.ny + 1)), ElementwisePolicy::kBlock>>>(
        a, save_x, (dt - g.dx) / (dt + g.dx), m.s.laser, g.x0, g.y0, m.slab ? m.so.j_offset : 0, g.dx, g.dy, t, dt,
        ox_lo, ox_hi);
    NBODY_CUDA_CHECK_LAUNCH();
  }
  if (oy) {
    mur_y<<<exact_blocks(std::size_t(g.nx + 1)), ElementwisePolicy::kBlock>>>(a, save_y, (dt - g.dy) / (dt + g.dy),
                                                                             oy_lo, oy_hi);
    NBODY_CUDA_CHECK_LAUNCH();
  }
  fill_guards();
}

void FieldState::copy_to(PicSimulation& to) const {
  for (int c = 0; c < kComponents; ++c)
    NBODY_CUDA_CHECK(cudaMemcpy(to.fields().data[c].data(), f[c], m.g.size() * sizeof(double), cudaMemcpyDeviceToHost));
  for (int c = 0; c < kPsiCount; ++c) {
    if (!psi[c]) continue;
    to.fields().psi[c].resize(m.g.size());
    NBODY_CUDA_CHECK(cudaMemcpy(to.fields().psi[c].data(), psi[c], m.g.size() * sizeof(double), cudaMemcpyDeviceToHost));
  }
}

}  // namespace nbody::pic
