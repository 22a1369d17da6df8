#pragma once
// Load balance of the PIC slabs along x (pic/domain.hpp, docs/pic.md "Load balance").
#include <vector>

namespace nbody::pic {

// Load balance along x (docs/pic.md, "Load balance"): every `every` steps (0: never) each
// column's cost is counted, cost = its mobile particles + cell_cost x its cells; when the
// costliest slab exceeds the mean by more than `threshold` (a fraction) the columns are split
// again so that the slabs' costs are as even as whole columns allow, and the fields and
// particles move to their new owners. Changes no result: a run gives the same bits with and
// without it (deterministic deposition), and checkpoints do not depend on it.
struct BalanceSettings {
  int every = 0;
  double threshold = 0.1;
  double cell_cost = 1.0;
};
// New slab starts for `ranks` slabs of at least min_width columns over cost.size() columns: the
// r-th boundary where the running cost is nearest r/ranks of the total (then moved the least
// that keeps every slab min_width wide).
std::vector<int> balanced_starts(const std::vector<double>& cost, int ranks, int min_width);
// The costliest slab's cost over the mean slab cost (1: even; 1 for a zero total).
double slab_imbalance(const std::vector<double>& cost, const std::vector<int>& starts);

}  // namespace nbody::pic
