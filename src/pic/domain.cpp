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

constexpr int kTagHalo = 7100, kTagFold = 7200, kTagMigrate = 7300, kTagBalance = 7700;
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

// A vector to `dest`: its length (tag), then its values (tag + 1).
template <class T>
void send_sized(comm::Communicator& comm, const std::vector<T>& v, int dest, int tag) {
  const std::int64_t n = std::int64_t(v.size());
  comm.send(&n, 1, comm::DataType::i64, dest, tag);
  if (n > 0) comm.send(v.data(), n, comm::data_type_of<T>(), dest, tag + 1);
}
// What send_sized sent from `src`, appended to `to`.
template <class T>
void recv_append(comm::Communicator& comm, std::vector<T>& to, int src, int tag) {
  std::int64_t n = 0;
  comm.recv(&n, 1, comm::DataType::i64, src, tag);
  if (n < 0) throw_runtime_error("pic: a slab message of negative length");
  const std::size_t at = to.size();
  to.resize(at + std::size_t(n));
  if (n > 0) comm.recv(to.data() + at, n, comm::data_type_of<T>(), src, tag + 1);
}

// Particle p of species k as a record (kRecord words), appended to `out`.
void append_record(std::vector<std::uint64_t>& out, std::size_t k, std::uint64_t id, const Species& sp, std::size_t p) {
  for (std::uint64_t w : {std::uint64_t(k), id, bits(sp.x[p]), bits(sp.y[p]), bits(sp.ux[p]), bits(sp.uy[p]),
                          bits(sp.uz[p]), bits(sp.w[p])})
    out.push_back(w);
}

}  // namespace

SlabLayout slab_layout(int nx, bool periodic_x, int size, int rank) {
  std::vector<int> starts(std::size_t(size) + 1);
  for (int r = 0; r < size; ++r) starts[std::size_t(r)] = int(comm::block_of(nx, size, r).first);
  starts[std::size_t(size)] = nx;
  return slab_layout(starts, periodic_x, rank);
}

SlabLayout slab_layout(const std::vector<int>& starts, bool periodic_x, int rank) {
  const int size = int(starts.size()) - 1;
  if (size < 1 || rank < 0 || rank >= size || starts.front() != 0)
    throw_runtime_error("pic: a slab layout needs 0 first and one start per rank");
  for (int r = 0; r < size; ++r)
    if (starts[std::size_t(r + 1)] <= starts[std::size_t(r)]) throw_runtime_error("pic: a slab layout with an empty slab");
  SlabLayout l;
  l.rank = rank, l.size = size;
  l.starts = starts;
  l.i0 = starts[std::size_t(rank)], l.i1 = starts[std::size_t(rank) + 1];
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
  configure_solver();
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

void DomainPic::configure_solver() {
  solver_ = MaxwellSolver(s_.solver, lg_, s_.field_bc, s_.laser.enabled);
  SlabSides sides;
  sides.cut_lo = layout_.left >= 0;
  sides.cut_hi = layout_.right >= 0;
  sides.i_offset = layout_.i0;
  sides.global_nx = s_.geom.nx;
  if (layout_.size > 1) sides.exchange = [this](Fields& f) { exchange_field_guards(f); };
  solver_.set_slab(sides);
}

SlabOwner DomainPic::owner(const std::vector<int>& starts) const {
  const GridGeometry& g = s_.geom;
  return SlabOwner{g.x0, g.dx, g.nx, int(starts.size()) - 1, starts.data()};
}

int DomainPic::owner_column(double x) const { return owner(layout_.starts)(x); }

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
  auto do_send = [&] {
    if (dest >= 0) send_sized(comm, out, dest, tag);
  };
  auto do_recv = [&] {
    if (src >= 0) recv_append(comm, in, src, tag);
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
        append_record(*dest, k, id[i], sp, i);
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
  for (std::size_t k = 0; k < species_.size(); ++k) merge_by_id(k, in);
}

// The records of species k among `in`, sorted by id, merged into its (id-sorted) particles.
void DomainPic::merge_by_id(std::size_t k, const std::vector<std::uint64_t>& in) {
  if (in.size() % kRecord != 0) throw_runtime_error("pic: a particle message of a broken length");
  {
    std::vector<std::size_t> arrivals;
    for (std::size_t r = 0; r < in.size() / kRecord; ++r)
      if (in[r * kRecord] == k) arrivals.push_back(r);
    if (arrivals.empty()) return;
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

std::vector<double> DomainPic::column_costs(double cell_cost) const {
  const GridGeometry& g = s_.geom;
  std::vector<double> cost(std::size_t(lg_.nx), cell_cost * double(g.ny));
  const SlabOwner own = owner(layout_.starts);
  for (const Species& sp : species_) {
    if (sp.immobile) continue;
    for (std::size_t p = 0; p < sp.size(); ++p)
      cost[std::size_t(std::clamp(own.column(sp.x[p]), layout_.i0, layout_.i1 - 1) - layout_.i0)] += 1.0;
  }
  return cost;
}

std::vector<int> DomainPic::plan_balance(const std::vector<double>& my_costs, const BalanceSettings& b) {
  if (layout_.size < 2) return {};
  if (my_costs.size() != std::size_t(lg_.nx)) throw_runtime_error("pic: column costs of another slab width");
  // (the same numbers on every rank, so the same decision)
  const std::vector<double> all = comm_->allgatherv(std::span<const double>(my_costs));
  if (all.size() != std::size_t(s_.geom.nx)) throw_runtime_error("pic: the slabs' column costs do not cover the grid");
  const double now = slab_imbalance(all, layout_.starts);
  if (!(now > 1.0 + b.threshold)) return {};
  std::vector<int> starts = balanced_starts(all, layout_.size, kMinSlabColumns);
  if (starts == layout_.starts || !(slab_imbalance(all, starts) < now)) return {};
  return starts;
}

bool DomainPic::balance(const BalanceSettings& b) {
  const std::vector<int> starts = plan_balance(column_costs(b.cell_cost), b);
  if (starts.empty()) return false;
  redistribute(starts);
  return true;
}

void DomainPic::redistribute(const std::vector<int>& starts) {
  const GridGeometry& g = s_.geom;
  const int P = layout_.size, me = layout_.rank;
  const bool px = s_.field_bc.x == FieldBoundary::periodic;
  if (int(starts.size()) != P + 1 || starts.back() != g.nx) throw_runtime_error("pic: new slab starts of another grid");
  for (int r = 0; r < P; ++r)
    if (starts[std::size_t(r) + 1] - starts[std::size_t(r)] < std::min(kMinSlabColumns, g.nx))
      throw_runtime_error("pic: a new slab narrower than " + std::to_string(kMinSlabColumns) + " columns");
  const SlabLayout old = layout_;
  const SlabLayout nl = slab_layout(starts, px, me);
  const GridGeometry olg = lg_;
  GridGeometry nlg = g;
  nlg.nx = nl.i1 - nl.i0;
  nlg.x0 = g.x0 + nl.i0 * g.dx;
  const int rows = g.rows();
  // The columns a rank holds: its slab's, and beyond an open global edge the guard columns there
  // (the first and last ranks keep them: the boundary node nx among them).
  auto extent = [&](const SlabLayout& l, int r) {
    int lo = l.starts[std::size_t(r)], hi = l.starts[std::size_t(r) + 1];
    if (!px && r == 0) lo = -kGuard;
    if (!px && r == P - 1) hi = g.nx + kGuard;
    return std::pair<int, int>{lo, hi};
  };
  auto overlap = [&](int from, int to) {
    const auto [a0, a1] = extent(old, from);
    const auto [b0, b1] = extent(nl, to);
    return std::pair<int, int>{std::max(a0, b0), std::min(a1, b1)};
  };
  // The arrays that move: every field component, and the PML memories where there are some.
  std::vector<std::vector<double>*> arrays;
  for (int c = 0; c < kComponents; ++c) arrays.push_back(&fields_.data[c]);
  for (int c = 0; c < kPsiCount; ++c)
    if (!fields_.psi[c].empty()) arrays.push_back(&fields_.psi[c]);
  std::vector<std::vector<double>> fresh(arrays.size(), std::vector<double>(nlg.size(), 0.0));
  auto pack_fields = [&](int to) {
    const auto [lo, hi] = overlap(me, to);
    std::vector<double> out;
    if (hi <= lo) return out;
    out.reserve(arrays.size() * std::size_t(hi - lo) * std::size_t(rows));
    for (const auto* a : arrays)
      for (int gi = lo; gi < hi; ++gi)
        for (int j = -kGuard; j < g.ny + kGuard; ++j)
          out.push_back((*a)[std::size_t(j + kGuard) * olg.stride() + std::size_t(gi - old.i0 + kGuard)]);
    return out;
  };
  auto unpack_fields = [&](const std::vector<double>& in, int from) {
    const auto [lo, hi] = overlap(from, me);
    const std::size_t want = hi > lo ? arrays.size() * std::size_t(hi - lo) * std::size_t(rows) : 0;
    if (in.size() != want) throw_runtime_error("pic: a balance message of fields has the wrong size");
    std::size_t k = 0;
    for (auto& a : fresh)
      for (int gi = lo; gi < hi; ++gi)
        for (int j = -kGuard; j < g.ny + kGuard; ++j)
          a[std::size_t(j + kGuard) * nlg.stride() + std::size_t(gi - nl.i0 + kGuard)] = in[k++];
  };
  // Particles by their new owner (records as migrate()'s).
  std::vector<std::vector<std::uint64_t>> out_particles(static_cast<std::size_t>(P));
  const SlabOwner new_owner = owner(starts);
  for (std::size_t k = 0; k < species_.size(); ++k) {
    const Species& sp = species_[k];
    for (std::size_t p = 0; p < sp.size(); ++p)
      append_record(out_particles[std::size_t(new_owner(sp.x[p]))], k, ids_[k][p], sp, p);
  }
  std::vector<std::uint64_t> mine;
  // Pairwise rounds: in round k rank r pairs with (k - r) mod P (a pairing, the same both ways);
  // a pair talks only where an old slab meets a new one (both sides know where), the lower rank
  // sending first: blocking sends and receives that cannot wait on each other.
  for (int k = 0; k < P; ++k) {
    const int p = ((k - me) % P + P) % P;
    if (p == me) {
      unpack_fields(pack_fields(me), me);
      mine.insert(mine.end(), out_particles[std::size_t(me)].begin(), out_particles[std::size_t(me)].end());
      continue;
    }
    const auto [give_lo, give_hi] = overlap(me, p);
    const auto [take_lo, take_hi] = overlap(p, me);
    const bool give = give_hi > give_lo, take = take_hi > take_lo;
    if (!give && !take) {
      if (!out_particles[std::size_t(p)].empty()) throw_runtime_error("pic: particles for a rank whose new slab this one does not meet");
      continue;
    }
    auto do_send = [&] {
      if (!give) return;
      send_sized(*comm_, pack_fields(p), p, kTagBalance);
      send_sized(*comm_, out_particles[std::size_t(p)], p, kTagBalance + 2);
    };
    auto do_recv = [&] {
      if (!take) return;
      std::vector<double> f;
      recv_append(*comm_, f, p, kTagBalance);
      unpack_fields(f, p);
      recv_append(*comm_, mine, p, kTagBalance + 2);
    };
    if (me < p) {
      do_send();
      do_recv();
    } else {
      do_recv();
      do_send();
    }
  }
  // The new slab: its geometry, fields, solver, particles (sorted by id), guards.
  layout_ = nl;
  lg_ = nlg;
  Fields nf(lg_);
  std::size_t a = 0;  // (arrays' order: the components, then the PML memories there are)
  for (int c = 0; c < kComponents; ++c) nf.data[c] = std::move(fresh[a++]);
  for (int c = 0; c < kPsiCount; ++c)
    if (!fields_.psi[c].empty()) nf.psi[c] = std::move(fresh[a++]);
  fields_ = std::move(nf);
  configure_solver();
  acc_.assign(std::size_t(classes_) * 3, std::vector<double>(lg_.size(), 0.0));
  for (std::size_t k = 0; k < species_.size(); ++k) {
    species_[k].resize(0);
    ids_[k].clear();
    merge_by_id(k, mine);
  }
  solver_.fill_guards(fields_);
  ++rebalances_;
}

// Every rank's values concatenated in rank order: on every rank (root < 0), or on root only.
template <class T>
std::vector<T> DomainPic::collect(const std::vector<T>& mine, int root) {
  if (root < 0) return comm_->allgatherv(std::span<const T>(mine));
  constexpr int kTag = 7400;
  if (layout_.rank != root) {
    send_sized(*comm_, mine, root, kTag);
    return {};
  }
  std::vector<T> all;
  for (int r = 0; r < layout_.size; ++r) {
    if (r == root) all.insert(all.end(), mine.begin(), mine.end());
    else recv_append(*comm_, all, r, kTag);
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
