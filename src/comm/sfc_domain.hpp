#pragma once
// Bodies owned by ranks: a domain decomposition along the Morton curve of the tree's keys
// (core/morton_keys.hpp) into P contiguous ranges of (key, id), balanced by a per-body work
// estimate. A pure function of the multiset of (key, id, work) over every rank and of P: the
// same ranges whatever rank held which body before, and ties between bodies of one key broken by
// id. Found by a bisection on the curve in which every step is one exchange of P - 1 integer
// partial sums (no body is gathered; integer sums have no order to fix).
//
// Why Morton and not Hilbert: the tree's keys are Morton keys (core/morton_keys.hpp), so the
// bodies a rank owns are a contiguous run of the order the tree sorts them in, and every octree
// cell inside a rank's range is whole on that rank; only the cells holding one of the P - 1
// splitters are cut. (The distributed tree will round the splitters to cell boundaries of the
// global coarse tree, as Cornerstone assigns whole leaves, so that no cell is cut.) A Hilbert
// curve cuts domains with less surface (consecutive Hilbert cells are face neighbours, so fewer
// halo cells), which is why Cornerstone and GADGET-4 use it; switching means changing the key
// function of the tree and of the domain together, and is left for when halos are measured.
#include <compare>
#include <cstdint>
#include <span>
#include <vector>

#include "comm/communicator.hpp"
#include "core/morton_keys.hpp"

namespace nbody::comm {

// A place on the curve: bodies are ordered by key, then by id.
struct SfcPoint {
  std::uint64_t key = 0;
  std::uint64_t id = 0;
  auto operator<=>(const SfcPoint&) const = default;
};

// Rank r owns the points [first[r], first[r + 1]) (the last rank up to the end of the curve);
// first[0] is the start of the curve. Ranges may be empty.
struct SfcDomain {
  std::vector<SfcPoint> first;
  sfc::KeyBox<double> box{0, 0, 0, 1};  // the cube the keys are taken on
  [[nodiscard]] int ranks() const noexcept { return static_cast<int>(first.size()); }
  [[nodiscard]] int owner(SfcPoint p) const noexcept;
  bool operator==(const SfcDomain&) const = default;
};

// The smallest cube holding every rank's positions (collective; exact: maxima only), widened by a
// relative 2^-20 so that the bodies on the upper faces fall inside the key grid.
[[nodiscard]] sfc::KeyBox<double> global_key_box(Communicator& c, std::span<const double> x,
                                                           std::span<const double> y, std::span<const double> z);

// The decomposition of the bodies every rank holds (keys, ids and work of its bodies, in any
// order; a work of 0 counts as 1) into c.size() ranges: the range of rank r starts at the body
// whose inclusion takes the work before it past floor(W r / P), so every rank's work is within
// one body's work of W / P. Collective.
[[nodiscard]] SfcDomain decompose(Communicator& c, std::span<const std::uint64_t> keys,
                                  std::span<const std::uint64_t> ids, std::span<const std::uint64_t> work,
                                  const sfc::KeyBox<double>& box);

// The work each rank holds and the imbalance: the largest rank's work over the mean (1 when
// balanced). Collective; every rank gets the same values.
struct Balance {
  std::vector<std::uint64_t> work;  // per rank
  double imbalance = 1.0;
};
[[nodiscard]] Balance measure_balance(Communicator& c, std::span<const std::uint64_t> work);

// Element-wise integer sums over the ranks (exact; every rank gets them). Collective.
[[nodiscard]] std::vector<std::uint64_t> allreduce_sum_u64(Communicator& c, std::span<const std::uint64_t> mine);

}  // namespace nbody::comm
