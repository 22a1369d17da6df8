#include "pic/domain.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>

#include "nbody/error.hpp"
#include "pic/interpolation.hpp"
#include "pic/particle_step.hpp"

namespace nbody::pic {
namespace {

constexpr int kTagHalo = 7100, kTagFold = 7200, kTagMigrate = 7300;
constexpr int kRecord = 8;  // migrating particle: species, id, x, y, ux, uy, uz, w (8-byte words)

std::uint64_t bits(double v) {
  std::uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}
double from_bits(std::uint64_t u) {
  double v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

// The cell column of a position, computed as advance_particle computes x in cell units.
int cell_column(double x, double x0, double dx) {
  const double inv_dx = 1.0 / dx;
  return int(std::floor((x - x0) * inv_dx));
}

}  // namespace

SlabLayout slab_layout(int nx, bool periodic_x, int size, int rank) {
  SlabLayout l;
  l.rank = rank, l.size = size;
  const comm::Block b = comm::block_of(nx, size, rank);
  l.i0 = int(b.first), l.i1 = int(b.first + b.count);
  if (size > 1) {
    l.left = rank > 0 ? rank - 1 : (periodic_x ? size - 1 : -1);
    l.right = rank < size - 1 ? rank + 1 : (periodic_x ? 0 : -1);
  }
  return l;
}

DomainPic::DomainPic(const PicSimulation& global, comm::Communicator& comm)
    : s_(global.settings()), comm_(&comm), solver_(s_.solver, s_.geom, s_.field_bc, s_.laser.enabled) {
  const GridGeometry& g = s_.geom;
  const bool px = s_.field_bc.x == FieldBoundary::periodic;
  layout_ = slab_layout(g.nx, px, comm.size(), comm.rank());
  const int P = comm.size();
  if (P > 1 && g.nx < kMinSlabColumns * P)
    throw_input_error("pic: grid.nx = " + std::to_string(g.nx) + " is too small for " + std::to_string(P) +
                      " processes: each slab needs at least " + std::to_string(kMinSlabColumns) + " cell columns (nx >= " +
                      std::to_string(kMinSlabColumns * P) + ")");
  lg_ = g;
  lg_.nx = layout_.i1 - layout_.i0;
  lg_.x0 = g.x0 + layout_.i0 * g.dx;  // only rank 0's (the laser's) is used, and there i0 = 0
  fields_ = Fields(lg_);
  const int nxl = lg_.nx;
  // The slab's columns (and the guard columns the global arrays have there).
  auto take = [&](const std::vector<double>& from, std::vector<double>& to) {
    to.assign(lg_.size(), 0.0);
    for (int j = -kGuard; j < g.ny + kGuard; ++j)
      for (int il = -kGuard; il < nxl + kGuard; ++il) {
        const int gi = il + layout_.i0;
        if (gi < -kGuard || gi >= g.nx + kGuard) continue;
        to[std::size_t(j + kGuard) * lg_.stride() + std::size_t(il + kGuard)] =
            from[std::size_t(j + kGuard) * g.stride() + std::size_t(gi + kGuard)];
      }
  };
  for (int c = 0; c < kComponents; ++c) take(global.fields().data[c], fields_.data[c]);
  for (int c = 0; c < kPsiCount; ++c)
    if (!global.fields().psi[c].empty()) take(global.fields().psi[c], fields_.psi[c]);
  solver_ = MaxwellSolver(s_.solver, lg_, s_.field_bc, s_.laser.enabled);
  SlabSides sides;
  sides.cut_lo = layout_.left >= 0;
  sides.cut_hi = layout_.right >= 0;
  sides.i_offset = layout_.i0;
  sides.global_nx = g.nx;
  if (P > 1) sides.exchange = [this](Fields& f) { exchange_field_guards(f); };
  solver_.set_slab(sides);
  // The particles of the slab, with their ids.
  const auto& gids = global.particle_ids();
  for (std::size_t k = 0; k < global.species().size(); ++k) {
    const Species& gs = global.species()[k];
    Species sp = gs;
    sp.resize(0);
    std::vector<std::uint64_t> id;
    const bool have_ids = gids.size() == global.species().size() && gids[k].size() == gs.size();
    for (std::size_t p = 0; p < gs.size(); ++p) {
      if (owner_column(gs.x[p]) != layout_.rank) continue;
      sp.push_back(gs.x[p], gs.y[p], gs.ux[p], gs.uy[p], gs.uz[p], gs.w[p]);
      id.push_back(have_ids ? gids[k][p] : std::uint64_t(p));
    }
    species_.push_back(std::move(sp));
    ids_.push_back(std::move(id));
  }
  classes_ = deposit_classes(s_.shape);
  acc_.assign(std::size_t(classes_) * 3, std::vector<double>(lg_.size(), 0.0));
  step_ = global.step_count();
  t_ = global.time();
  solver_.fill_guards(fields_);
}

int DomainPic::owner_column(double x) const {
  const GridGeometry& g = s_.geom;
  const int c = std::clamp(cell_column(x, g.x0, g.dx), 0, g.nx - 1);
  // block_of: the first nx % P ranks hold one column more.
  const int P = layout_.size, base = g.nx / P, extra = g.nx % P;
  const int split = extra * (base + 1);
  return c < split ? c / (base + 1) : extra + (c - split) / base;
}

std::size_t DomainPic::local_particles(bool mobile_only) const {
  std::size_t n = 0;
  for (const Species& s : species_)
    if (!mobile_only || !s.immobile) n += s.size();
  return n;
}

template <class T>
std::vector<T> slab_shift(comm::Communicator& comm, const SlabLayout& l, const std::vector<T>& out, bool to_right,
                          int tag) {
  const int dest = to_right ? l.right : l.left;
  const int src = to_right ? l.left : l.right;
  std::vector<T> in;
  if (dest < 0 && src < 0) return in;
  const bool first = to_right ? l.rank == 0 : l.rank == l.size - 1;
  const comm::DataType type = comm::data_type_of<T>();
  auto do_send = [&] {
    if (dest < 0) return;
    const std::int64_t n = std::int64_t(out.size());
    comm.send(&n, 1, comm::DataType::i64, dest, tag);
    if (n > 0) comm.send(out.data(), n, type, dest, tag + 1);
  };
  auto do_recv = [&] {
    if (src < 0) return;
    std::int64_t n = 0;
    comm.recv(&n, 1, comm::DataType::i64, src, tag);
    if (n < 0) throw_runtime_error("pic: a slab message of negative length");
    in.resize(std::size_t(n));
    if (n > 0) comm.recv(in.data(), n, type, src, tag + 1);
  };
  if (first) {
    do_send();
    do_recv();
  } else {
    do_recv();
    do_send();
  }
  return in;
}
template std::vector<double> slab_shift(comm::Communicator&, const SlabLayout&, const std::vector<double>&, bool, int);
template std::vector<std::uint64_t> slab_shift(comm::Communicator&, const SlabLayout&,
                                               const std::vector<std::uint64_t>&, bool, int);

// E and B: the slab's first kGuard columns to the left neighbour's right guards, its last
// kGuard columns to the right neighbour's left guards, every row.
void DomainPic::exchange_field_guards(Fields& f) {
  const int nxl = lg_.nx, rows = lg_.rows();
  auto pack = [&](int first_column) {
    std::vector<double> out;
    out.reserve(std::size_t(6 * kGuard * rows));
    for (int c = kEx; c <= kBz; ++c) {
      const FieldView v = f.view(c);
      for (int j = -kGuard; j < lg_.ny + kGuard; ++j)
        for (int i = first_column; i < first_column + kGuard; ++i) out.push_back(v(i, j));
    }
    return out;
  };
  auto unpack = [&](const std::vector<double>& in, int first_column) {
    if (in.empty()) return;
    if (in.size() != std::size_t(6 * kGuard * rows)) throw_runtime_error("pic: a field guard message has the wrong size");
    std::size_t k = 0;
    for (int c = kEx; c <= kBz; ++c) {
      const FieldView v = f.view(c);
      for (int j = -kGuard; j < lg_.ny + kGuard; ++j)
        for (int i = first_column; i < first_column + kGuard; ++i) v(i, j) = in[k++];
    }
  };
  const std::vector<double> from_left = shift(layout_.right >= 0 ? pack(nxl - kGuard) : std::vector<double>{}, true, kTagHalo);
  unpack(from_left, -kGuard);
  const std::vector<double> from_right = shift(layout_.left >= 0 ? pack(0) : std::vector<double>{}, false, kTagHalo + 2);
  unpack(from_right, nxl);
}

template <class Shape>
void DomainPic::push_species(std::size_t k) {
  Species& sp = species_[k];
  std::vector<std::uint64_t>& id = ids_[k];
  const PushParams pp = make_push_params(s_, sp, step_);
  FieldViews views[6];
  for (int r = 0; r < classes_; ++r)
    for (int c = 0; c < 3; ++c) {
      views[r].e[c] = {fields_.data[kEx + c].data(), lg_.stride(), layout_.i0};
      views[r].b[c] = {fields_.data[kBx + c].data(), lg_.stride(), layout_.i0};
      views[r].j[c] = {acc_[std::size_t(r * 3 + c)].data(), lg_.stride(), layout_.i0};
    }
  const HostAccumulate acc;
  std::size_t out = 0;
  const std::size_t n = sp.size();
  for (std::size_t i = 0; i < n; ++i) {
    const int col = cell_column(sp.x[i], pp.x0, pp.dx);
    const int r = ((col % classes_) + classes_) % classes_;
    ParticleRef p{sp.x[i], sp.y[i], sp.ux[i], sp.uy[i], sp.uz[i], sp.w[i]};
    // The thermal boundary's random numbers are keyed by the id: the same on any decomposition.
    if (!advance_particle<Shape>(p, id[i], views[r], pp, acc)) continue;
    sp.x[out] = p.x, sp.y[out] = p.y, sp.ux[out] = p.ux, sp.uy[out] = p.uy, sp.uz[out] = p.uz, sp.w[out] = p.w;
    id[out] = id[i];
    ++out;
  }
  sp.resize(out);
  id.resize(out);
}

void DomainPic::fold_and_sum_currents() {
  const int nxl = lg_.nx, ny = lg_.ny;
  const bool px = s_.field_bc.x == FieldBoundary::periodic, py = s_.field_bc.y == FieldBoundary::periodic;
  const bool single = layout_.size == 1;
  for (auto& a : acc_) {
    const FieldView v{a.data(), lg_.stride()};
    // y as one process (MaxwellSolver::fold_sources): over the full x range, guards included.
    if (py) {
      for (int g = 1; g <= kGuard; ++g)
        for (int i = -kGuard; i < nxl + kGuard; ++i) {
          v(i, ny - g) += v(i, -g);
          v(i, g - 1) += v(i, ny - 1 + g);
        }
    } else {
      for (int i = -kGuard; i < nxl + kGuard; ++i) {
        for (int g = 1; g <= kGuard; ++g) v(i, -g) = 0;
        for (int j = ny + 1; j < ny + kGuard; ++j) v(i, j) = 0;
      }
    }
    // x on the global edges: the periodic images of one process, or dropped beyond open edges.
    if (single && px) {
      for (int j = -kGuard; j < ny + kGuard; ++j)
        for (int g = 1; g <= kGuard; ++g) {
          v(nxl - g, j) += v(-g, j);
          v(g - 1, j) += v(nxl - 1 + g, j);
        }
    } else if (!px) {
      for (int j = -kGuard; j < ny + kGuard; ++j) {
        if (layout_.left < 0)
          for (int g = 1; g <= kGuard; ++g) v(-g, j) = 0;
        if (layout_.right < 0)
          for (int i = nxl + 1; i < nxl + kGuard; ++i) v(i, j) = 0;
      }
    }
  }
  if (!single) {
    // The guard columns of every array to the neighbour that owns them, added there.
    const int rows = lg_.rows();
    auto pack = [&](int first_column) {
      std::vector<double> out;
      out.reserve(acc_.size() * std::size_t(kGuard * rows));
      for (auto& a : acc_) {
        const FieldView v{a.data(), lg_.stride()};
        for (int j = -kGuard; j < ny + kGuard; ++j)
          for (int i = first_column; i < first_column + kGuard; ++i) out.push_back(v(i, j));
      }
      return out;
    };
    auto add = [&](const std::vector<double>& in, int first_column) {
      if (in.empty()) return;
      if (in.size() != acc_.size() * std::size_t(kGuard * rows)) throw_runtime_error("pic: a current guard message has the wrong size");
      std::size_t k = 0;
      for (auto& a : acc_) {
        const FieldView v{a.data(), lg_.stride()};
        for (int j = -kGuard; j < ny + kGuard; ++j)
          for (int i = first_column; i < first_column + kGuard; ++i) v(i, j) += in[k++];
      }
    };
    const std::vector<double> from_left = shift(layout_.right >= 0 ? pack(nxl) : std::vector<double>{}, true, kTagFold);
    const std::vector<double> from_right = shift(layout_.left >= 0 ? pack(-kGuard) : std::vector<double>{}, false, kTagFold + 2);
    add(from_left, 0);
    add(from_right, nxl - kGuard);
  }
  // J = A_0 + A_1 + ... in this order at every point.
  for (int c = 0; c < 3; ++c) {
    std::vector<double>& j = fields_.data[kJx + c];
    j = acc_[std::size_t(c)];
    for (int r = 1; r < classes_; ++r) {
      const std::vector<double>& a = acc_[std::size_t(r * 3 + c)];
      for (std::size_t k = 0; k < j.size(); ++k) j[k] += a[k];
    }
  }
}

void DomainPic::migrate() {
  const GridGeometry& g = s_.geom;
  std::vector<std::uint64_t> to_left, to_right;
  for (std::size_t k = 0; k < species_.size(); ++k) {
    Species& sp = species_[k];
    std::vector<std::uint64_t>& id = ids_[k];
    std::size_t out = 0;
    for (std::size_t i = 0; i < sp.size(); ++i) {
      const int owner = owner_column(sp.x[i]);
      if (owner != layout_.rank) {
        std::vector<std::uint64_t>* dest = owner == layout_.right ? &to_right : owner == layout_.left ? &to_left : nullptr;
        if (!dest)
          throw_runtime_error("pic: a particle of " + sp.name + " moved from rank " + std::to_string(layout_.rank) +
                              " to rank " + std::to_string(owner) + ", beyond its neighbours");
        for (std::uint64_t w : {std::uint64_t(k), id[i], bits(sp.x[i]), bits(sp.y[i]), bits(sp.ux[i]), bits(sp.uy[i]),
                                bits(sp.uz[i]), bits(sp.w[i])})
          dest->push_back(w);
        continue;
      }
      sp.x[out] = sp.x[i], sp.y[out] = sp.y[i], sp.ux[out] = sp.ux[i], sp.uy[out] = sp.uy[i], sp.uz[out] = sp.uz[i],
      sp.w[out] = sp.w[i];
      id[out] = id[i];
      ++out;
    }
    sp.resize(out);
    id.resize(out);
  }
  (void)g;
  std::vector<std::uint64_t> in = shift(to_right, true, kTagMigrate);
  const std::vector<std::uint64_t> in_right = shift(to_left, false, kTagMigrate + 2);
  in.insert(in.end(), in_right.begin(), in_right.end());
  if (in.empty()) return;
  // Per species: the arrivals sorted by id, merged into the (sorted) residents.
  for (std::size_t k = 0; k < species_.size(); ++k) {
    std::vector<std::size_t> arrivals;
    for (std::size_t r = 0; r < in.size() / kRecord; ++r)
      if (in[r * kRecord] == k) arrivals.push_back(r);
    if (arrivals.empty()) continue;
    std::sort(arrivals.begin(), arrivals.end(),
              [&](std::size_t a, std::size_t b) { return in[a * kRecord + 1] < in[b * kRecord + 1]; });
    Species& sp = species_[k];
    std::vector<std::uint64_t>& id = ids_[k];
    Species merged = sp;
    merged.resize(0);
    std::vector<std::uint64_t> mid;
    mid.reserve(id.size() + arrivals.size());
    std::size_t a = 0, b = 0;
    while (a < sp.size() || b < arrivals.size()) {
      if (b == arrivals.size() || (a < sp.size() && id[a] < in[arrivals[b] * kRecord + 1])) {
        merged.push_back(sp.x[a], sp.y[a], sp.ux[a], sp.uy[a], sp.uz[a], sp.w[a]);
        mid.push_back(id[a]);
        ++a;
      } else {
        const std::uint64_t* r = &in[arrivals[b] * kRecord];
        merged.push_back(from_bits(r[2]), from_bits(r[3]), from_bits(r[4]), from_bits(r[5]), from_bits(r[6]),
                         from_bits(r[7]));
        mid.push_back(r[1]);
        ++b;
      }
    }
    sp = std::move(merged);
    id = std::move(mid);
  }
}

void DomainPic::set_state(const Fields& f, const std::vector<Species>& species,
                          std::vector<std::vector<std::uint64_t>> ids, std::int64_t step, double t) {
  if (f.geom.nx != lg_.nx || f.geom.ny != lg_.ny || species.size() != species_.size() || ids.size() != species.size())
    throw_runtime_error("pic: a slab state of another shape");
  for (std::size_t k = 0; k < species.size(); ++k)
    if (ids[k].size() != species[k].size()) throw_runtime_error("pic: a slab state with ids that do not match its particles");
  for (int c = 0; c < kComponents; ++c) fields_.data[c] = f.data[c];
  for (int c = 0; c < kPsiCount; ++c) fields_.psi[c] = f.psi[c];
  species_ = species;
  ids_ = std::move(ids);
  step_ = step;
  t_ = t;
}

void DomainPic::step() {
  using clock = std::chrono::steady_clock;
  const auto secs = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  const auto t0 = clock::now();
  const double comm0 = comm_seconds_;
  for (auto& a : acc_) std::fill(a.begin(), a.end(), 0.0);
  for (std::size_t k = 0; k < species_.size(); ++k) {
    if (species_[k].immobile) continue;
    if (s_.shape == ShapeOrder::tsc) push_species<ShapeTSC>(k);
    else push_species<ShapeCIC>(k);
  }
  const auto t1 = clock::now();
  fold_and_sum_currents();
  if (s_.solve_fields) {
    const std::function<void(double, double, double, double&, double&)> inc =
        [this](double x, double y, double t, double& ey, double& ez) { s_.laser.field(x, y, t, ey, ez); };
    // The laser enters through the left edge: only the rank owning it applies Mur's condition there.
    const bool laser = s_.laser.enabled && layout_.i0 == 0;
    solver_.advance_b(fields_, 0.5 * s_.dt, false);
    solver_.advance_e(fields_, s_.dt, t_, laser ? &inc : nullptr);
    solver_.advance_b(fields_, 0.5 * s_.dt, true);
  }
  const auto t2 = clock::now();
  const double comm_fields = comm_seconds_ - comm0;
  migrate();
  const auto t3 = clock::now();
  const double comm_migrate = comm_seconds_ - comm0 - comm_fields;
  times_.particles += secs(t0, t1);
  times_.fields += std::max(0.0, secs(t1, t2) - comm_fields);
  times_.comm += comm_fields + comm_migrate;
  times_.migration += std::max(0.0, secs(t2, t3) - comm_migrate);
  times_.step += secs(t0, t3);
  ++step_;
  t_ = s_.t0 + double(step_) * s_.dt;
}

double DomainPic::poynting_flux_x(int i) {
  const GridGeometry& g = s_.geom;
  const int owner = owner_column(g.x0 + (i + 0.5) * g.dx);
  double sum = 0;
  if (owner == layout_.rank) {
    const int il = i - layout_.i0;
    const Fields& f = fields_;
    for (int j = 0; j < g.ny; ++j) {
      const double ey = 0.5 * (f.at(kEy, il, j) + f.at(kEy, il + 1, j));
      const double bz = f.at(kBz, il, j);
      const double ez = 0.25 * (f.at(kEz, il, j) + f.at(kEz, il + 1, j) + f.at(kEz, il, j + 1) + f.at(kEz, il + 1, j + 1));
      const double by = 0.5 * (f.at(kBy, il, j) + f.at(kBy, il, j + 1));
      sum += (ey * bz - ez * by) * g.dy;
    }
  }
  if (layout_.size > 1) sum = comm_->broadcast_value(sum, owner);
  return sum;
}

// Every rank's values concatenated in rank order: on every rank (root < 0), or on root only.
template <class T>
std::vector<T> DomainPic::collect(const std::vector<T>& mine, int root) {
  if (root < 0) return comm_->allgatherv(std::span<const T>(mine));
  constexpr int kTag = 7400;
  const comm::DataType type = comm::data_type_of<T>();
  if (layout_.rank != root) {
    const std::int64_t n = std::int64_t(mine.size());
    comm_->send(&n, 1, comm::DataType::i64, root, kTag);
    if (n > 0) comm_->send(mine.data(), n, type, root, kTag + 1);
    return {};
  }
  std::vector<T> all;
  for (int r = 0; r < layout_.size; ++r) {
    if (r == root) {
      all.insert(all.end(), mine.begin(), mine.end());
      continue;
    }
    std::int64_t n = 0;
    comm_->recv(&n, 1, comm::DataType::i64, r, kTag);
    const std::size_t at = all.size();
    all.resize(at + std::size_t(n));
    if (n > 0) comm_->recv(all.data() + at, n, type, r, kTag + 1);
  }
  return all;
}

void DomainPic::gather(PicSimulation& global, int root) {
  const bool here = root < 0 || layout_.rank == root;
  const GridGeometry& g = s_.geom;
  const bool px = s_.field_bc.x == FieldBoundary::periodic;
  const int nxl = lg_.nx, rows = g.rows();
  // The slab's own columns (the last rank on an open axis also owns the boundary node nx).
  const int own = nxl + (layout_.right < 0 && !px ? 1 : 0);
  auto gather_array = [&](const std::vector<double>& local, std::vector<double>& to) {
    std::vector<double> mine;
    mine.reserve(std::size_t(own) * std::size_t(rows));
    for (int il = 0; il < own; ++il)
      for (int j = -kGuard; j < g.ny + kGuard; ++j) mine.push_back(local[std::size_t(j + kGuard) * lg_.stride() + std::size_t(il + kGuard)]);
    const std::vector<double> all = collect(mine, root);
    if (!here) return;
    to.assign(g.size(), 0.0);
    const std::size_t columns = all.size() / std::size_t(rows);
    for (std::size_t gi = 0; gi < columns; ++gi)
      for (int j = -kGuard; j < g.ny + kGuard; ++j)
        to[std::size_t(j + kGuard) * g.stride() + gi + kGuard] = all[gi * std::size_t(rows) + std::size_t(j + kGuard)];
    if (px) copy_periodic_guards(FieldView{to.data(), g.stride()}, g.nx, g.ny, true, false);
  };
  Fields& gf = global.fields();
  for (int c = 0; c < kComponents; ++c) gather_array(fields_.data[c], gf.data[c]);
  for (int c = 0; c < kPsiCount; ++c)
    if (!fields_.psi[c].empty()) gather_array(fields_.psi[c], gf.psi[c]);
  auto& gids = global.particle_ids();
  if (here) gids.assign(species_.size(), {});
  for (std::size_t k = 0; k < species_.size(); ++k) {
    const Species& sp = species_[k];
    std::vector<double> mine;
    mine.reserve(6 * sp.size());
    for (std::size_t p = 0; p < sp.size(); ++p)
      for (double v : {sp.x[p], sp.y[p], sp.ux[p], sp.uy[p], sp.uz[p], sp.w[p]}) mine.push_back(v);
    const std::vector<double> all = collect(mine, root);
    const std::vector<std::uint64_t> ids = collect(ids_[k], root);
    if (!here) continue;
    std::vector<std::size_t> order(ids.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ids[a] < ids[b]; });
    Species& gs = global.species()[k];
    gs.resize(0);
    for (std::size_t q : order) {
      const double* r = &all[6 * q];
      gs.push_back(r[0], r[1], r[2], r[3], r[4], r[5]);
      gids[k].push_back(ids[q]);
    }
  }
  if (here) global.set_time(t_, step_);
}

}  // namespace nbody::pic
