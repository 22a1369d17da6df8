#pragma once
// The locally essential tree's exchange: what of its units each rank sends to each other rank.
//
// A rank's tree (distributed_tree.hpp) holds the top cells (the same on every rank), the whole
// subtrees of its own units and, after this exchange, exactly the parts of the other ranks'
// subtrees that the walks of its groups open. One round in two steps:
//  1. Queries: each rank walks the top cells with each of its groups (the group's box and
//     smallest previous |a|, the walk's own test); a group whose walk opens a unit of rank r is
//     sent to r (56 bytes; one alltoallv). Top cells are the same everywhere, so the group's walk
//     reaches r's subtrees exactly when this says so.
//  2. Answers: each rank walks its own subtrees with every group it received, with the same test
//     and data the group's walk on its own rank will use, and sends back, for every cell such a
//     walk opens, its children (geometry, multipole, opening radius: bits as computed by the
//     owner) or, for a leaf, its bodies (two alltoallv: cell records, bodies).
// What a rank receives is therefore the union of what its groups' walks open in the others'
// subtrees, no more: no conservative test is involved, so nothing about the criterion (Barnes-Hut,
// relative, the spline law's near test) needs to be monotone.
#include <cstdint>
#include <vector>

#include "comm/communicator.hpp"
#include "gravity/tree/cpu_tree.hpp"
#include "gravity/tree/top_tree.hpp"

namespace nbody::gravity::tree {

// A rank's part of the tree: the top cells, then its units' subtrees, then what it received;
// bodies: its own units' bodies in key order, then the received ones.
struct LocalTree {
  Octree t;
  int top_cells = 0;
  int own_cells_end = 0;  // cells [top_cells, own_cells_end) are this rank's subtrees
  std::vector<double> x, y, z, m;
  int own_bodies = 0;  // bodies [0, own_bodies) are this rank's
};

struct LetTraffic {
  std::int64_t queries_sent = 0, queries_received = 0;
  std::int64_t cells_sent = 0, bodies_sent = 0, cells_received = 0, bodies_received = 0;
  std::int64_t bytes_sent = 0, bytes_received = 0;  // to / from other ranks
};

// A target group as its walk sees it: its box and its smallest previous |a| (0: none).
struct GroupQuery {
  double cx, cy, cz, hx, hy, hz;
  double a_min;
};

// Sends every peer the groups whose walks open its units, answers the peers' groups with the cells
// and bodies their walks open here, and appends what this rank receives to `lt` (unit cells
// filled in place, their subtrees appended, the cells whose children or bodies were not sent
// marked pruned). `groups`: this rank's groups; `test`: the walk's. Collective.
LetTraffic exchange_essential(comm::Communicator& c, const TopTree& top, const OpeningTest<double>& test,
                              const std::vector<GroupQuery>& groups, LocalTree& lt);

}  // namespace nbody::gravity::tree
