#pragma once
// The relative criterion's history in a checkpoint (the CPU and the GPU tree alike): |a| of every
// body, float64 by body index, under the tag kHistoryTag, that the resumed run's first pass opens
// cells by: the last pass's where that first pass is the next one, the history the last pass read
// where the resumed run makes the last pass again (ForceSolver::save_state). Without it a resumed
// run's first pass would fall back to Barnes-Hut and open other cells than the uninterrupted
// run's pass did.
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "gravity/tree/params.hpp"
#include "nbody/checkpoint.hpp"
#include "nbody/error.hpp"

namespace nbody::gravity::tree {

inline constexpr const char* kHistoryTag = "tree-relative |a|";

// The state to save: the history where the relative criterion has one, else nothing.
[[nodiscard]] inline TaggedBlob save_history(const TreeParams& p, const std::vector<double>& history) {
  TaggedBlob b;
  if (p.criterion != Criterion::relative || history.empty()) return b;
  b.tag = kHistoryTag;
  b.bytes.resize(history.size() * sizeof(double));
  std::memcpy(b.bytes.data(), history.data(), b.bytes.size());
  return b;
}

// The history in `state` for n bodies; nothing where the state is another's (or none) or the
// tree does not use it (Barnes-Hut); an input error where it does not hold n finite values >= 0.
[[nodiscard]] inline std::optional<std::vector<double>> restored_history(const TreeParams& p, const TaggedBlob& state,
                                                                         std::size_t n) {
  if (state.tag != kHistoryTag || p.criterion != Criterion::relative) return std::nullopt;
  if (state.bytes.size() != n * sizeof(double)) {
    throw_input_error("checkpoint: the tree's |a| history holds " + std::to_string(state.bytes.size()) +
                      " bytes, not one float64 for each of the " + std::to_string(n) + " bodies");
  }
  std::vector<double> h(n);
  std::memcpy(h.data(), state.bytes.data(), state.bytes.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(h[i]) || h[i] < 0) {
      throw_input_error("checkpoint: the tree's |a| history of body " + std::to_string(i) + " is not a finite value >= 0");
    }
  }
  return h;
}

}  // namespace nbody::gravity::tree
