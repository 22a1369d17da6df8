#pragma once
#include <functional>

#include "bench.hpp"

namespace nbody::bench {

// `--suite tune`: the production direct-sum kernel (accelerations only) over every compiled
// (block, targets per thread) shape and every slice count, for fp32, fp64 and mixed, at several
// N; each configuration verified on sampled bodies against float64, timed with CUDA events, and
// the launch policy's pick marked and compared with the measured best.
void tune(const Options& options, const std::function<void(Record)>& add);

}  // namespace nbody::bench
