#pragma once
// The pieces of `nbody bench --suite tree` that do not touch a device: the sampled targets, the
// float64 reference sum on them, the error percentiles and the crossover with the direct sum.
#include <cstdint>
#include <string>
#include <vector>

namespace nbody::bench::treebench {

// k distinct body indices in [0, n), ascending, drawn from `seed` (all n when k >= n). The same
// indices on every platform (std::mt19937_64's raw outputs, no library distribution).
[[nodiscard]] std::vector<std::int32_t> sample_targets(std::int64_t n, int k, std::uint64_t seed);

// The float64 direct sum G sum_j m_j d / (|d|^2 + eps2)^(3/2) over all n sources at each target
// (a source index), every term in double, each target's terms in source order (the same bits for
// any thread count); a pair at distance 0 without softening adds nothing. OpenMP over blocks of
// targets, the sources in tiles that stay in cache, the loop over a block's targets vectorised.
void reference_accelerations(const double* x, const double* y, const double* z, const double* m, std::int64_t n,
                             const std::vector<std::int32_t>& targets, double G, double eps2, std::vector<double>& ax,
                             std::vector<double>& ay, std::vector<double>& az);

struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0, max = 0;
};
// Nearest-rank percentiles (the ceil(p k / 100)-th smallest of k values); NaN counts as the
// largest. All zero for no values.
[[nodiscard]] Percentiles percentiles(std::vector<double> values);

// |a - ref| / |ref| for each sample (|a| itself where ref is zero: 0 when both are).
[[nodiscard]] std::vector<double> relative_errors(const std::vector<double>& ax, const std::vector<double>& ay,
                                                  const std::vector<double>& az, const std::vector<double>& rx,
                                                  const std::vector<double>& ry, const std::vector<double>& rz);

// One point of a time-over-N curve.
struct TimedPoint {
  double n = 0;
  double seconds = 0;
  bool extrapolated = false;
};

struct Crossover {
  std::string kind = "no data";  // "interpolated", "at or below", "not reached", "no data"
  double n = -1;                 // the crossover N (interpolated in log N - log t) or the bound
  bool extrapolated = false;     // a direct time on either side was extrapolated
  std::size_t below = 0, above = 0;  // the tree points bracketing it (indices into `tree`)
};

// The direct sum's time at n: measured where `direct` has n, else c n^2 from its largest N
// (extrapolated); seconds < 0 when direct is empty.
[[nodiscard]] TimedPoint direct_time(const std::vector<TimedPoint>& direct, double n);

// The N where the tree's time (points ascending in n) first falls to the direct sum's.
[[nodiscard]] Crossover find_crossover(const std::vector<TimedPoint>& tree, const std::vector<TimedPoint>& direct);

// "1e6", "1000000", "2^20" as a body count; false for anything else or a value outside [1, 2^31).
[[nodiscard]] bool parse_body_count(const std::string& text, std::int64_t& out);

}  // namespace nbody::bench::treebench
