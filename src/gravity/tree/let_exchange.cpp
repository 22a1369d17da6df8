// The locally essential tree's exchange (let_exchange.hpp).
#include "gravity/tree/let_exchange.hpp"

#include <algorithm>
#include <span>
#include <string>
#include <type_traits>

#include "nbody/error.hpp"

namespace nbody::gravity::tree {
namespace {

// One cell as sent: the unit it belongs to, its parent among that unit's records (-1: the unit's
// own cell, which the receiver holds in its top), and what the receiver's walk reads of it.
struct CellRecord {
  std::int64_t unit;
  std::int32_t parent;
  std::int32_t level;
  std::int32_t count;     // its bodies (over its whole subtree)
  std::uint8_t leaf;      // a leaf of the tree
  std::uint8_t complete;  // its children (a leaf: its `count` bodies) follow
  std::uint8_t pad[2];
  double cx, cy, cz, half, m, mx, my, mz, qxx, qxy, qxz, qyy, qyz, qzz, tr, rcrit2;
};
static_assert(std::is_trivially_copyable_v<CellRecord>);

struct BodyRecord {
  double x, y, z, m;
};

CellRecord record(const Octree& t, int c, std::int64_t unit, std::int32_t parent, bool complete) {
  CellRecord r{};
  r.unit = unit, r.parent = parent, r.level = t.level[c], r.count = t.body_count[c];
  r.leaf = t.leaf(c) ? 1 : 0, r.complete = complete ? 1 : 0;
  r.cx = t.cx[c], r.cy = t.cy[c], r.cz = t.cz[c], r.half = t.half[c];
  r.m = t.m[c], r.mx = t.mx[c], r.my = t.my[c], r.mz = t.mz[c];
  r.qxx = t.qxx[c], r.qxy = t.qxy[c], r.qxz = t.qxz[c], r.qyy = t.qyy[c], r.qyz = t.qyz[c], r.qzz = t.qzz[c];
  r.tr = t.tr[c], r.rcrit2 = t.rcrit2[c];
  return r;
}

Box<double> box_of(const GroupQuery& q) { return {q.cx, q.cy, q.cz, q.hx, q.hy, q.hz}; }

// Marks (opened[c] = 1) the cells of this rank's units and subtrees that the walk of group `q`
// opens (it stops at the other ranks' units and at the cells it accepts).
void mark_opened(const LocalTree& lt, const TopTree& top, int me, const OpeningTest<double>& test, const GroupQuery& q,
                 std::vector<std::uint8_t>& opened, std::vector<int>& stack) {
  const Octree& t = lt.t;
  const Box<double> box = box_of(q);
  stack.assign(1, 0);
  while (!stack.empty()) {
    const int c = stack.back();
    stack.pop_back();
    if (!test.opens(box, q.a_min, t.cell(c))) continue;  // accepted: the multipole, sent with its parent
    if (c < lt.top_cells) {
      const int u = top.cell_unit[std::size_t(c)];
      if (u >= 0) {
        if (top.unit_owner[std::size_t(u)] != me) continue;  // another rank's unit: its owner answers
        opened[std::size_t(c)] = 1;
      }
    } else {
      opened[std::size_t(c)] = 1;
    }
    if (!t.leaf(c)) {
      for (int k = t.child_begin[c] + t.child_count[c] - 1; k >= t.child_begin[c]; --k) stack.push_back(k);
    }
  }
}

// The ranks (other than this one) owning a unit that the walk of group `q` opens: a walk over
// the top cells alone, which every rank holds alike.
void ranks_reached(const LocalTree& lt, const TopTree& top, int me, const OpeningTest<double>& test,
                   const GroupQuery& q, std::vector<int>& stack, std::vector<int>& ranks) {
  const Octree& t = lt.t;
  const Box<double> box = box_of(q);
  ranks.clear();
  stack.assign(1, 0);
  while (!stack.empty()) {
    const int c = stack.back();
    stack.pop_back();
    if (!test.opens(box, q.a_min, t.cell(c))) continue;
    const int u = top.cell_unit[std::size_t(c)];
    if (u >= 0) {
      const int r = top.unit_owner[std::size_t(u)];
      if (r != me && std::find(ranks.begin(), ranks.end(), r) == ranks.end()) ranks.push_back(r);
      continue;
    }
    for (int k = t.child_begin[c] + t.child_count[c] - 1; k >= t.child_begin[c]; --k) stack.push_back(k);
  }
}

// Appends to `cells` and `bodies` this rank's part for one peer: per own unit the peer's walk
// opens, the unit's record, then breadth first the children of every opened cell.
void pack_for_peer(const LocalTree& lt, const TopTree& top, std::pair<int, int> mine,
                   const std::vector<std::uint8_t>& opened, std::vector<CellRecord>& cells,
                   std::vector<BodyRecord>& bodies) {
  const Octree& t = lt.t;
  auto add_bodies = [&](int c) {
    for (int j = t.body_begin[c]; j < t.body_begin[c] + t.body_count[c]; ++j)
      bodies.push_back({lt.x[j], lt.y[j], lt.z[j], lt.m[j]});
  };
  std::vector<std::pair<int, std::int32_t>> queue;  // (cell, its record's index in the unit's batch)
  for (int u = mine.first; u < mine.second; ++u) {
    const int uc = top.unit_cell[std::size_t(u)];
    if (opened[std::size_t(uc)] == 0) continue;
    const std::size_t base = cells.size();
    cells.push_back(record(t, uc, u, -1, true));
    if (t.leaf(uc)) add_bodies(uc);
    queue.assign(1, {uc, 0});
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const int c = queue[head].first;
      if (t.leaf(c)) continue;
      for (int k = t.child_begin[c]; k < t.child_begin[c] + t.child_count[c]; ++k) {
        const bool open = opened[std::size_t(k)] != 0;
        cells.push_back(record(t, k, u, queue[head].second, open));
        if (open && t.leaf(k)) add_bodies(k);
        if (open && !t.leaf(k)) queue.emplace_back(k, static_cast<std::int32_t>(cells.size() - 1 - base));
      }
    }
  }
}

}  // namespace

LetTraffic exchange_essential(comm::Communicator& c, const TopTree& top, const OpeningTest<double>& test,
                              const std::vector<GroupQuery>& groups, LocalTree& lt) {
  const int p = c.size(), me = c.rank();
  LetTraffic traffic;
  // 1. Each group to the ranks whose units its walk opens.
  std::vector<std::vector<GroupQuery>> to(static_cast<std::size_t>(p));
  std::vector<int> stack, ranks;
  for (const GroupQuery& q : groups) {
    ranks_reached(lt, top, me, test, q, stack, ranks);
    for (int r : ranks) to[std::size_t(r)].push_back(q);
  }
  std::vector<GroupQuery> queries;
  std::vector<std::int64_t> query_counts(std::size_t(p), 0);
  for (int r = 0; r < p; ++r) {
    query_counts[std::size_t(r)] = static_cast<std::int64_t>(to[std::size_t(r)].size());
    queries.insert(queries.end(), to[std::size_t(r)].begin(), to[std::size_t(r)].end());
  }
  to = {};
  std::vector<std::int64_t> asked_counts;
  const auto asked = c.alltoallv<GroupQuery>(queries, query_counts, &asked_counts);
  traffic.queries_sent = static_cast<std::int64_t>(queries.size());
  traffic.queries_received = static_cast<std::int64_t>(asked.size());

  // 2. Each peer's groups walked over this rank's subtrees; the cells they open, packed.
  const auto mine = top.units_of(me);
  std::vector<CellRecord> cells;
  std::vector<BodyRecord> bodies;
  std::vector<std::int64_t> cell_counts(std::size_t(p), 0), body_counts(std::size_t(p), 0);
  std::vector<std::uint8_t> opened;
  std::size_t next = 0;
  for (int q = 0; q < p; ++q) {
    const auto n = static_cast<std::size_t>(asked_counts[std::size_t(q)]);
    if (n == 0) continue;
    opened.assign(std::size_t(lt.t.size()), 0);
    for (std::size_t k = 0; k < n; ++k) mark_opened(lt, top, me, test, asked[next + k], opened, stack);
    next += n;
    const std::size_t c0 = cells.size(), b0 = bodies.size();
    pack_for_peer(lt, top, mine, opened, cells, bodies);
    cell_counts[std::size_t(q)] = static_cast<std::int64_t>(cells.size() - c0);
    body_counts[std::size_t(q)] = static_cast<std::int64_t>(bodies.size() - b0);
  }
  const auto in_cells = c.alltoallv<CellRecord>(cells, cell_counts);
  const auto in_bodies = c.alltoallv<BodyRecord>(bodies, body_counts);

  traffic.cells_sent = static_cast<std::int64_t>(cells.size());
  traffic.bodies_sent = static_cast<std::int64_t>(bodies.size());
  traffic.cells_received = static_cast<std::int64_t>(in_cells.size());
  traffic.bodies_received = static_cast<std::int64_t>(in_bodies.size());
  constexpr auto qb = std::int64_t(sizeof(GroupQuery)), cb = std::int64_t(sizeof(CellRecord)),
                 bb = std::int64_t(sizeof(BodyRecord));
  traffic.bytes_sent = traffic.queries_sent * qb + traffic.cells_sent * cb + traffic.bodies_sent * bb;
  traffic.bytes_received = traffic.queries_received * qb + traffic.cells_received * cb + traffic.bodies_received * bb;

  // Rebuild: a unit's record fills its top cell; the others become cells, each the next child of
  // its parent (children arrive together, in octant order).
  Octree& t = lt.t;
  std::size_t next_body = 0;
  std::vector<int> batch;  // the cell of each record of the current unit
  auto take_bodies = [&](int cell, std::int32_t n) {
    if (next_body + std::size_t(n) > in_bodies.size())
      throw_runtime_error("distributed tree: fewer bodies received than their cells announce");
    t.body_begin[cell] = static_cast<std::int32_t>(lt.x.size());
    for (std::int32_t j = 0; j < n; ++j, ++next_body) {
      const BodyRecord& b = in_bodies[next_body];
      lt.x.push_back(b.x), lt.y.push_back(b.y), lt.z.push_back(b.z), lt.m.push_back(b.m);
    }
  };
  for (const CellRecord& r : in_cells) {
    if (r.parent < 0) {
      const int cell = top.unit_cell[std::size_t(r.unit)];
      batch.assign(1, cell);
      t.pruned[cell] = 0;
      if (r.leaf != 0) take_bodies(cell, r.count);
      continue;
    }
    const int parent = batch.at(std::size_t(r.parent));
    const int cell = t.size();
    if (t.child_count[parent] == 0) t.child_begin[parent] = cell;
    t.child_count[parent] += 1;
    t.push(-1, r.count, r.level, r.cx, r.cy, r.cz, r.half);
    t.m.push_back(r.m), t.mx.push_back(r.mx), t.my.push_back(r.my), t.mz.push_back(r.mz);
    t.qxx.push_back(r.qxx), t.qxy.push_back(r.qxy), t.qxz.push_back(r.qxz);
    t.qyy.push_back(r.qyy), t.qyz.push_back(r.qyz), t.qzz.push_back(r.qzz);
    t.tr.push_back(r.tr), t.rcrit2.push_back(r.rcrit2);
    // A cell is pruned unless its children or bodies came: an internal cell received without
    // them would otherwise look like an empty leaf.
    t.pruned.push_back(r.complete != 0 ? 0 : 1);
    batch.push_back(cell);
    if (r.complete != 0 && r.leaf != 0) take_bodies(cell, r.count);
  }
  if (next_body != in_bodies.size())
    throw_runtime_error("distributed tree: more bodies received than their cells announce");
  return traffic;
}

}  // namespace nbody::gravity::tree
