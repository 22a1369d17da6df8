#include "pic/parallel/domain.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>

#include "nbody/error.hpp"
#include "pic/physics/interpolation.hpp"
#include "pic/physics/particle_step.hpp"

namespace nbody::pic {
namespace {

constexpr int kTagHalo = 7100, kTagFold = 7200, kTagMigrate = 7300, kTagBalance = 7700, kTagFlux = 7800;
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

std::vector<double*> e_and_b(Fields& f) {
  std::vector<double*> a;
  for (int c = kEx; c <= kBz; ++c) a.push_back(f.data[c].data());
  return a;
}

// The even split of n into `parts` (comm::block_of): every part's first index, and n last.
std::vector<int> even_cuts(int n, int parts) {
  std::vector<int> cuts(std::size_t(parts) + 1);
  for (int r = 0; r < parts; ++r) cuts[std::size_t(r)] = int(comm::block_of(n, parts, r).first);
  cuts[std::size_t(parts)] = n;
  return cuts;
}

// Ascending cuts with 0 first: the number of pieces.
int pieces(const std::vector<int>& cuts, const char* what) {
  const int n = int(cuts.size()) - 1;
  if (n < 1 || cuts.front() != 0) throw_runtime_error(std::string("pic: a block layout needs 0 first and one start per ") + what);
  for (int r = 0; r < n; ++r)
    if (cuts[std::size_t(r + 1)] <= cuts[std::size_t(r)]) throw_runtime_error("pic: a block layout with an empty block");
  return n;
}

// The positions of `ids` (unique) in ascending id order: where the ids span at most a few times
// their number (a species' ids are its load order, gaps where particles were absorbed) by a table
// indexed by id, a linear pass; otherwise by sorting (id, position) pairs.
std::vector<std::size_t> order_by_id(const std::vector<std::uint64_t>& ids) {
  std::vector<std::size_t> order;
  order.reserve(ids.size());
  if (ids.empty()) return order;
  const auto [lo, hi] = std::minmax_element(ids.begin(), ids.end());
  const std::uint64_t span = *hi - *lo;
  if (span < 4 * std::uint64_t(ids.size()) + 1024) {
    constexpr std::size_t none = ~std::size_t(0);
    std::vector<std::size_t> at(std::size_t(span) + 1, none);
    for (std::size_t q = 0; q < ids.size(); ++q) {
      std::size_t& slot = at[std::size_t(ids[q] - *lo)];
      if (slot != none) throw_runtime_error("pic: a particle id held twice");
      slot = q;
    }
    for (std::size_t q : at)
      if (q != none) order.push_back(q);
    return order;
  }
  std::vector<std::pair<std::uint64_t, std::size_t>> keyed(ids.size());
  for (std::size_t q = 0; q < ids.size(); ++q) keyed[q] = {ids[q], q};
  std::sort(keyed.begin(), keyed.end());
  for (std::size_t q = 0; q + 1 < keyed.size(); ++q)
    if (keyed[q].first == keyed[q + 1].first) throw_runtime_error("pic: a particle id held twice");
  for (const auto& e : keyed) order.push_back(e.second);
  return order;
}

}  // namespace

std::vector<double> pack_region(const std::vector<double*>& arrays, int stride, const GuardRegion& r) {
  std::vector<double> out;
  out.reserve(arrays.size() * r.size());
  for (double* a : arrays) {
    const FieldView v{a, stride};
    for (int j = r.j0; j < r.j1; ++j)
      for (int i = r.i0; i < r.i1; ++i) out.push_back(v(i, j));
  }
  return out;
}

void unpack_region(const std::vector<double>& in, const std::vector<double*>& arrays, int stride, const GuardRegion& r,
                   bool add) {
  if (in.empty()) return;
  if (in.size() != arrays.size() * r.size()) throw_runtime_error("pic: a guard message has the wrong size");
  std::size_t k = 0;
  for (double* a : arrays) {
    const FieldView v{a, stride};
    for (int j = r.j0; j < r.j1; ++j)
      for (int i = r.i0; i < r.i1; ++i) {
        if (add) v(i, j) += in[k++];
        else v(i, j) = in[k++];
      }
  }
}

SlabLayout slab_layout(int nx, bool periodic_x, int size, int rank) { return slab_layout(even_cuts(nx, size), periodic_x, rank); }

SlabLayout slab_layout(const std::vector<int>& starts, bool periodic_x, int rank) {
  const int size = pieces(starts, "rank");
  if (rank < 0 || rank >= size) throw_runtime_error("pic: a slab layout needs 0 first and one start per rank");
  SlabLayout l;
  l.rank = rank, l.size = size;
  l.ranks_x = size, l.bx = rank;
  l.starts = starts;
  l.i0 = starts[std::size_t(rank)], l.i1 = starts[std::size_t(rank) + 1];
  if (size > 1) {
    l.left = rank > 0 ? rank - 1 : (periodic_x ? size - 1 : -1);
    l.right = rank < size - 1 ? rank + 1 : (periodic_x ? 0 : -1);
  }
  return l;
}

SlabLayout block_layout(const std::vector<int>& starts, const std::vector<int>& rows, bool periodic_x, bool periodic_y,
                        int rank) {
  const int px = pieces(starts, "block column"), py = pieces(rows, "block row");
  if (rank < 0 || rank >= px * py) throw_runtime_error("pic: a block layout for another number of ranks");
  const int bx = rank % px, by = rank / px;
  SlabLayout l = slab_layout(starts, periodic_x, bx);
  l.rank = rank, l.size = px * py;
  l.ranks_y = py, l.by = by;
  l.rows = rows;
  l.j0 = rows[std::size_t(by)], l.j1 = rows[std::size_t(by) + 1];
  const int row0 = by * px;
  if (l.left >= 0) l.left += row0;
  if (l.right >= 0) l.right += row0;
  if (py > 1) {
    l.down = by > 0 ? rank - px : (periodic_y ? (py - 1) * px + bx : -1);
    l.up = by < py - 1 ? rank + px : (periodic_y ? bx : -1);
  }
  return l;
}

std::pair<std::string, std::string> block_shape_problem(int nx, int ny, int processes, int ranks_y) {
  const std::string least = std::to_string(kMinSlabColumns);
  if (ranks_y < 1 || processes % ranks_y != 0)
    return {"parallel.ranks_y", std::to_string(ranks_y) + " does not divide the " + std::to_string(processes) +
                                    " processes (the blocks are ranks_x x ranks_y, ranks_x = processes / ranks_y)"};
  const int rx = processes / ranks_y;
  if (rx > 1 && nx < kMinSlabColumns * rx)
    return {"grid.nx", std::to_string(nx) + " is too small for " + std::to_string(rx) + " processes along x: each slab needs at least " +
                           least + " cell columns (nx >= " + std::to_string(kMinSlabColumns * rx) + ")"};
  if (ranks_y > 1 && ny < kMinSlabColumns * ranks_y)
    return {"grid.ny", std::to_string(ny) + " is too small for parallel.ranks_y = " + std::to_string(ranks_y) +
                           ": each block needs at least " + least + " cell rows (ny >= " +
                           std::to_string(kMinSlabColumns * ranks_y) + ")"};
  return {};
}

SlabLayout block_layout(int nx, int ny, bool periodic_x, bool periodic_y, int size, int ranks_y, int rank) {
  if (ranks_y < 1 || size % ranks_y != 0) throw_runtime_error("pic: block rows that do not divide the ranks");
  return block_layout(even_cuts(nx, size / ranks_y), even_cuts(ny, ranks_y), periodic_x, periodic_y, rank);
}

DomainPic::DomainPic(const PicSimulation& global, comm::Communicator& comm, int ranks_y)
    : s_(global.settings()), comm_(&comm), solver_(s_.solver, s_.geom, s_.field_bc, s_.laser.enabled) {
  const GridGeometry& g = s_.geom;
  const bool px = s_.field_bc.x == FieldBoundary::periodic, py = s_.field_bc.y == FieldBoundary::periodic;
  const int P = comm.size();
  if (const auto [key, why] = block_shape_problem(g.nx, g.ny, P, ranks_y); !key.empty())
    throw_input_error("pic: " + key + ": " + why);
  layout_ = block_layout(g.nx, g.ny, px, py, P, ranks_y, comm.rank());
  lg_ = g;
  lg_.nx = layout_.i1 - layout_.i0;
  lg_.ny = layout_.j1 - layout_.j0;
  lg_.x0 = g.x0 + layout_.i0 * g.dx;  // only the laser's edge (i0 = 0) uses it
  fields_ = Fields(lg_);
  const int nxl = lg_.nx, nyl = lg_.ny;
  // The block's cells (and the guard cells the global arrays have there).
  auto take = [&](const std::vector<double>& from, std::vector<double>& to) {
    to.assign(lg_.size(), 0.0);
    for (int jl = -kGuard; jl < nyl + kGuard; ++jl) {
      const int gj = jl + layout_.j0;
      if (gj < -kGuard || gj >= g.ny + kGuard) continue;
      for (int il = -kGuard; il < nxl + kGuard; ++il) {
        const int gi = il + layout_.i0;
        if (gi < -kGuard || gi >= g.nx + kGuard) continue;
        to[std::size_t(jl + kGuard) * lg_.stride() + std::size_t(il + kGuard)] =
            from[std::size_t(gj + kGuard) * g.stride() + std::size_t(gi + kGuard)];
      }
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
    Species sp = gs.without_particles();
    std::vector<std::uint64_t> id;
    const bool have_ids = gids.size() == global.species().size() && gids[k].size() == gs.size();
    if (layout_.size == 1) {
      // (one block: every particle is its own, the arrays copied whole)
      sp.x = gs.x, sp.y = gs.y, sp.ux = gs.ux, sp.uy = gs.uy, sp.uz = gs.uz, sp.w = gs.w;
      if (have_ids) {
        id = gids[k];
      } else {
        id.resize(gs.size());
        std::iota(id.begin(), id.end(), std::uint64_t(0));
      }
    } else {
      // (counted first: the arrays sized once, not grown particle by particle)
      std::size_t mine = 0;
      for (std::size_t p = 0; p < gs.size(); ++p) mine += owner_rank(gs.x[p], gs.y[p]) == layout_.rank ? 1 : 0;
      sp.reserve(mine);
      id.reserve(mine);
      for (std::size_t p = 0; p < gs.size(); ++p) {
        if (owner_rank(gs.x[p], gs.y[p]) != layout_.rank) continue;
        sp.push_back(gs.x[p], gs.y[p], gs.ux[p], gs.uy[p], gs.uz[p], gs.w[p]);
        id.push_back(have_ids ? gids[k][p] : std::uint64_t(p));
      }
    }
    species_.push_back(std::move(sp));
    ids_.push_back(std::move(id));
  }
  classes_ = deposit_classes(s_.shape);
  step_ = global.step_count();
  t_ = global.time();
  solver_.fill_guards(fields_);
}

void DomainPic::configure_solver() {
  solver_ = MaxwellSolver(s_.solver, lg_, s_.field_bc, s_.laser.enabled);
  SlabSides sides;
  sides.cut_lo = layout_.left >= 0;
  sides.cut_hi = layout_.right >= 0;
  sides.cut_y_lo = layout_.down >= 0;
  sides.cut_y_hi = layout_.up >= 0;
  sides.i_offset = layout_.i0;
  sides.j_offset = layout_.j0;
  sides.global_nx = s_.geom.nx;
  if (layout_.ranks_x > 1) sides.exchange = [this](Fields& f) { exchange_field_guards(f); };
  if (layout_.ranks_y > 1) sides.exchange_y = [this](Fields& f) { exchange_field_guards_y(f); };
  solver_.set_slab(sides);
}

SlabOwner DomainPic::owner(const std::vector<int>& starts) const {
  const GridGeometry& g = s_.geom;
  return SlabOwner{g.x0, g.dx, g.nx, int(starts.size()) - 1, starts.data()};
}

SlabOwner DomainPic::row_owner() const {
  const GridGeometry& g = s_.geom;
  return SlabOwner{g.y0, g.dy, g.ny, layout_.ranks_y, layout_.rows.data()};
}

int DomainPic::owner_rank(double x, double y) const {
  const int bx = owner(layout_.starts)(x);
  return layout_.ranks_y > 1 ? row_owner()(y) * layout_.ranks_x + bx : bx;
}

std::size_t DomainPic::local_particles(bool mobile_only) const {
  std::size_t n = 0;
  for (const Species& s : species_)
    if (!mobile_only || !s.immobile) n += s.size();
  return n;
}

template <class T>
std::vector<T> chain_shift(comm::Communicator& comm, int pos, int n, int prev, int next, const std::vector<T>& out,
                           bool forward, int tag) {
  const int dest = forward ? next : prev;
  const int src = forward ? prev : next;
  std::vector<T> in;
  if (dest < 0 && src < 0) return in;
  const bool first = forward ? pos == 0 : pos == n - 1;
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
template std::vector<double> chain_shift(comm::Communicator&, int, int, int, int, const std::vector<double>&, bool, int);
template std::vector<std::uint64_t> chain_shift(comm::Communicator&, int, int, int, int,
                                                const std::vector<std::uint64_t>&, bool, int);

// E and B: the slab's first kGuard columns to the left neighbour's right guards, its last
// kGuard columns to the right neighbour's left guards, every row.
void DomainPic::exchange_field_guards(Fields& f) {
  const int nxl = lg_.nx, stride = lg_.stride();
  const std::vector<double*> eb = e_and_b(f);
  auto columns = [&](int first) { return guard_columns(lg_, first); };
  const std::vector<double> from_left =
      shift(layout_.right >= 0 ? pack_region(eb, stride, columns(nxl - kGuard)) : std::vector<double>{}, true, kTagHalo);
  unpack_region(from_left, eb, stride, columns(-kGuard), false);
  const std::vector<double> from_right =
      shift(layout_.left >= 0 ? pack_region(eb, stride, columns(0)) : std::vector<double>{}, false, kTagHalo + 2);
  unpack_region(from_right, eb, stride, columns(nxl), false);
}

// E and B along y (after the x guards are in): the block's first kGuard rows to the neighbour
// below (its upper guards), its last kGuard rows to the one above (its lower guards), every column
// with the x guards, so the corners come from the diagonal neighbour.
void DomainPic::exchange_field_guards_y(Fields& f) {
  const int nyl = lg_.ny, stride = lg_.stride();
  const std::vector<double*> eb = e_and_b(f);
  auto rows = [&](int first) { return guard_rows(lg_, first); };
  const std::vector<double> from_below =
      shift(layout_.up >= 0 ? pack_region(eb, stride, rows(nyl - kGuard)) : std::vector<double>{}, true, kTagHalo + 4, true);
  unpack_region(from_below, eb, stride, rows(-kGuard), false);
  const std::vector<double> from_above =
      shift(layout_.down >= 0 ? pack_region(eb, stride, rows(0)) : std::vector<double>{}, false, kTagHalo + 6, true);
  unpack_region(from_above, eb, stride, rows(nyl), false);
}

template <class Shape>
void DomainPic::push_species(std::size_t k) {
  Species& sp = species_[k];
  std::vector<std::uint64_t>& id = ids_[k];
  const PushParams pp = make_push_params(s_, sp, step_);
  // Views by global indices: the offset of the block's point (i0, j0) folded into ioff (grid.hpp).
  const int off = layout_.i0 + layout_.j0 * lg_.stride();
  const int M = classes_;
  std::vector<FieldViews> views(std::size_t(M * M));
  for (int r = 0; r < M * M; ++r)
    for (int c = 0; c < 3; ++c) {
      views[std::size_t(r)].e[c] = {fields_.data[kEx + c].data(), lg_.stride(), off};
      views[std::size_t(r)].b[c] = {fields_.data[kBx + c].data(), lg_.stride(), off};
      views[std::size_t(r)].j[c] = {acc_[std::size_t(r * 3 + c)].data(), lg_.stride(), off};
    }
  const HostAccumulate acc;
  std::size_t out = 0;
  const std::size_t n = sp.size();
  for (std::size_t i = 0; i < n; ++i) {
    const int col = cell_column(sp.x[i], pp.x0, pp.dx), row = cell_column(sp.y[i], pp.y0, pp.dy);
    const int r = (((col % M) + M) % M) * M + ((row % M) + M) % M;
    ParticleRef p{sp.x[i], sp.y[i], sp.ux[i], sp.uy[i], sp.uz[i], sp.w[i]};
    // The thermal boundary's random numbers are keyed by the id: the same on any decomposition.
    if (!advance_particle<Shape>(p, id[i], views[std::size_t(r)], pp, acc)) continue;
    sp.x[out] = p.x, sp.y[out] = p.y, sp.ux[out] = p.ux, sp.uy[out] = p.uy, sp.uz[out] = p.uz, sp.w[out] = p.w;
    id[out] = id[i];
    ++out;
  }
  sp.resize(out);
  id.resize(out);
}

void DomainPic::fold_and_sum_currents() {
  const int nxl = lg_.nx, nyl = lg_.ny;
  const bool px = s_.field_bc.x == FieldBoundary::periodic, py = s_.field_bc.y == FieldBoundary::periodic;
  const bool single_x = layout_.ranks_x == 1, single_y = layout_.ranks_y == 1;
  const int stride = lg_.stride();
  std::vector<double*> arrays;
  for (auto& a : acc_) arrays.push_back(a.data());
  auto rows = [&](int first) { return guard_rows(lg_, first); };
  auto columns = [&](int first) { return guard_columns(lg_, first); };
  // y first, over the full x range (guards included), as one process (MaxwellSolver::fold_sources):
  // the periodic images of one block row, or dropped beyond a global open edge ...
  for (auto& a : acc_) {
    const FieldView v{a.data(), stride};
    if (single_y && py) {
      for (int i = -kGuard; i < nxl + kGuard; ++i) fold_periodic_column(v, i, nyl);
    } else if (!py) {
      for (int i = -kGuard; i < nxl + kGuard; ++i) {
        if (layout_.down < 0)
          for (int g = 1; g <= kGuard; ++g) v(i, -g) = 0;
        if (layout_.up < 0)
          for (int j = nyl + 1; j < nyl + kGuard; ++j) v(i, j) = 0;
      }
    }
  }
  // ... or the guard rows of every array to the neighbour that owns them, added there.
  if (!single_y) {
    const std::vector<double> from_below =
        shift(layout_.up >= 0 ? pack_region(arrays, stride, rows(nyl)) : std::vector<double>{}, true, kTagFold + 4, true);
    const std::vector<double> from_above =
        shift(layout_.down >= 0 ? pack_region(arrays, stride, rows(-kGuard)) : std::vector<double>{}, false, kTagFold + 6, true);
    unpack_region(from_below, arrays, stride, rows(0), true);
    unpack_region(from_above, arrays, stride, rows(nyl - kGuard), true);
  }
  // Then x over every row: the periodic images of one block column, or dropped beyond a global
  // open edge, ...
  for (auto& a : acc_) {
    const FieldView v{a.data(), stride};
    if (single_x && px) {
      for (int j = -kGuard; j < nyl + kGuard; ++j) fold_periodic_row(v, j, nxl);
    } else if (!px) {
      for (int j = -kGuard; j < nyl + kGuard; ++j) {
        if (layout_.left < 0)
          for (int g = 1; g <= kGuard; ++g) v(-g, j) = 0;
        if (layout_.right < 0)
          for (int i = nxl + 1; i < nxl + kGuard; ++i) v(i, j) = 0;
      }
    }
  }
  // ... or the guard columns to the neighbour that owns them, added there.
  if (!single_x) {
    const std::vector<double> from_left =
        shift(layout_.right >= 0 ? pack_region(arrays, stride, columns(nxl)) : std::vector<double>{}, true, kTagFold);
    const std::vector<double> from_right =
        shift(layout_.left >= 0 ? pack_region(arrays, stride, columns(-kGuard)) : std::vector<double>{}, false, kTagFold + 2);
    unpack_region(from_left, arrays, stride, columns(0), true);
    unpack_region(from_right, arrays, stride, columns(nxl - kGuard), true);
  }
  // J = A_0 + A_1 + ... in this order at every point.
  const int classes = int(acc_.size()) / 3;
  for (int c = 0; c < 3; ++c) {
    std::vector<double>& j = fields_.data[kJx + c];
    j = acc_[std::size_t(c)];
    for (int r = 1; r < classes; ++r) {
      const std::vector<double>& a = acc_[std::size_t(r * 3 + c)];
      for (std::size_t k = 0; k < j.size(); ++k) j[k] += a[k];
    }
  }
}

void DomainPic::migrate() {
  const SlabOwner cols = owner(layout_.starts), rows = row_owner();
  const bool blocks_y = layout_.ranks_y > 1;
  // Along x the particles whose block column changed, then along y those whose block row did
  // (with the x arrivals: a particle that crossed a corner takes two hops).
  std::vector<std::uint64_t> to_left, to_right, to_down, to_up;
  // The message towards the block (bx, by), a neighbour along one axis (the right or upper one
  // first where both are one rank).
  auto towards = [&](int bx, int by, std::size_t k) -> std::vector<std::uint64_t>& {
    const int owner = by * layout_.ranks_x + bx;
    if (by == layout_.by) {
      if (owner == layout_.right) return to_right;
      if (owner == layout_.left) return to_left;
    } else if (bx == layout_.bx) {
      if (owner == layout_.up) return to_up;
      if (owner == layout_.down) return to_down;
    }
    throw_runtime_error("pic: a particle of " + species_[k].name + " moved from rank " + std::to_string(layout_.rank) +
                        " to rank " + std::to_string(owner) + ", beyond its neighbours");
  };
  for (std::size_t k = 0; k < species_.size(); ++k) {
    Species& sp = species_[k];
    std::vector<std::uint64_t>& id = ids_[k];
    std::size_t out = 0;
    for (std::size_t i = 0; i < sp.size(); ++i) {
      const int bx = cols(sp.x[i]);
      const int by = blocks_y ? rows(sp.y[i]) : layout_.by;
      if (bx != layout_.bx || by != layout_.by) {
        // (along x first: a corner crossing goes on along y from the block it arrives in)
        append_record(towards(bx, bx != layout_.bx ? layout_.by : by, k), k, id[i], sp, i);
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
  std::vector<std::uint64_t> in = shift(to_right, true, kTagMigrate);
  const std::vector<std::uint64_t> in_right = shift(to_left, false, kTagMigrate + 2);
  in.insert(in.end(), in_right.begin(), in_right.end());
  if (blocks_y) {
    // The x arrivals in another block row go on.
    std::vector<std::uint64_t> stay;
    if (in.size() % kRecord != 0) throw_runtime_error("pic: a particle message of a broken length");
    for (std::size_t r = 0; r < in.size() / kRecord; ++r) {
      const std::uint64_t* rec = &in[r * kRecord];
      if (rec[0] >= species_.size()) throw_runtime_error("pic: a particle message of an unknown species");
      const int by = rows(from_bits(rec[3]));
      if (by == layout_.by) {
        stay.insert(stay.end(), rec, rec + kRecord);
        continue;
      }
      std::vector<std::uint64_t>& dest = towards(layout_.bx, by, std::size_t(rec[0]));
      dest.insert(dest.end(), rec, rec + kRecord);
    }
    in = std::move(stay);
    const std::vector<std::uint64_t> in_below = shift(to_up, true, kTagMigrate + 4, true);
    const std::vector<std::uint64_t> in_above = shift(to_down, false, kTagMigrate + 6, true);
    in.insert(in.end(), in_below.begin(), in_below.end());
    in.insert(in.end(), in_above.begin(), in_above.end());
  }
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

void DomainPic::set_state(const Fields& f, std::vector<Species> species, std::vector<std::vector<std::uint64_t>> ids,
                          std::int64_t step, double t) {
  if (f.geom.nx != lg_.nx || f.geom.ny != lg_.ny || species.size() != species_.size() || ids.size() != species.size())
    throw_runtime_error("pic: a slab state of another shape");
  for (std::size_t k = 0; k < species.size(); ++k)
    if (ids[k].size() != species[k].size()) throw_runtime_error("pic: a slab state with ids that do not match its particles");
  for (int c = 0; c < kComponents; ++c) fields_.data[c] = f.data[c];
  for (int c = 0; c < kPsiCount; ++c) fields_.psi[c] = f.psi[c];
  species_ = std::move(species);
  ids_ = std::move(ids);
  step_ = step;
  t_ = t;
}

void DomainPic::take_particles(std::vector<Species>& species, std::vector<std::vector<std::uint64_t>>& ids) {
  species = pic::take_particles(species_);
  ids = std::move(ids_);
  ids_.assign(species_.size(), {});
}

void DomainPic::step() {
  using clock = std::chrono::steady_clock;
  const auto secs = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  const auto t0 = clock::now();
  const double comm0 = comm_seconds_;
  // (the class arrays made at the first step: the GPU slabs' host copy never steps)
  if (acc_.empty()) acc_.assign(std::size_t(classes_ * classes_) * 3, std::vector<double>(lg_.size(), 0.0));
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

int DomainPic::plane_top_rank(int i) const {
  const GridGeometry& g = s_.geom;
  const SlabLayout& l = layout_;
  return (l.ranks_y - 1) * l.ranks_x + owner(l.starts)(g.x0 + (i + 0.5) * g.dx);
}

double DomainPic::column_sum(int i, const std::function<double(double)>& rows, int tag) {
  const SlabLayout& l = layout_;
  double sum = 0;
  if (plane_top_rank(i) % l.ranks_x != l.bx) return sum;
  if (l.by > 0) comm_->recv(&sum, 1, comm::DataType::f64, l.rank - l.ranks_x, tag);
  sum = rows(sum);
  if (l.by < l.ranks_y - 1) comm_->send(&sum, 1, comm::DataType::f64, l.rank + l.ranks_x, tag);
  return sum;
}

double DomainPic::poynting_flux_x(int i) {
  const GridGeometry& g = s_.geom;
  // The rows' terms summed up the plane's block column (one process's sequential sum); the top
  // block has the flux and broadcasts it.
  const int il = i - layout_.i0;
  double sum = column_sum(
      i,
      [&](double s) {
        const Fields& f = fields_;
        for (int j = 0; j < lg_.ny; ++j) {
          const double ey = 0.5 * (f.at(kEy, il, j) + f.at(kEy, il + 1, j));
          const double bz = f.at(kBz, il, j);
          const double ez =
              0.25 * (f.at(kEz, il, j) + f.at(kEz, il + 1, j) + f.at(kEz, il, j + 1) + f.at(kEz, il + 1, j + 1));
          const double by = 0.5 * (f.at(kBy, il, j) + f.at(kBy, il, j + 1));
          s += (ey * bz - ez * by) * g.dy;
        }
        return s;
      },
      kTagFlux);
  if (layout_.size > 1) sum = comm_->broadcast_value(sum, plane_top_rank(i));
  return sum;
}

std::vector<double> DomainPic::column_costs(double cell_cost) const {
  std::vector<double> cost(std::size_t(lg_.nx), cell_cost * double(lg_.ny));
  const SlabOwner own = owner(layout_.starts);
  for (const Species& sp : species_) {
    if (sp.immobile) continue;
    for (std::size_t p = 0; p < sp.size(); ++p)
      cost[std::size_t(std::clamp(own.column(sp.x[p]), layout_.i0, layout_.i1 - 1) - layout_.i0)] += 1.0;
  }
  return cost;
}

std::vector<int> DomainPic::plan_balance(const std::vector<double>& my_costs, const BalanceSettings& b) {
  if (layout_.ranks_x < 2) return {};
  if (my_costs.size() != std::size_t(lg_.nx)) throw_runtime_error("pic: column costs of another slab width");
  // (the same numbers on every rank, so the same decision): the blocks' costs in rank order,
  // summed over the block rows in that order
  const std::vector<double> gathered = comm_->allgatherv(std::span<const double>(my_costs));
  const std::size_t nx = std::size_t(s_.geom.nx);
  if (gathered.size() != nx * std::size_t(layout_.ranks_y)) throw_runtime_error("pic: the slabs' column costs do not cover the grid");
  std::vector<double> all(gathered.begin(), gathered.begin() + std::ptrdiff_t(nx));
  for (int by = 1; by < layout_.ranks_y; ++by)
    for (std::size_t c = 0; c < nx; ++c) all[c] += gathered[std::size_t(by) * nx + c];
  const double now = slab_imbalance(all, layout_.starts);
  if (!(now > 1.0 + b.threshold)) return {};
  std::vector<int> starts = balanced_starts(all, layout_.ranks_x, kMinSlabColumns);
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
  const int P = layout_.size, me = layout_.rank, Px = layout_.ranks_x;
  const bool px = s_.field_bc.x == FieldBoundary::periodic, py = s_.field_bc.y == FieldBoundary::periodic;
  if (int(starts.size()) != Px + 1 || starts.back() != g.nx) throw_runtime_error("pic: new slab starts of another grid");
  for (int r = 0; r < Px; ++r)
    if (starts[std::size_t(r) + 1] - starts[std::size_t(r)] < std::min(kMinSlabColumns, g.nx))
      throw_runtime_error("pic: a new slab narrower than " + std::to_string(kMinSlabColumns) + " columns");
  const SlabLayout old = layout_;
  const SlabLayout nl = block_layout(starts, layout_.rows, px, py, me);
  const GridGeometry olg = lg_;
  GridGeometry nlg = lg_;
  nlg.nx = nl.i1 - nl.i0;
  nlg.x0 = g.x0 + nl.i0 * g.dx;
  const int rows = lg_.rows();  // (the block row's, guards included: they move with the columns)
  // The columns a rank holds: its block's, and beyond an open global edge the guard columns there
  // (the first and last block columns keep them: the boundary node nx among them).
  auto extent = [&](const SlabLayout& l, int r) {
    const int bx = r % Px;
    int lo = l.starts[std::size_t(bx)], hi = l.starts[std::size_t(bx) + 1];
    if (!px && bx == 0) lo = -kGuard;
    if (!px && bx == Px - 1) hi = g.nx + kGuard;
    return std::pair<int, int>{lo, hi};
  };
  // (only blocks of one block row meet: the rows do not move)
  auto overlap = [&](int from, int to) {
    if (from / Px != to / Px) return std::pair<int, int>{0, 0};
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
        for (int j = -kGuard; j < lg_.ny + kGuard; ++j)
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
        for (int j = -kGuard; j < lg_.ny + kGuard; ++j)
          a[std::size_t(j + kGuard) * nlg.stride() + std::size_t(gi - nl.i0 + kGuard)] = in[k++];
  };
  // Particles by their new owner (records as migrate()'s).
  std::vector<std::vector<std::uint64_t>> out_particles(static_cast<std::size_t>(P));
  const SlabOwner new_owner = owner(starts);
  for (std::size_t k = 0; k < species_.size(); ++k) {
    const Species& sp = species_[k];
    for (std::size_t p = 0; p < sp.size(); ++p)
      append_record(out_particles[std::size_t(layout_.by * Px + new_owner(sp.x[p]))], k, ids_[k][p], sp, p);
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
  acc_.clear();
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

std::array<int, 4> DomainPic::gathered_extent(int r) const {
  const GridGeometry& g = s_.geom;
  const bool px = s_.field_bc.x == FieldBoundary::periodic;
  const SlabLayout& l = layout_;
  const int bx = r % l.ranks_x, by = r / l.ranks_x;
  // Its cells; the last block column on an open x axis also owns the boundary node nx; the
  // first and last block rows keep the guard rows beyond the y edges (one process's values).
  const int c0 = l.starts[std::size_t(bx)], c1 = l.starts[std::size_t(bx) + 1] + (bx == l.ranks_x - 1 && !px ? 1 : 0);
  const int r0 = by == 0 ? -kGuard : l.rows[std::size_t(by)];
  const int r1 = by == l.ranks_y - 1 ? g.ny + kGuard : l.rows[std::size_t(by) + 1];
  return {c0, c1, r0, r1};
}

void DomainPic::gather(PicSimulation& global, int root) { gather_state(global, root, true); }

void DomainPic::gather_fields(PicSimulation& global, int root) { gather_state(global, root, false); }

void DomainPic::set_fields(const Fields& f, std::int64_t step, double t) {
  if (f.geom.nx != lg_.nx || f.geom.ny != lg_.ny) throw_runtime_error("pic: slab fields of another shape");
  for (int c = 0; c < kComponents; ++c) fields_.data[c] = f.data[c];
  for (int c = 0; c < kPsiCount; ++c) fields_.psi[c] = f.psi[c];
  step_ = step;
  t_ = t;
}

void DomainPic::gather_state(PicSimulation& global, int root, bool particles) {
  const bool here = root < 0 || layout_.rank == root;
  const GridGeometry& g = s_.geom;
  const bool px = s_.field_bc.x == FieldBoundary::periodic;
  const std::array<int, 4> me = gathered_extent(layout_.rank);
  auto gather_array = [&](const std::vector<double>& local, std::vector<double>& to) {
    std::vector<double> mine;
    mine.reserve(std::size_t(me[1] - me[0]) * std::size_t(me[3] - me[2]));
    for (int gi = me[0]; gi < me[1]; ++gi)
      for (int gj = me[2]; gj < me[3]; ++gj)
        mine.push_back(local[std::size_t(gj - layout_.j0 + kGuard) * lg_.stride() + std::size_t(gi - layout_.i0 + kGuard)]);
    const std::vector<double> all = collect(mine, root);
    if (!here) return;
    to.assign(g.size(), 0.0);
    std::size_t k = 0;
    for (int r = 0; r < layout_.size; ++r) {
      const std::array<int, 4> e = gathered_extent(r);
      if (all.size() - k < std::size_t(e[1] - e[0]) * std::size_t(e[3] - e[2]))
        throw_runtime_error("pic: the gathered fields do not cover the grid");
      for (int gi = e[0]; gi < e[1]; ++gi)
        for (int gj = e[2]; gj < e[3]; ++gj) to[std::size_t(gj + kGuard) * g.stride() + std::size_t(gi + kGuard)] = all[k++];
    }
    if (k != all.size()) throw_runtime_error("pic: the gathered fields do not cover the grid");
    if (px) copy_periodic_guards(FieldView{to.data(), g.stride()}, g.nx, g.ny, true, false);
  };
  Fields& gf = global.fields();
  for (int c = 0; c < kComponents; ++c) gather_array(fields_.data[c], gf.data[c]);
  for (int c = 0; c < kPsiCount; ++c)
    if (!fields_.psi[c].empty()) gather_array(fields_.psi[c], gf.psi[c]);
  if (!particles) {
    if (here) global.set_time(t_, step_);
    return;
  }
  auto& gids = global.particle_ids();
  if (here) gids.assign(species_.size(), {});
  // The particles component by component (each rank's arrays as they are, no packing), placed
  // in id order: a table from order_by_id, or none where the gathered ids already ascend (one
  // rank's, which it keeps sorted).
  for (std::size_t k = 0; k < species_.size(); ++k) {
    const Species& sp = species_[k];
    const bool whole = layout_.size == 1;  // (this rank's arrays are all of them: not copied)
    std::vector<std::uint64_t> ids = whole ? std::vector<std::uint64_t>{} : collect(ids_[k], root);
    const std::vector<std::uint64_t>& all_ids = whole ? ids_[k] : ids;
    std::vector<std::size_t> order;
    const bool sorted =
        here && std::adjacent_find(all_ids.begin(), all_ids.end(), std::greater_equal<>()) == all_ids.end();
    if (here && !sorted) order = order_by_id(all_ids);
    Species* gs = here ? &global.species()[k] : nullptr;
    std::vector<double> Species::*const parts[6] = {&Species::x,  &Species::y,  &Species::ux,
                                                    &Species::uy, &Species::uz, &Species::w};
    for (const auto part : parts) {
      std::vector<double> all = whole ? std::vector<double>{} : collect(sp.*part, root);
      if (!here) continue;
      const std::vector<double>& from = whole ? sp.*part : all;
      if (from.size() != all_ids.size()) throw_runtime_error("pic: the gathered particles and ids differ in number");
      std::vector<double>& to = gs->*part;
      if (sorted && !whole) {
        to = std::move(all);
      } else if (sorted) {
        to.assign(from.begin(), from.end());
      } else {
        to.resize(from.size());
        for (std::size_t q = 0; q < order.size(); ++q) to[q] = from[order[q]];
      }
    }
    if (!here) continue;
    std::vector<std::uint64_t>& gid = gids[k];
    if (sorted) {
      gid = whole ? all_ids : std::move(ids);
    } else {
      gid.resize(order.size());
      for (std::size_t q = 0; q < order.size(); ++q) gid[q] = all_ids[order[q]];
    }
  }
  if (here) global.set_time(t_, step_);
}

}  // namespace nbody::pic
