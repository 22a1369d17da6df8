#pragma once
// The diagnostics of rank-owned bodies (comm/owned_bodies.hpp), reduced across ranks in a fixed
// order that does not depend on the number of ranks: every body's mass, position and velocity go
// to the rank of its id block, and the sums run along the ranks in id order (comm::chained_sum)
// with the single-process arithmetic (particles::MomentTerms, serial in index order): the same
// bits as one process, on any number of ranks.
#include "comm/communicator.hpp"
#include "comm/owned_bodies.hpp"
#include "nbody/diagnostics.hpp"

namespace nbody {

// Mass, kinetic energy, momentum, angular momentum and the mass moment (centre of mass) of every
// body of the run; the same value on every rank. Collective.
template <class T>
[[nodiscard]] Moments owned_moments(comm::Communicator& c, const comm::OwnedBodies<T>& b);

}  // namespace nbody
