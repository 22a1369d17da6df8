#pragma once
// The locally essential tree's exchange: what of its units each rank sends to each other rank.
//
// A rank's tree (distributed_tree.hpp) holds the top cells (the same on every rank), the whole
// subtrees of its own units and, after this exchange, the parts of the other ranks' subtrees its
// groups need. For a peer q the sender walks its own subtrees with the opening test of the pass
// against the bounding box of each of q's units (the box of the unit's bodies, which holds the
// box of every target group of the unit): every cell that walk opens has its children sent (an
// opened leaf, its bodies), each child with its geometry, multipole and opening radius, bits as
// computed by the owner. The Barnes-Hut test (with the spline law's near test) opens a cell for a
// box whenever it opens it for a box inside it, so a group's walk on q opens only cells whose
// children (or bodies) q received, and accepts the multipoles it would accept on one process;
// cells the walk does not reach are not sent. Conservative (a unit's box opens more than its
// groups' boxes would) but exact, in one round: no request and answer.
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
  std::int64_t cells_sent = 0, bodies_sent = 0, cells_received = 0, bodies_received = 0;
  std::int64_t bytes_sent = 0, bytes_received = 0;  // to / from other ranks
};

// What the walks of a unit's groups may open, for the sender's test: a cell is sent opened when
// the unit's box opens it with the Barnes-Hut test (where a body of the unit has no previous
// |a|, or the pass has no history) or with the relative test at the smallest positive previous
// |a| of its bodies. Both tests open a cell for a box whenever they open it for a box inside it,
// and the relative one whenever for a larger |a|, so each group's test (relative at its own
// smallest |a|, or Barnes-Hut where that is 0) opens no cell the unit's test accepts.
struct UnitOpening {
  OpeningTest<double> barnes_hut, relative;
  std::vector<Box<double>> box;            // per unit: its bodies' bounding box
  std::vector<double> a_min;               // per unit: its bodies' smallest positive previous |a| (0: none)
  std::vector<std::uint8_t> any_unknown;   // per unit: a body without a previous |a|
  [[nodiscard]] bool opens(int unit, const CellView<double>& c) const {
    const auto u = std::size_t(unit);
    return (any_unknown[u] != 0 && barnes_hut.opens(box[u], 0.0, c)) ||
           (a_min[u] > 0.0 && relative.opens(box[u], a_min[u], c));
  }
};

// Sends every peer the cells and bodies its walk needs (two alltoallv: cell records, bodies) and
// appends what this rank receives to `lt` (unit cells filled in place, their subtrees appended,
// the cells whose children or bodies were not sent marked pruned). Collective.
LetTraffic exchange_essential(comm::Communicator& c, const TopTree& top, const UnitOpening& opening, LocalTree& lt);

}  // namespace nbody::gravity::tree
