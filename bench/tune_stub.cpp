// `--suite tune` in a build without CUDA: nothing to sweep.
#include "tune.hpp"

namespace nbody::bench {

void tune(const Options&, const std::function<void(Record)>& add) {
  Record r;
  r.suite = "tune";
  r.rung = "direct";
  r.skipped = "skipped: no CUDA device (this build has no CUDA)";
  add(r);
}

std::vector<ProgramCandidate> program_candidates(const Options&) { return {}; }

}  // namespace nbody::bench
