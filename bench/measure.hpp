#pragma once
// Timing a rung: warm-up, then repeats from the same initial state until a time budget is spent;
// medians per step.
#include <vector>

#include "bench.hpp"
#include "ladder/rung.hpp"
#include "nbody/particles.hpp"

namespace nbody::bench {

struct Budget {
  int min_repeats = 10;
  int max_repeats = 50;
  double seconds = 1.0;          // stop repeating once this much measured time is spent
  double warmup_seconds = 0.2;   // GPU: keep it busy this long first so clocks ramp up
};

[[nodiscard]] Budget budget_for(bool gpu, bool quick);

// The median of the values (the mean of the middle two for an even count); `empty` for none.
[[nodiscard]] double median(std::vector<double> v, double empty = 0);

// Steps per timed repeat: the documents' 10, fewer when one step takes long.
[[nodiscard]] int steps_per_repeat(double estimated_step_seconds);

// Fills record.{steps, repeats, median_s, mean_s, min_s, rate}. Exceptions (a failed launch)
// propagate: the caller records the error and no time.
void measure(Rung& rung, const Particles<double>& initial, int steps, const Budget& budget, Record& record);

}  // namespace nbody::bench
