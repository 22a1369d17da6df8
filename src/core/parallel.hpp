#pragma once
// When a loop runs on several OpenMP threads. Starting a parallel region and joining it costs
// microseconds on an idle machine and milliseconds when the cores are shared (a thread that is
// not scheduled holds the others at the barrier), so a region is worth it only for enough work.
// The program also makes OpenMP's idle threads yield their core (see src/cli/main.cpp: passive
// wait policy unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set) and takes --threads.
#include <omp.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace nbody {

// O(N^2) loops (targets x sources pair terms): a region needs this many pair terms, about
// half a millisecond of one core's work, and at least two targets to share.
inline constexpr std::int64_t kParallelMinPairs = std::int64_t{1} << 18;
// Kept for callers that count targets alone: the minimum number of targets of a pair loop.
inline constexpr std::int64_t kParallelMinPairsTargets = 2;
inline constexpr std::int64_t kParallelMinElements = 1 << 16;  // O(N) loops: elements

// Whether a pair loop of `targets` x `sources` terms runs in parallel: the work (their product,
// not the targets alone: a block of 8 active bodies against 16,384 sources is 131,072 terms,
// a 2-body problem's full pass 4) must pass kParallelMinPairs.
[[nodiscard]] constexpr bool parallel_pairs(std::int64_t targets, std::int64_t sources) {
  if (targets < kParallelMinPairsTargets || sources <= 0) return false;
  // targets * sources without overflow: compare against the quotient.
  return targets >= (kParallelMinPairs + sources - 1) / sources;
}

// Whether an element-wise loop of n elements runs in parallel.
[[nodiscard]] constexpr bool parallel_elements(std::int64_t n) { return n >= kParallelMinElements; }

// --threads: n > 0 threads for the following parallel regions; 0 gives back the count the
// process started with (OMP_NUM_THREADS when set, else every core).
inline void set_thread_count(std::int64_t threads) {
  static const int initial = omp_get_max_threads();
  omp_set_num_threads(threads > 0 ? static_cast<int>(threads) : initial);
}

// OpenMP threads that wait for work yield their core (OMP_WAIT_POLICY=passive) unless the user
// chose a policy (OMP_WAIT_POLICY or GOMP_SPINCOUNT set): spinning threads hold a shared
// machine's cores away from the thread the others wait for. GCC's runtime reads its settings
// once, when it is loaded, so the program sets the variable and starts itself again
// (/proc/self/exe, the same arguments); where that fails it goes on with the runtime's defaults.
inline void use_yielding_wait_policy(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr) return;
  if (::setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  ::execv("/proc/self/exe", argv);
}

}  // namespace nbody
