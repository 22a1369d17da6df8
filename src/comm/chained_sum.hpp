#pragma once
// Sums over every rank's items in one global order, with the bits of one process adding them in
// that order: rank 0 adds its items to the running values, sends them to rank 1, which adds its
// items, ..., and the last rank broadcasts the result. P - 1 hops of a few values each: meant for
// the diagnostics (not every step), where a rank's items are its id block, so that the result
// does not depend on the number of ranks.
#include <functional>
#include <vector>

#include "comm/communicator.hpp"

namespace nbody::comm {

// `add_mine` adds this rank's items, in order, to the running values it is handed. Collective;
// every rank returns the same values.
[[nodiscard]] std::vector<double> chained_sum(Communicator& c, std::vector<double> running,
                                              const std::function<void(std::vector<double>&)>& add_mine);

}  // namespace nbody::comm
