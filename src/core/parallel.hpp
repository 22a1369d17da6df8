#pragma once
#include <cstdint>

namespace nbody {

// Below these sizes a loop runs on one thread: starting a parallel region costs microseconds
// (much more when the machine is oversubscribed), more than the loop's own work.
inline constexpr std::int64_t kParallelMinPairsTargets = 64;     // O(N^2) loops: targets
inline constexpr std::int64_t kParallelMinElements = 1 << 16;    // O(N) loops: elements

}  // namespace nbody
