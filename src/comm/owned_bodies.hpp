#pragma once
// The bodies a rank owns (comm/sfc_domain.hpp) and how they move between ranks: migration to the
// owners of their keys (one MPI_Alltoallv of packed bodies), redistribution by id into the
// contiguous id blocks that the streamed direct sum and the diagnostics sum over in global id
// order, and the gather to / scatter from rank 0 of checkpoints (the existing checkpoint format:
// the whole state in id order). Ids are the bodies' indices 0..n-1 of the run (what the initial
// conditions, the files and the checkpoints give them).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "comm/sfc_domain.hpp"
#include "nbody/particles.hpp"

namespace nbody::comm {

template <class T>
struct OwnedBodies {
  Particles<T> p;                   // ids, masses, positions, velocities, components
  std::vector<std::uint64_t> work;  // the work estimate of each body (interactions of its last force pass; 1 unknown)
  // Per-body state that travels with the body (an integrator's accelerations, a tree's |a|
  // history): extra[f][i] for field f of body i.
  std::vector<std::vector<T>> extra;
  std::int64_t n_total = 0;  // bodies over every rank

  [[nodiscard]] std::size_t size() const noexcept { return p.size(); }
};

// Body i's place on the curve of `d`'s key box.
template <class T>
[[nodiscard]] SfcPoint curve_point(const OwnedBodies<T>& b, const SfcDomain& d, std::size_t i);

// What migrate and rebalance did (for logs and the benchmark).
struct MigrationStats {
  std::int64_t sent = 0;        // bodies this rank sent to another rank
  std::int64_t bytes_sent = 0;  // their packed bytes
  bool redecomposed = false;
  double imbalance_before = 1.0;
  double imbalance_after = 1.0;
};

// Sends body i to rank dest[i] (one alltoallv of packed records: id, component, work, mass,
// position, velocity, the extra fields); the bodies this rank keeps stay first in their order,
// those received follow in rank order. Collective.
template <class T>
MigrationStats migrate(Communicator& c, OwnedBodies<T>& b, std::span<const int> dest);

// Sorts a rank's bodies by their curve points (key, then id): the order the tree builds on.
template <class T>
void sort_by_curve(OwnedBodies<T>& b, const SfcDomain& d);

// The step between force passes: when `domain` has no ranges yet, or the measured imbalance of the
// work the bodies carry exceeds `threshold` (largest rank over the mean; e.g. 1.1), the bodies are
// decomposed again (a new key box and ranges); then every body goes to the owner of its point
// and each rank's bodies are sorted by curve. A threshold below 1 (or NaN) is an input error.
// Collective.
template <class T>
MigrationStats rebalance(Communicator& c, OwnedBodies<T>& b, SfcDomain& domain, double threshold);

// ---- id blocks ----
// Rank r's block of ids: comm::block_of over tiles of `align` ids (the last tile short), so that
// every block starts at a multiple of `align`.
[[nodiscard]] Block id_block(std::int64_t n, int ranks, int rank, std::int64_t align);

// The values of `fields` (each one value per owned body) in this rank's id block, in id order:
// out[f][k] is field f of body block.first + k. Collective (one alltoallv of ids, one of values).
template <class T>
[[nodiscard]] std::vector<std::vector<T>> to_id_block(Communicator& c, std::int64_t n, std::span<const std::uint64_t> ids,
                                                      std::span<const std::span<const T>> fields, std::int64_t align);

// ---- checkpoints ----
// Every body to `root`, in id order there (the whole state, as a checkpoint holds it); the other
// ranks get an empty set. component_names are root's. Collective.
template <class T>
[[nodiscard]] Particles<T> gather_in_id_order(Communicator& c, const OwnedBodies<T>& b, int root = 0);
// The inverse for a resume on any number of ranks: root's whole state (ids 0..n-1 in any order)
// dealt out in id blocks (comm::block_of), work 1; rebalance() then moves the bodies to their
// owners. n and the component names reach every rank. Collective.
template <class T>
[[nodiscard]] OwnedBodies<T> scatter_id_blocks(Communicator& c, const Particles<T>& whole, int root = 0);

}  // namespace nbody::comm
