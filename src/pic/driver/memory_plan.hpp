#pragma once
// The memory a PIC run will need, planned before anything is allocated, as gravity's runs plan
// theirs (sim/simulation.cpp): this process's host peak and, on GPUs, its device's. A run that
// does not fit is refused at once with one line naming the grid, the particles, the deck and the
// memory there is, instead of allocating for a minute and failing without saying what.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "pic/driver/config.hpp"

namespace nbody::pic {

struct PicMemoryPlan {
  std::size_t points = 0;        // grid points one field array holds on this process (guards included)
  std::uint64_t particles = 0;   // this process's particles at the start
  std::size_t host_bytes = 0;    // the host peak of this process
  std::size_t device_bytes = 0;  // its GPU's (0: none)
  int device = -1;               // that GPU
  std::string what;              // "pic: grid 2000 x 2000 cells (grid.nx, grid.ny in 'D') and N particles"
};

// The plan of rank `rank` of `ranks` for `c` (rank_load_window decides its particles).
// `checkpoint_bytes`: the size of the checkpoint a resumed run reads (its particles come from
// there; none are drawn).
[[nodiscard]] PicMemoryPlan plan_pic_memory(const PicConfig& c, int ranks, int rank,
                                            std::optional<std::uintmax_t> checkpoint_bytes = std::nullopt);

// Refuses (an input error) a run whose plan does not fit this process's host memory (MemAvailable
// within the cgroup's and ulimit -v's limits) or, on GPUs, its device's free memory.
void require_pic_memory(const PicConfig& c, std::optional<std::uintmax_t> checkpoint_bytes = std::nullopt);

}  // namespace nbody::pic
