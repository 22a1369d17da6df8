#include "pic/cpu/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "core/parallel.hpp"
#include "nbody/error.hpp"
#include "pic/physics/interpolation.hpp"
#include "pic/physics/particle_step.hpp"
#include "pic/physics/random.hpp"

namespace nbody::pic {

PicSimulation::PicSimulation(const PicSettings& s)
    : s_(s), fields_(s.geom), solver_(s.solver, s.geom, s.field_bc, s.laser.enabled), t_(s.t0) {
  if (s.geom.nx < 2 || s.geom.ny < 1) throw_input_error("pic grid: at least 2 x 1 cells are needed");
  if (!(s.dt > 0)) throw_input_error("pic dt: must be > 0");
  const double limit = max_stable_dt(s.solver, s.geom.dx, s.geom.dy);
  if (s.solve_fields && s.dt > limit * (1 + 1e-12))
    throw_input_error("pic dt: " + std::to_string(s.dt) + " exceeds the " + solver_name(s.solver) +
                      " stability limit " + std::to_string(limit) + " for this grid");
}

int PicSimulation::add_species(Species sp) {
  // (ids for the particles it brings: one list per species, even when the earlier ones are not
  // known, so that has_particle_ids() stays false rather than reading the wrong list)
  std::vector<std::uint64_t> id(sp.size());
  std::iota(id.begin(), id.end(), std::uint64_t(0));
  ids_.resize(species_.size());
  ids_.push_back(std::move(id));
  species_.push_back(std::move(sp));
  return int(species_.size()) - 1;
}

bool PicSimulation::has_particle_ids() const {
  if (ids_.size() != species_.size()) return false;
  for (std::size_t k = 0; k < ids_.size(); ++k)
    if (ids_[k].size() != species_[k].size()) return false;
  return true;
}

void PicSimulation::set_time(double t, std::int64_t step) {
  if (!ids_handed_over_) ids_.clear();
  ids_handed_over_ = false;
  t_ = t, step_ = step;
}

std::uint64_t count_load(const GridGeometry& g, const LoadSpec& spec, const CellWindow* window) {
  const int i0 = window ? std::max(0, window->i0) : 0, i1 = window ? std::min(g.nx, window->i1) : g.nx;
  const int j0 = window ? std::max(0, window->j0) : 0, j1 = window ? std::min(g.ny, window->j1) : g.ny;
  const std::uint64_t ppc = std::uint64_t(spec.ppc_x) * std::uint64_t(spec.ppc_y);
  std::uint64_t cells = 0;
#pragma omp parallel for reduction(+ : cells) schedule(static) if (parallel_elements(std::int64_t(i1 - i0) * (j1 - j0)))
  for (int j = j0; j < j1; ++j)
    for (int i = i0; i < i1; ++i) cells += load_fills_cell(g, spec, i, j) ? 1 : 0;
  return cells * ppc;
}

void PicSimulation::load(int index, const LoadSpec& spec, const CellWindow* window) {
  Species& sp = species_.at(std::size_t(index));
  const GridGeometry& g = s_.geom;
  const int ppc = spec.ppc_x * spec.ppc_y;
  if (ppc < 1) throw_input_error("species " + sp.name + ": particles per cell must be >= 1");
  const CounterRng rng(spec.seed, std::uint64_t(index) + 1);
  if (ids_.size() < species_.size()) ids_.resize(species_.size());
  std::vector<std::uint64_t>* const ids = &ids_[std::size_t(index)];
  auto loads = [&](int i, int j) { return load_fills_cell(g, spec, i, j); };
  auto kept = [&](int i, int j) {
    return !window || (i >= window->i0 && i < window->i1 && j >= window->j0 && j < window->j1);
  };
  // Per row, the particles of the whole load before it (its ids start there) and those kept here
  // before it (where its particles go in the arrays), counted over the cell centres first: the
  // arrays are sized once, and every row fills its own part (on several threads: a particle's
  // values are a function of its cell alone, so the plasma is the same on any number of them).
  std::vector<std::uint64_t> loaded(std::size_t(g.ny) + 1, 0);
  std::vector<std::size_t> at(std::size_t(g.ny) + 1, 0);
  for (int j = 0; j < g.ny; ++j) {
    std::uint64_t row = 0;
    std::size_t row_kept = 0;
    for (int i = 0; i < g.nx; ++i) {
      if (!loads(i, j)) continue;
      row += std::uint64_t(ppc);
      if (kept(i, j)) row_kept += std::size_t(ppc);
    }
    loaded[std::size_t(j) + 1] = loaded[std::size_t(j)] + row;
    at[std::size_t(j) + 1] = at[std::size_t(j)] + row_kept;
  }
  const std::size_t base = sp.size(), id_base = ids->size(), total = at[std::size_t(g.ny)];
  sp.resize(base + total);
  ids->resize(id_base + total);
  const auto fill_row = [&](int j) {
    std::uint64_t next = loaded[std::size_t(j)];
    std::size_t to = at[std::size_t(j)];
    for (int i = 0; i < g.nx; ++i) {
      if (!loads(i, j)) continue;
      const std::uint64_t first = next;  // particles of the whole load before this cell
      next += std::uint64_t(ppc);
      if (!kept(i, j)) continue;
      for (int q = 0; q < ppc; ++q) (*ids)[id_base + to + std::size_t(q)] = first + std::uint64_t(q);
      const std::uint64_t cell = std::uint64_t(j) * std::uint64_t(g.nx) + std::uint64_t(i);
      for (int b = 0; b < spec.ppc_y; ++b)
        for (int a = 0; a < spec.ppc_x; ++a) {
          const std::uint64_t k = cell * std::uint64_t(ppc) + std::uint64_t(b * spec.ppc_x + a);
          double fx, fy;
          if (spec.regular) {
            fx = (a + 0.5) / spec.ppc_x;
            fy = (b + 0.5) / spec.ppc_y;
          } else {
            fx = rng.uniform(8 * k);
            fy = rng.uniform(8 * k + 1);
          }
          const double x = g.x0 + (i + fx) * g.dx, y = g.y0 + (j + fy) * g.dy;
          const double n = spec.profile(x, y);
          double u[3];
          for (int c = 0; c < 3; ++c)
            u[c] = spec.u_drift[c] + (spec.u_thermal[c] > 0 ? spec.u_thermal[c] * rng.normal(4 * k + 1 + c) : 0.0);
          const std::size_t p = base + to++;
          sp.x[p] = x, sp.y[p] = y, sp.ux[p] = u[0], sp.uy[p] = u[1], sp.uz[p] = u[2], sp.w[p] = n * g.dx * g.dy / ppc;
        }
    }
  };
#pragma omp parallel for schedule(dynamic, 1) if (parallel_elements(std::int64_t(total)))
  for (int j = 0; j < g.ny; ++j) fill_row(j);
}

PushParams PicSimulation::push_params(const Species& sp) const { return make_push_params(s_, sp, step_); }

PushParams make_push_params(const PicSettings& s_, const Species& sp, std::int64_t step_) {
  const GridGeometry& g = s_.geom;
  PushParams p;
  p.x0 = g.x0, p.y0 = g.y0, p.dx = g.dx, p.dy = g.dy, p.lx = g.lx(), p.ly = g.ly();
  p.dt = s_.dt;
  p.alpha = 0.5 * sp.charge / sp.mass * s_.dt;
  p.charge = sp.charge;
  p.thermal_u = sp.thermal_u;
  for (int k = 0; k < 4; ++k) p.side[k] = sp.bc.side[k];
  p.pusher = s_.pusher;
  p.external_e = s_.external_e;
  p.external_b = s_.external_b;
  p.deposit = s_.deposit;
  p.rng = CounterRng(s_.seed ^ 0x5bd1e995ULL, std::uint64_t(step_));
  return p;
}

FieldViews field_views(Fields& f) {
  FieldViews v;
  for (int c = 0; c < 3; ++c) {
    v.e[c] = f.view(kEx + c);
    v.b[c] = f.view(kBx + c);
    v.j[c] = f.view(kJx + c);
  }
  return v;
}

namespace {

// The absorbed particles leave the arrays, the others keep their order; `ids` (null when not
// known) is compacted alike.
template <class Shape>
void push_loop(Species& sp, std::vector<std::uint64_t>* ids, const PushParams& pp, const FieldViews& v) {
  const HostAccumulate acc;
  std::size_t out = 0;
  const std::size_t n = sp.size();
  for (std::size_t i = 0; i < n; ++i) {
    ParticleRef p{sp.x[i], sp.y[i], sp.ux[i], sp.uy[i], sp.uz[i], sp.w[i]};
    if (!advance_particle<Shape>(p, i, v, pp, acc)) continue;
    sp.x[out] = p.x, sp.y[out] = p.y, sp.ux[out] = p.ux, sp.uy[out] = p.uy, sp.uz[out] = p.uz, sp.w[out] = p.w;
    if (ids) (*ids)[out] = (*ids)[i];
    ++out;
  }
  sp.resize(out);
  if (ids) ids->resize(out);
}

}  // namespace

void PicSimulation::push_species(int index) {
  Species& sp = species_[std::size_t(index)];
  if (sp.immobile) return;
  const PushParams pp = push_params(sp);
  const FieldViews v = field_views(fields_);
  std::vector<std::uint64_t>* ids = ids_.empty() ? nullptr : &ids_[std::size_t(index)];
  if (s_.shape == ShapeOrder::tsc) push_loop<ShapeTSC>(sp, ids, pp, v);
  else push_loop<ShapeCIC>(sp, ids, pp, v);
}

void PicSimulation::solve_fields() {
  const std::function<void(double, double, double, double&, double&)> inc =
      [this](double x, double y, double t, double& ey, double& ez) { s_.laser.field(x, y, t, ey, ez); };
  solver_.fold_sources(fields_, kJx, kJz);
  solver_.advance_b(fields_, 0.5 * s_.dt, false);
  solver_.advance_e(fields_, s_.dt, t_, s_.laser.enabled ? &inc : nullptr);
  solver_.advance_b(fields_, 0.5 * s_.dt, true);
}

void PicSimulation::step() {
  // The ids go through the compaction with their particles when every species has them; a list
  // that no longer matches its species (particles added or removed by hand) cannot be mended.
  if (!has_particle_ids()) ids_.clear();
  ids_handed_over_ = false;
  for (int c = kJx; c <= kJz; ++c) std::fill(fields_.data[c].begin(), fields_.data[c].end(), 0.0);
  for (int k = 0; k < int(species_.size()); ++k) push_species(k);
  if (s_.solve_fields) solve_fields();
  ++step_;
  t_ = s_.t0 + double(step_) * s_.dt;
}

void PicSimulation::compute_rho(int only) {
  auto& rho = fields_.data[kRho];
  std::fill(rho.begin(), rho.end(), 0.0);
  const GridGeometry& g = s_.geom;
  const FieldView r = fields_.view(kRho);
  const HostAccumulate acc;
  for (int k = 0; k < int(species_.size()); ++k) {
    if (only >= 0 && k != only) continue;
    const Species& sp = species_[std::size_t(k)];
    for (std::size_t p = 0; p < sp.size(); ++p) {
      const double xi = (sp.x[p] - g.x0) / g.dx, yi = (sp.y[p] - g.y0) / g.dy;
      const double q = sp.charge * sp.w[p] / (g.dx * g.dy);
      if (s_.shape == ShapeOrder::tsc) deposit_charge<ShapeTSC>(r, xi, yi, q, acc);
      else deposit_charge<ShapeCIC>(r, xi, yi, q, acc);
    }
  }
  solver_.fold_sources(fields_, kRho, kRho);
}

namespace {
// The nodes where Gauss's law is checked: all on a periodic axis; on an open axis those farther
// than the shape's reach (2 cells) from the boundary, because the boundary nodes are set by Mur's
// condition and a particle absorbed there takes its charge from nodes up to 1.5 cells inside.
void node_range(FieldBoundary b, int n, int& lo, int& hi) {
  lo = b == FieldBoundary::periodic ? 0 : 3;
  hi = b == FieldBoundary::periodic ? n - 1 : n - 3;
}
}  // namespace

std::vector<double> PicSimulation::gauss_residual_field() const {
  const GridGeometry& g = s_.geom;
  std::vector<double> out(g.size(), 0.0);
  int ilo, ihi, jlo, jhi;
  node_range(s_.field_bc.x, g.nx, ilo, ihi);
  node_range(s_.field_bc.y, g.ny, jlo, jhi);
  for (int j = jlo; j <= jhi; ++j)
    for (int i = ilo; i <= ihi; ++i) {
      const double div = (fields_.at(kEx, i, j) - fields_.at(kEx, i - 1, j)) / g.dx +
                         (fields_.at(kEy, i, j) - fields_.at(kEy, i, j - 1)) / g.dy;
      out[std::size_t(j + kGuard) * g.stride() + std::size_t(i + kGuard)] = div - fields_.at(kRho, i, j);
    }
  return out;
}

double PicSimulation::gauss_residual_max() const {
  double m = 0;
  for (double r : gauss_residual_field()) m = std::max(m, std::fabs(r));
  return m;
}

double PicSimulation::rho_abs_max() const {
  const GridGeometry& g = s_.geom;
  double m = 0;
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) m = std::max(m, std::fabs(fields_.at(kRho, i, j)));
  return m;
}

EnergyReport PicSimulation::energies() const {
  EnergyReport r;
  const GridGeometry& g = s_.geom;
  const int nxe = s_.field_bc.x == FieldBoundary::periodic ? g.nx : g.nx + 1;
  const int nye = s_.field_bc.y == FieldBoundary::periodic ? g.ny : g.ny + 1;
  double e2 = 0, b2 = 0;
  for (int j = 0; j < nye; ++j)
    for (int i = 0; i < nxe; ++i) {
      for (int c = kEx; c <= kEz; ++c) e2 += fields_.at(c, i, j) * fields_.at(c, i, j);
      for (int c = kBx; c <= kBz; ++c) b2 += fields_.at(c, i, j) * fields_.at(c, i, j);
    }
  r.e_field = 0.5 * e2 * g.dx * g.dy;
  r.b_field = 0.5 * b2 * g.dx * g.dy;
  r.field = r.e_field + r.b_field;
  r.total = r.field;
  for (const Species& sp : species_) {
    double k = 0;
    for (std::size_t p = 0; p < sp.size(); ++p) {
      const double u2 = sp.ux[p] * sp.ux[p] + sp.uy[p] * sp.uy[p] + sp.uz[p] * sp.uz[p];
      k += sp.w[p] * u2 / (std::sqrt(1.0 + u2) + 1.0);  // gamma - 1 without cancellation
    }
    k *= sp.mass;
    r.kinetic.push_back(k);
    r.total += k;
  }
  return r;
}

double PicSimulation::poynting_flux_x(int i) const {
  const GridGeometry& g = s_.geom;
  double sum = 0;
  for (int j = 0; j < g.ny; ++j) {
    // At (i+1/2, j+1/2): Ey from its nodes i, i+1; Bz there; Ez and By averaged onto the point.
    const double ey = 0.5 * (fields_.at(kEy, i, j) + fields_.at(kEy, i + 1, j));
    const double bz = fields_.at(kBz, i, j);
    const double ez = 0.25 * (fields_.at(kEz, i, j) + fields_.at(kEz, i + 1, j) + fields_.at(kEz, i, j + 1) +
                              fields_.at(kEz, i + 1, j + 1));
    const double by = 0.5 * (fields_.at(kBy, i, j) + fields_.at(kBy, i, j + 1));
    sum += (ey * bz - ez * by) * g.dy;
  }
  return sum;
}

}  // namespace nbody::pic
