#pragma once
// Many small systems in one structure-of-arrays store: the bodies of system k are
// [offset[k], offset[k+1]); each system carries its own time, step, counters and outcome.
#include <cstdint>
#include <string>
#include <vector>

#include "ensemble/system_step.hpp"

namespace nbody::ensemble {

struct EnsembleStore {
  std::vector<std::int64_t> offset{0};  // systems + 1 entries
  std::vector<double> x, y, z, vx, vy, vz, m;
  std::vector<SystemState> state;  // one per system

  [[nodiscard]] std::int64_t systems() const { return std::int64_t(offset.size()) - 1; }
  [[nodiscard]] std::int64_t bodies() const { return offset.back(); }
  [[nodiscard]] int size_of(std::int64_t k) const { return int(offset[std::size_t(k) + 1] - offset[std::size_t(k)]); }
  [[nodiscard]] int largest_system() const;

  // Appends a system of these bodies (its state at t = 0, running).
  void add_system(const std::vector<double>& mass, const std::vector<double>& pos, const std::vector<double>& vel);
  // System k alone, as a store of one system (the test of "the same bits as alone").
  [[nodiscard]] EnsembleStore single(std::int64_t k) const;
};

// Work arrays for the systems a CPU thread or the GPU integrates (kScratchArrays per body, and
// IAS15's kIas15Arrays in one block).
inline constexpr int kScratchArrays = 25;
struct Scratch {
  std::vector<double> a[kScratchArrays];
  std::vector<double> ias;  // kIas15Arrays x a[0].size()
  void reserve(std::size_t bodies) {
    for (auto& v : a) v.resize(bodies);
    ias.resize(std::size_t(kIas15Arrays) * bodies);
  }
};

// The SystemRef of system k: the store's bodies, the work arrays from `work` (at least its size).
SystemRef system_ref(EnsembleStore& s, std::int64_t k, Scratch& work);

// How many systems are in each outcome (kOutcomes entries).
std::vector<std::int64_t> outcome_counts(const EnsembleStore& s);

}  // namespace nbody::ensemble
