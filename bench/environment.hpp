#pragma once
#include "bench.hpp"

namespace nbody::bench {

// What the numbers were measured on: device, clocks, driver, host, revision, time.
[[nodiscard]] Environment describe_environment();

// The SM clock under load in MHz: every SM spins on clock64() for a fixed number of cycles while
// CUDA events time it (0 without a usable device).
[[nodiscard]] double measure_sm_clock_mhz();

}  // namespace nbody::bench
