#pragma once
// The step loop of every physics (gravity's run_loop, PIC's run_pic): chunks of steps between
// the events of the outputs, each chunk cut to about chunk_seconds of wall time at the measured
// rate, stop conditions asked between chunks, a progress observer and a heartbeat line. What is
// stepped and what is written are the caller's: a Stepper, and outputs of any type with
// next_step_due / due / write (nbody::Output for gravity, pic::PicOutput for PIC).
//
// Over several ranks rank 0 decides (its stop conditions, its clock) and `agree` hands its
// decision to every rank: the chunk length, 0 for the end, and, where every rank takes part in
// the outputs (PIC's gathers are collective), which outputs are due.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "nbody/error.hpp"
#include "nbody/run.hpp"

namespace nbody::runloop {

// What the loop steps.
class Stepper {
 public:
  virtual ~Stepper() = default;
  [[nodiscard]] virtual std::int64_t step_count() const = 0;
  [[nodiscard]] virtual double time() const = 0;
  // `steps` more steps, finished (the device synchronised) when it returns.
  virtual void advance(std::int64_t steps) = 0;
};

struct DriveSettings {
  std::int64_t last_step = 0;
  double chunk_seconds = 0.25;   // RunHooks::chunk_seconds
  double heartbeat_seconds = 60;  // RunHooks::heartbeat_seconds (0: none)
  ProgressObserver* progress = nullptr;
  // Hands rank 0's value to every rank (a broadcast); empty on one process.
  std::function<std::int64_t(std::int64_t)> agree;
  // Whether every rank runs the loop and its outputs (PIC); otherwise only rank 0 does and the
  // others follow the agreed chunk lengths on their own (gravity's follow_rank0).
  bool every_rank_writes = false;
  bool root = true;  // this is rank 0
};

struct Driven {
  std::int64_t first_step = 0, last_step = 0;
  double wall_seconds = 0;      // from the first chunk to the end of stepping
  double stepping_seconds = 0;  // inside Stepper::advance
  std::int64_t chunks = 0;
  StopCondition* stopped_by = nullptr;  // rank 0's, when one ended the run
  std::optional<std::string> reason;
};

// The next chunk's length: to the next output event, cut to about `seconds` of steps at the
// measured rate (one step while nothing has been measured), at least one step.
inline std::int64_t chunk_length(std::int64_t to_next_event, double seconds, double seconds_per_step) {
  if (seconds_per_step <= 0) return 1;
  const double budget = std::min(double(to_next_event), seconds / seconds_per_step);
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(budget), 1, to_next_event);
}

// "step S of N (t = T): R steps/s, ETA D"
inline std::string heartbeat_line(std::int64_t step, std::int64_t last, double time, double steps_per_s) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "step %lld of %lld (t = %.6g): %.4g steps/s, ETA %s", static_cast<long long>(step),
                static_cast<long long>(last), time, steps_per_s,
                steps_per_s > 0 ? format_duration(double(last - step) / steps_per_s).c_str() : "unknown");
  return buf;
}

// The outputs due at the current step, in order, then the state's end of the event (its host
// copies dropped). With every_rank_writes over several ranks, rank 0's due() decides for all.
template <class OutputT, class State>
void write_due(const std::vector<OutputT*>& outputs, State& state, const DriveSettings& s) {
  if (s.every_rank_writes && s.agree) {
    if (outputs.size() > 63) throw_runtime_error("run loop: more than 63 outputs");
    std::int64_t mask = 0;
    if (s.root)
      for (std::size_t k = 0; k < outputs.size(); ++k)
        if (outputs[k]->due(state)) mask |= std::int64_t(1) << k;
    mask = s.agree(mask);
    for (std::size_t k = 0; k < outputs.size(); ++k)
      if (mask & (std::int64_t(1) << k)) outputs[k]->write(state);
  } else {
    for (OutputT* o : outputs)
      if (o->due(state)) o->write(state);
  }
  state.end_of_event();
}

// Steps `stepper` to s.last_step or a stop, writing the outputs due after each chunk (the
// caller writes those of the first step and finishes them at the end).
template <class OutputT, class State>
Driven drive(Stepper& stepper, State& state, const std::vector<OutputT*>& outputs,
             const std::vector<StopCondition*>& stop_conditions, Logger& log, const DriveSettings& s) {
  using Clock = std::chrono::steady_clock;
  Driven d;
  d.first_step = stepper.step_count();
  double seconds_per_step = 0;
  const auto wall_start = Clock::now();
  auto last_heartbeat = wall_start;
  for (;;) {
    std::int64_t chunk = 0;  // 0: the end
    if (s.root && stepper.step_count() < s.last_step) {
      for (StopCondition* c : stop_conditions) {
        if ((d.reason = c->requested())) {
          d.stopped_by = c;
          break;
        }
      }
      if (d.stopped_by == nullptr) {
        const std::int64_t now = stepper.step_count();
        std::int64_t next = s.last_step;
        for (const OutputT* o : outputs) next = std::min(next, o->next_step_due(now));
        chunk = chunk_length(std::max(next, now + 1) - now, s.chunk_seconds, seconds_per_step);
      }
    }
    if (s.agree) chunk = s.agree(chunk);
    if (chunk <= 0) break;

    const auto t0 = Clock::now();
    stepper.advance(chunk);
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    d.stepping_seconds += seconds;
    ++d.chunks;
    seconds_per_step = seconds / double(chunk);
    if (s.progress != nullptr) s.progress->advanced(stepper.step_count(), chunk, seconds);
    if (s.root && s.heartbeat_seconds > 0 &&
        std::chrono::duration<double>(Clock::now() - last_heartbeat).count() >= s.heartbeat_seconds) {
      last_heartbeat = Clock::now();
      const double wall = std::chrono::duration<double>(last_heartbeat - wall_start).count();
      const double rate = wall > 0 ? double(stepper.step_count() - d.first_step) / wall : 0;
      log.heartbeat(heartbeat_line(stepper.step_count(), s.last_step, stepper.time(), rate));
    }
    write_due(outputs, state, s);
  }
  d.wall_seconds = std::chrono::duration<double>(Clock::now() - wall_start).count();
  d.last_step = stepper.step_count();
  return d;
}

}  // namespace nbody::runloop
