#pragma once
// Checkpoints of an ensemble run: the interval reached, every system's bodies and state, the
// run's id; little-endian binary ending with an FNV-1a 64 checksum of all its bytes (a damaged
// file is refused), written atomically. A run resumed from one continues with the same bits.
#include <cstdint>
#include <string>

#include "ensemble/store.hpp"

namespace nbody::ensemble {

struct EnsembleCheckpoint {
  std::string run_id;
  std::int64_t interval = 0;
  EnsembleStore store;
};

void save_ensemble_checkpoint(const std::string& path, const EnsembleCheckpoint& c);
// An input error naming the file when it is damaged, truncated or not an ensemble checkpoint.
EnsembleCheckpoint load_ensemble_checkpoint(const std::string& path);

}  // namespace nbody::ensemble
