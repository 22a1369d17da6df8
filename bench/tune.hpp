#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench.hpp"

namespace nbody::bench {

// `--suite tune`: the production direct-sum kernel (accelerations only) over every compiled
// (block, targets per thread) shape and every slice count, for fp32, fp64 and mixed, at several
// N; each configuration verified on sampled bodies against float64, timed with CUDA events, and
// the launch policy's pick marked and compared with the measured best.
void tune(const Options& options, const std::function<void(Record)>& add);

// The second part of `--suite tune`: at small N, where launch gaps, the reductions and the
// position update weigh as much as the pair loop, every warp-sliced fp32 shape (one slice) runs
// the documents' whole program as the gpu-best rung. These are the (N, shape) pairs to run, the
// launch policy's choice marked; none without a CUDA device.
struct ProgramCandidate {
  std::int64_t n = 0;
  std::string shape;
  bool policy_choice = false;
};
[[nodiscard]] std::vector<ProgramCandidate> program_candidates(const Options& options);

}  // namespace nbody::bench
