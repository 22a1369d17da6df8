// The Barnes-Hut tree over rank-owned bodies (distributed_tree.hpp).
#include "gravity/tree/distributed_tree.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <span>
#include <type_traits>

#include "comm/chained_sum.hpp"
#include "core/parallel.hpp"
#include "gravity/tree/group_walk.hpp"
#include "gravity/tree/let_exchange.hpp"
#include "gravity/tree/top_tree.hpp"
#include "nbody/error.hpp"

namespace nbody::gravity::tree {
namespace {

// A body on its way to the rank of its unit.
struct MovingBody {
  double x, y, z, m;
  double history;  // its previous |a| (0: none)
  std::uint64_t id, key;
};

// A unit's multipole and opening radius, as its owner formed them.
struct UnitRecord {
  double m, mx, my, mz, qxx, qxy, qxz, qyy, qyz, qzz, tr, rcrit2;
};

// A body's result on its way back to its owner.
struct BodyResult {
  double v0, v1, v2;
  std::uint64_t terms;
};

template <class R>
std::int64_t bytes_to_others(std::span<const std::int64_t> counts, int me) {
  std::int64_t n = 0;
  for (std::size_t q = 0; q < counts.size(); ++q)
    if (int(q) != me) n += counts[q];
  return n * std::int64_t(sizeof(R));
}

// A phase's host-clock seconds: lap() the time since the last lap, total() from the start to the
// last lap (the laps' sum).
class PhaseClock {
 public:
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return s;
  }
  [[nodiscard]] double total() const { return std::chrono::duration<double>(last_ - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_ = start_;
};

template <class T>
std::vector<double> widen(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

// Step 4a: the subtrees of this rank's units [mine.first, mine.second) over its key-sorted bodies
// (tkeys), built below the units' cells of lt.t; returns each unit's body range.
std::vector<std::pair<std::int32_t, std::int32_t>> build_own_subtrees(const TopTree& top, std::pair<int, int> mine,
                                                                     const std::vector<std::uint64_t>& tkeys,
                                                                     int leaf_size, LocalTree& lt) {
  std::vector<std::pair<std::int32_t, std::int32_t>> unit_bodies;
  for (int u = mine.first; u < mine.second; ++u) {
    const int uc = top.unit_cell[std::size_t(u)];
    const auto b = static_cast<std::int32_t>(
        std::lower_bound(tkeys.begin(), tkeys.end(), top.unit_first_key[std::size_t(u)]) - tkeys.begin());
    const std::int32_t e = b + lt.t.body_count[uc];
    const auto end = u + 1 == top.units()
                         ? tkeys.end()
                         : std::lower_bound(tkeys.begin(), tkeys.end(), top.unit_first_key[std::size_t(u + 1)]);
    if (end - tkeys.begin() != e) throw_runtime_error("distributed tree: a unit's bodies did not all reach its rank");
    lt.t.body_begin[uc] = b;
    unit_bodies.emplace_back(b, e);
    build_subtree(tkeys, leaf_size, lt.t, uc);
  }
  lt.own_cells_end = lt.t.size();
  return unit_bodies;
}

// Step 4b: the multipoles of this rank's subtrees and units, every unit's from its owner
// (allgatherv in unit order), and the top's above the units, summed alike on every rank; the
// other ranks' units marked pruned. Returns the bytes sent to and received from other ranks.
std::pair<std::int64_t, std::int64_t> form_multipoles(comm::Communicator& c, const TopTree& top,
                                                      std::pair<int, int> mine, double theta, LocalTree& lt) {
  Octree& t = lt.t;
  for (auto* v : {&t.m, &t.mx, &t.my, &t.mz, &t.qxx, &t.qxy, &t.qxz, &t.qyy, &t.qyz, &t.qzz, &t.tr, &t.rcrit2}) {
    v->assign(std::size_t(t.size()), 0.0);
  }
  t.pruned.assign(std::size_t(t.size()), 0);
  for (int u = 0; u < top.units(); ++u)
    if (top.unit_owner[std::size_t(u)] != c.rank()) t.pruned[std::size_t(top.unit_cell[std::size_t(u)])] = 1;
  for (int cell = t.size() - 1; cell >= lt.top_cells; --cell)
    compute_cell_multipole(lt.x.data(), lt.y.data(), lt.z.data(), lt.m.data(), theta, t, cell);
  std::vector<UnitRecord> own_records;
  for (int u = mine.first; u < mine.second; ++u) {
    const int uc = top.unit_cell[std::size_t(u)];
    compute_cell_multipole(lt.x.data(), lt.y.data(), lt.z.data(), lt.m.data(), theta, t, uc);
    own_records.push_back({t.m[uc], t.mx[uc], t.my[uc], t.mz[uc], t.qxx[uc], t.qxy[uc], t.qxz[uc], t.qyy[uc], t.qyz[uc],
                           t.qzz[uc], t.tr[uc], t.rcrit2[uc]});
  }
  // (as doubles: the typed allgatherv counts items of a basic type)
  static_assert(sizeof(UnitRecord) % sizeof(double) == 0);
  constexpr std::size_t unit_words = sizeof(UnitRecord) / sizeof(double);
  const auto unit_values = c.allgatherv<double>(
      std::span<const double>(reinterpret_cast<const double*>(own_records.data()), own_records.size() * unit_words));
  std::vector<UnitRecord> units(unit_values.size() / unit_words);
  std::memcpy(units.data(), unit_values.data(), units.size() * sizeof(UnitRecord));
  if (static_cast<int>(units.size()) != top.units())
    throw_runtime_error("distributed tree: the units' multipoles do not add up");
  for (int u = 0; u < top.units(); ++u) {
    const UnitRecord& r = units[std::size_t(u)];
    const int uc = top.unit_cell[std::size_t(u)];
    t.m[uc] = r.m, t.mx[uc] = r.mx, t.my[uc] = r.my, t.mz[uc] = r.mz;
    t.qxx[uc] = r.qxx, t.qxy[uc] = r.qxy, t.qxz[uc] = r.qxz, t.qyy[uc] = r.qyy, t.qyz[uc] = r.qyz, t.qzz[uc] = r.qzz;
    t.tr[uc] = r.tr, t.rcrit2[uc] = r.rcrit2;
  }
  for (int cell = lt.top_cells - 1; cell >= 0; --cell) {
    if (top.cell_unit[std::size_t(cell)] < 0) compute_cell_multipole(nullptr, nullptr, nullptr, nullptr, theta, t, cell);
  }
  const auto bytes = std::int64_t(sizeof(UnitRecord));
  return {std::int64_t(own_records.size()) * bytes * std::int64_t(c.size() - 1),
          std::int64_t(units.size() - own_records.size()) * bytes};
}

}  // namespace

DistributedTree::DistributedTree(std::shared_ptr<comm::Communicator> c, const GravityParams& g, const TreeParams& p)
    : comm_(std::move(c)), gravity_(g), params_(p) {}

void DistributedTree::pass(Mode mode, const std::vector<double>& x, const std::vector<double>& y,
                           const std::vector<double>& z, const std::vector<double>& m,
                           const std::vector<std::uint64_t>& id, const std::vector<std::uint64_t>& work,
                           const std::vector<double>* history, std::vector<double>& v0, std::vector<double>& v1,
                           std::vector<double>& v2, std::vector<std::uint64_t>& terms) {
  comm::Communicator& c = *comm_;
  const int p = c.size(), me = c.rank();
  const int n = static_cast<int>(x.size());
  const int leaf_size = std::max(1, params_.leaf_size), group = std::clamp(params_.group_size, 1, kMaxGroup);
  stats_ = {};
  stats_.owned_bodies = n;
  PhaseClock clock;

  // 1-2. The cube, the keys, the top tree and the units' owners.
  const KeyBox<double> box = global_bounding_cube(c, x.data(), y.data(), z.data(), n);
  std::vector<std::uint64_t> keys(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) keys[std::size_t(i)] = box.key(x[std::size_t(i)], y[std::size_t(i)], z[std::size_t(i)]);
  std::vector<std::int32_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    return keys[std::size_t(a)] != keys[std::size_t(b)] ? keys[std::size_t(a)] < keys[std::size_t(b)]
                                                        : id[std::size_t(a)] < id[std::size_t(b)];
  });
  {
    std::vector<std::uint64_t> sk(static_cast<std::size_t>(n)), sw(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k)
      sk[std::size_t(k)] = keys[std::size_t(order[k])], sw[std::size_t(k)] = work[std::size_t(order[k])];
    top_ = build_top_tree(c, box, sk, sw, min_unit_size(leaf_size, group));
  }
  const TopTree& top = top_;
  stats_.units = top.units();
  stats_.top_rounds = top.rounds;
  stats_.top_s = clock.lap();

  // 3. Every body to the rank of its unit; sorted there by (key, id).
  tree_owner_.resize(static_cast<std::size_t>(n));
  std::vector<std::int64_t> send_counts(std::size_t(p), 0);
  for (int i = 0; i < n; ++i) {
    tree_owner_[std::size_t(i)] = top.unit_owner[std::size_t(top.unit_of(keys[std::size_t(i)]))];
    ++send_counts[std::size_t(tree_owner_[std::size_t(i)])];
  }
  std::vector<std::int64_t> at(std::size_t(p), 0);
  for (int q = 1; q < p; ++q) at[std::size_t(q)] = at[std::size_t(q - 1)] + send_counts[std::size_t(q - 1)];
  std::vector<MovingBody> out_bodies(static_cast<std::size_t>(n));
  std::vector<std::int32_t> slot_of(static_cast<std::size_t>(n));  // packed slot -> owned body
  for (int i = 0; i < n; ++i) {
    const auto s = std::size_t(at[std::size_t(tree_owner_[std::size_t(i)])]++);
    out_bodies[s] = {x[std::size_t(i)],
                     y[std::size_t(i)],
                     z[std::size_t(i)],
                     m[std::size_t(i)],
                     history != nullptr ? (*history)[std::size_t(i)] : 0.0,
                     id[std::size_t(i)],
                     keys[std::size_t(i)]};
    slot_of[s] = i;
  }
  std::vector<std::int64_t> recv_counts;
  const auto in_bodies = c.alltoallv<MovingBody>(out_bodies, send_counts, &recv_counts);
  out_bodies = {};
  stats_.move_bytes_sent = bytes_to_others<MovingBody>(send_counts, me);
  stats_.move_bytes_received = bytes_to_others<MovingBody>(recv_counts, me);
  const int nt = static_cast<int>(in_bodies.size());
  std::vector<std::int32_t> origin(static_cast<std::size_t>(nt));  // sorted body -> received slot
  std::iota(origin.begin(), origin.end(), 0);
  std::sort(origin.begin(), origin.end(), [&](std::int32_t a, std::int32_t b) {
    const MovingBody &p1 = in_bodies[std::size_t(a)], &p2 = in_bodies[std::size_t(b)];
    return p1.key != p2.key ? p1.key < p2.key : p1.id < p2.id;
  });
  LocalTree lt;
  std::vector<std::uint64_t> tkeys(static_cast<std::size_t>(nt));
  std::vector<double> thistory(static_cast<std::size_t>(nt));
  lt.x.resize(static_cast<std::size_t>(nt)), lt.y.resize(static_cast<std::size_t>(nt)),
      lt.z.resize(static_cast<std::size_t>(nt)), lt.m.resize(static_cast<std::size_t>(nt));
  for (int k = 0; k < nt; ++k) {
    const MovingBody& b = in_bodies[std::size_t(origin[std::size_t(k)])];
    lt.x[std::size_t(k)] = b.x, lt.y[std::size_t(k)] = b.y, lt.z[std::size_t(k)] = b.z, lt.m[std::size_t(k)] = b.m;
    tkeys[std::size_t(k)] = b.key;
    thistory[std::size_t(k)] = b.history;
  }
  lt.own_bodies = nt;
  stats_.tree_bodies = nt;
  stats_.move_s = clock.lap();

  // 4. The subtrees of this rank's units, their multipoles, every unit's multipole, the top's.
  const auto mine = top.units_of(me);
  stats_.own_units = mine.second - mine.first;
  lt.t = top.cells;
  lt.top_cells = top.cells.size();
  const auto unit_bodies = build_own_subtrees(top, mine, tkeys, leaf_size, lt);
  Octree& t = lt.t;
  stats_.build_s = clock.lap();
  const auto unit_bytes = form_multipoles(c, top, mine, params_.theta, lt);
  stats_.multipoles_s = clock.lap();
  stats_.unit_bytes_received = unit_bytes.second;
  stats_.top_cells = lt.top_cells;
  stats_.own_cells = lt.own_cells_end - lt.top_cells;

  // 5. This rank's groups (the single-process groups of its units), each with its box and
  // smallest previous |a| as the walk takes them, and the walk's test: CpuTree's, relative where
  // the pass has a history (a group whose smallest |a| is 0 then takes the Barnes-Hut test inside
  // OpeningTest), Barnes-Hut otherwise.
  std::vector<std::pair<std::int32_t, std::int32_t>> groups;
  for (int u = mine.first; u < mine.second; ++u) {
    const auto [b, e] = unit_bodies[std::size_t(u - mine.first)];
    split_groups_in(tkeys.data(), b, e, t.level[top.unit_cell[std::size_t(u)]], group, groups);
  }
  std::vector<GroupQuery> queries(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto [b, e] = groups[g];
    const Box<double> box = group_box(lt.x.data(), lt.y.data(), lt.z.data(), b, e);
    double a_min = history != nullptr ? HUGE_VAL : 0.0;
    if (history != nullptr) {
      for (int k = b; k < e; ++k) a_min = std::min(a_min, thistory[std::size_t(k)]);
    }
    queries[g] = {box.cx, box.cy, box.cz, box.hx, box.hy, box.hz, a_min};
  }
  const OpeningTest<double> test = opening_test(gravity_, history != nullptr, params_.alpha);

  // 6. The locally essential tree: what this rank's groups open in the others' subtrees.
  const LetTraffic let = exchange_essential(c, top, test, queries, lt);
  stats_.let_bytes_sent = let.bytes_sent, stats_.let_bytes_received = let.bytes_received;
  stats_.let_cells_sent = let.cells_sent, stats_.let_bodies_sent = let.bodies_sent;
  stats_.remote_cells = t.size() - lt.own_cells_end;  // (a unit's own record fills its top cell)
  stats_.remote_bodies = let.bodies_received;
  stats_.peak_cells = t.size();
  stats_.peak_bodies = stats_.owned_bodies + stats_.tree_bodies + stats_.remote_bodies;
  stats_.exchange_s = clock.lap();

  // 7. The walk of this rank's groups, in the single-process code.
  std::vector<BodyResult> results(static_cast<std::size_t>(nt));  // by received slot
  const auto ngroups = static_cast<std::int64_t>(groups.size());
  const double G = gravity_.G;
  std::uint64_t m2p = 0, p2p = 0;
  int incomplete = 0;
  // (threads where the walk has enough work, as CpuTree's: about a thousand terms a target)
#pragma omp parallel reduction(+ : m2p, p2p, incomplete) if (parallel_pairs(nt, 1024))
  {
    InteractionList list;
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t g = 0; g < ngroups; ++g) {
      const auto [b, e] = groups[std::size_t(g)];
      const int count = e - b;
      const GroupQuery& q = queries[std::size_t(g)];
      if (!interaction_list(t, test, Box<double>{q.cx, q.cy, q.cz, q.hx, q.hy, q.hz}, q.a_min, list)) {
        ++incomplete;
        continue;
      }
      const std::uint64_t each = list.cells.size() + list.body_count();
      m2p += static_cast<std::uint64_t>(count) * list.cells.size();
      p2p += static_cast<std::uint64_t>(count) * list.body_count();
      alignas(64) double sx[kMaxGroup] = {}, sy[kMaxGroup] = {}, sz[kMaxGroup] = {};
      alignas(64) std::int32_t own[kMaxGroup];
      for (int k = 0; k < count; ++k) own[k] = b + k;
      const double *gx = lt.x.data() + b, *gy = lt.y.data() + b, *gz = lt.z.data() + b;
      if (mode == Mode::acceleration) {
        accumulate_accelerations(gravity_, list, lt.x.data(), lt.y.data(), lt.z.data(), lt.m.data(), count, gx, gy, gz,
                                 sx, sy, sz);
      } else {
        accumulate_potentials(gravity_, list, lt.x.data(), lt.y.data(), lt.z.data(), lt.m.data(), count, gx, gy, gz,
                              own, sx);
      }
      for (int k = 0; k < count; ++k) {
        results[std::size_t(origin[std::size_t(b + k)])] = {G * sx[k], G * sy[k], G * sz[k], each};
      }
    }
  }
  stats_.groups = static_cast<int>(groups.size());
  stats_.m2p = m2p, stats_.p2p = p2p;
  if (c.allreduce_max(double(incomplete)) > 0) {
    throw_runtime_error("distributed tree: a group's walk opened a cell whose children no rank sent (a bug)");
  }
  stats_.walk_s = clock.lap();

  // The results back to the bodies' owners, in the order they were sent.
  const auto back = c.alltoallv<BodyResult>(results, recv_counts);
  stats_.move_bytes_sent += bytes_to_others<BodyResult>(recv_counts, me);
  stats_.move_bytes_received += bytes_to_others<BodyResult>(send_counts, me);
  stats_.bytes_sent = stats_.move_bytes_sent + stats_.let_bytes_sent + unit_bytes.first;
  stats_.bytes_received = stats_.move_bytes_received + stats_.let_bytes_received + stats_.unit_bytes_received;
  v0.resize(static_cast<std::size_t>(n)), v1.resize(static_cast<std::size_t>(n)),
      v2.resize(static_cast<std::size_t>(n)), terms.resize(static_cast<std::size_t>(n));
  for (int s = 0; s < n; ++s) {
    const BodyResult& r = back[std::size_t(s)];
    const auto i = std::size_t(slot_of[std::size_t(s)]);
    v0[i] = r.v0, v1[i] = r.v1, v2[i] = r.v2, terms[i] = r.terms;
  }
  stats_.move_s += clock.lap();
  stats_.pass_s = clock.total();
}

template <class T>
std::vector<double> DistributedTree::history_of(const comm::OwnedBodies<T>& b, PreviousAccelerations<T> previous,
                                                bool& have) {
  double said[2] = {previous.known ? 1.0 : 0.0, previous.known ? -1.0 : 0.0};
  comm_->allreduce_max(said, 2);
  if (said[0] != -said[1]) {
    throw_input_error("tree relative criterion: some ranks hand in the previous accelerations and some do not");
  }
  std::vector<double> history;
  have = params_.criterion == Criterion::relative && previous.known;
  if (!have) return history;
  const std::size_t n = b.size();
  if (n > 0 && (previous.x == nullptr || previous.y == nullptr || previous.z == nullptr)) {
    throw_input_error("tree relative criterion: the previous accelerations are null");
  }
  history.resize(n);
  for (std::size_t i = 0; i < n; ++i) history[i] = history_value(previous.x[i], previous.y[i], previous.z[i]);
  return history;
}

template <class T>
void DistributedTree::accelerations(comm::OwnedBodies<T>& b, Vec3Span<T> out, PreviousAccelerations<T> previous) {
  const std::size_t n = b.size();
  std::vector<std::uint64_t> work(b.work);
  work.resize(n, 1);
  bool have = false;
  const std::vector<double> history = history_of(b, previous, have);
  std::vector<double> ax, ay, az;
  std::vector<std::uint64_t> terms;
  pass(Mode::acceleration, widen(b.p.x), widen(b.p.y), widen(b.p.z), widen(b.p.m), b.p.id, work,
       have ? &history : nullptr, ax, ay, az, terms);
  for (std::size_t i = 0; i < n; ++i) {
    out.x[i] = static_cast<T>(ax[i]);
    out.y[i] = static_cast<T>(ay[i]);
    out.z[i] = static_cast<T>(az[i]);
  }
  b.work.resize(n);
  for (std::size_t i = 0; i < n; ++i) b.work[i] = std::max<std::uint64_t>(terms[i], 1);
}

template <class T>
void DistributedTree::potentials(const comm::OwnedBodies<T>& b, double* phi, PreviousAccelerations<T> previous) {
  const std::size_t n = b.size();
  std::vector<std::uint64_t> work(b.work);
  work.resize(n, 1);
  bool have = false;
  const std::vector<double> history = history_of(b, previous, have);
  std::vector<double> v0, v1, v2;
  std::vector<std::uint64_t> terms;
  pass(Mode::potential, widen(b.p.x), widen(b.p.y), widen(b.p.z), widen(b.p.m), b.p.id, work, have ? &history : nullptr,
       v0, v1, v2, terms);
  std::copy(v0.begin(), v0.end(), phi);
}

template <class T>
double DistributedTree::potential_energy(const comm::OwnedBodies<T>& b, PreviousAccelerations<T> previous) {
  const std::size_t n = b.size();
  std::vector<double> phi(n), m(n);
  potentials(b, phi.data(), previous);
  for (std::size_t i = 0; i < n; ++i) m[i] = double(b.p.m[i]);
  const std::span<const double> fields[2] = {m, phi};
  const auto block = comm::to_id_block<double>(*comm_, b.n_total, b.p.id, fields, 1);
  const auto w = comm::chained_sum(*comm_, {0.0}, [&](std::vector<double>& run) {
    for (std::size_t k = 0; k < block[0].size(); ++k) run[0] += block[0][k] * block[1][k];
  });
  return 0.5 * w[0];
}

#define NBODY_INSTANTIATE(T)                                                                                     \
  template void DistributedTree::accelerations<T>(comm::OwnedBodies<T>&, Vec3Span<T>, PreviousAccelerations<T>); \
  template void DistributedTree::potentials<T>(const comm::OwnedBodies<T>&, double*, PreviousAccelerations<T>);  \
  template double DistributedTree::potential_energy<T>(const comm::OwnedBodies<T>&, PreviousAccelerations<T>);
NBODY_INSTANTIATE(float)
NBODY_INSTANTIATE(double)
#undef NBODY_INSTANTIATE

}  // namespace nbody::gravity::tree
