#pragma once
// Axis ticks: "nice" values (1, 2 or 5 times a power of ten) inside a range, and their labels.
#include <string>
#include <vector>

namespace nbody::render {

struct Tick {
  double value;
  std::string label;
};

// About `target` ticks at multiples of a nice step inside [lo, hi] (none when hi <= lo).
[[nodiscard]] std::vector<Tick> linear_ticks(double lo, double hi, int target = 5);
// Powers of ten inside [lo, hi] (lo > 0), thinned to at most `most`; the two ends when the range
// holds fewer than two.
[[nodiscard]] std::vector<Tick> log_ticks(double lo, double hi, int most = 7);
// A short label for v: as many decimals as `step` needs, exponent form for very large or small.
[[nodiscard]] std::string tick_label(double v, double step);

}  // namespace nbody::render
