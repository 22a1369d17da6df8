#include "run/output_schedule.hpp"

#include <algorithm>
#include <cmath>

namespace nbody::runloop {
namespace {

std::int64_t next_multiple(std::int64_t step, std::int64_t k, std::int64_t last) {
  return k > 0 ? std::min(last, (step / k + 1) * k) : last;
}

}  // namespace

std::int64_t OutputSchedule::time_output_step(std::int64_t k) const {
  return static_cast<std::int64_t>(std::ceil(double(k) * cfg_.snapshot_every_t / cfg_.dt * (1 - 1e-12)));
}

std::int64_t OutputSchedule::next_time_output(std::int64_t step) const {
  // k: the last output at or before `step` (0: none yet), from an estimate corrected both ways.
  auto k = static_cast<std::int64_t>(std::floor(double(step) * cfg_.dt / cfg_.snapshot_every_t));
  k = std::max<std::int64_t>(k, 0);
  while (time_output_step(k + 1) <= step) ++k;
  while (k >= 1 && time_output_step(k) > step) --k;
  return time_output_step(k + 1);
}

std::int64_t OutputSchedule::next_diagnostics(std::int64_t step) const {
  return next_multiple(step, cfg_.diag_every, cfg_.steps);
}

std::int64_t OutputSchedule::next_snapshot(std::int64_t step) const {
  std::int64_t next = next_multiple(step, cfg_.snapshot_every, cfg_.steps);
  if (cfg_.snapshot_every_t > 0) next = std::min(next, next_time_output(step));
  return next;
}

std::int64_t OutputSchedule::next_checkpoint(std::int64_t step) const {
  return next_multiple(step, cfg_.checkpoint_every, cfg_.steps);
}

std::int64_t OutputSchedule::next_event(std::int64_t step) const {
  const std::int64_t next = std::min({next_diagnostics(step), next_snapshot(step), next_checkpoint(step)});
  return std::max(next, step + 1);
}

}  // namespace nbody::runloop
