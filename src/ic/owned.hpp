#pragma once
// Initial conditions drawn by every rank for its own bodies (no rank makes all N): rank r draws
// the id block comm::block_of(n, P, r) through the counter-based streams (ic/ic.hpp,
// draw_bodies), so the bodies have the bits of the whole model's. A model's global steps need
// sums over every body: the centring of shell and expand runs as chained sums in id order
// (comm/chained_sum.hpp), with one process's bits. The models scaled to Henon units (plummer,
// king, hernquist, the galaxies, uniform-sphere) need the potential energy of the whole set
// before their bodies are final, and are refused here for now (an input error naming the model).
#include "comm/communicator.hpp"
#include "comm/owned_bodies.hpp"
#include "ic/ic.hpp"

namespace nbody {

// This rank's id block of the model, in the run's unit system and precision, work 1. Collective.
template <class T>
[[nodiscard]] comm::OwnedBodies<T> draw_owned_bodies(comm::Communicator& c, const IcRequest& request);

}  // namespace nbody
