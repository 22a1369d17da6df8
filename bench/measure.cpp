#include "measure.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace nbody::bench {

Budget budget_for(bool gpu, bool quick) {
  if (quick) return {2, 3, 0.2, gpu ? 0.05 : 0.0};
  return gpu ? Budget{10, 50, 1.0, 0.2} : Budget{3, 10, 3.0, 0.0};
}

double median(std::vector<double> v, double empty) {
  if (v.empty()) return empty;
  std::sort(v.begin(), v.end());
  const std::size_t k = v.size();
  return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

int steps_per_repeat(double estimated_step_seconds) {
  if (!(estimated_step_seconds > 0)) return 10;
  return std::clamp(int(std::lround(1.0 / estimated_step_seconds)), 1, 10);
}

void measure(Rung& rung, const Particles<double>& initial, int steps, const Budget& budget, Record& record) {
  // Warm-up: the first launch loads the module; a busy GPU raises its clock.
  double warm = 0;
  do {
    rung.reset(initial);
    warm += rung.run_timed(steps);
  } while (warm < budget.warmup_seconds);

  std::vector<double> per_step;
  double spent = 0;
  while (int(per_step.size()) < budget.max_repeats &&
         (int(per_step.size()) < budget.min_repeats || spent < budget.seconds)) {
    rung.reset(initial);
    const double t = rung.run_timed(steps);
    spent += t;
    per_step.push_back(t / steps);
  }
  std::vector<double> sorted = per_step;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t k = sorted.size();
  record.steps = steps;
  record.repeats = int(k);
  record.median_s = k % 2 ? sorted[k / 2] : 0.5 * (sorted[k / 2 - 1] + sorted[k / 2]);
  record.mean_s = std::accumulate(sorted.begin(), sorted.end(), 0.0) / double(k);
  record.min_s = sorted.front();
  const double n = double(record.n);
  record.rate = n * n / record.median_s / 1e9;
}

}  // namespace nbody::bench
