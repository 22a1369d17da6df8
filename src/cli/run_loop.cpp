#include "cli/run_loop.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <optional>
#include <string>

#include "cli/output_schedule.hpp"
#include "cli/progress.hpp"
#include "cli/stop_signals.hpp"
#include "core/units.hpp"
#include "nbody/precision.hpp"

namespace nbody::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Chunks of steps are cut to about this much wall time, so the progress line moves and a
// `stop` file or a wall-clock checkpoint is noticed soon.
constexpr double kChunkSeconds = 0.25;

// Prints a line on stdout and records it in run.log.
class Reporter {
 public:
  explicit Reporter(RunDirectory* dir) : dir_(dir) {}

  [[gnu::format(printf, 2, 3)]] void say(const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    const std::string line = format(fmt, args);
    va_end(args);
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    if (dir_ != nullptr) dir_->log(line);
  }
  // run.log only (checkpoints: too many for stdout on a short schedule).
  [[gnu::format(printf, 2, 3)]] void note(const char* fmt, ...) {
    if (dir_ == nullptr) return;
    va_list args;
    va_start(args, fmt);
    dir_->log(format(fmt, args));
    va_end(args);
  }

 private:
  static std::string format(const char* fmt, va_list args) {
    char buf[1024];
    std::vsnprintf(buf, sizeof buf, fmt, args);
    return buf;
  }
  RunDirectory* dir_;
};

// The particles of the current step on the host, downloaded at most once per output event
// (the Lagrangian radii and a snapshot of the same step share them) and dropped after it.
class HostParticles {
 public:
  explicit HostParticles(Simulation& sim) : sim_(sim) {}
  const Particles<double>& get() {
    if (!p_) p_ = sim_.particles();
    return *p_;
  }

 private:
  Simulation& sim_;
  std::optional<Particles<double>> p_;
};

class Loop {
 public:
  Loop(Simulation& sim, const RunConfig& cfg, RunDirectory* dir)
      : sim_(sim), cfg_(cfg), dir_(dir), schedule_(cfg), out_(dir) {}

  int run(const RunProgress* resumed) {
    std::optional<StopSignals> signals;
    if (dir_ != nullptr) signals.emplace();  // without a directory there is nowhere to checkpoint
    announce(resumed);
    const std::int64_t first = sim_.step_count();
    if (resumed != nullptr) {
      initial_ = resumed->initial;
      initial_radii_ = resumed->initial_radii;
      last_checkpoint_step_ = first;
    } else {
      last_ = sim_.diagnostics();
      initial_ = last_;
      have_last_ = true;
      scheduled_outputs(0);
      initial_radii_ = radii_;
    }

    ProgressLine progress(cfg_.steps, first);
    double stepping = 0, seconds_per_step = 0;
    std::uint64_t stepped_interactions = 0;
    const auto wall_start = Clock::now();
    last_checkpoint_wall_ = wall_start;
    while (sim_.step_count() < cfg_.steps) {
      const std::int64_t s = sim_.step_count();
      std::int64_t chunk = schedule_.next_event(s) - s;
      const auto budget = seconds_per_step > 0 ? std::int64_t(kChunkSeconds / seconds_per_step) : 1;
      chunk = std::clamp<std::int64_t>(budget, 1, chunk);
      const auto t0 = Clock::now();
      const std::uint64_t i0 = sim_.interactions();
      std::int64_t done = 0;
      while (done < chunk && StopSignals::received() == 0) {
        sim_.advance(1);
        ++done;
      }
      sim_.synchronize();
      const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
      stepping += dt;
      stepped_interactions += sim_.interactions() - i0;
      if (done > 0) seconds_per_step = dt / double(done);
      const std::int64_t now = sim_.step_count();
      progress.update(now);
      if (done > 0) scheduled_outputs(now);  // a signal before the first step: step s had its outputs

      const int sig = StopSignals::received();
      const bool stop_file = dir_ != nullptr && sig == 0 && dir_->stop_requested();
      const bool wall_due =
          cfg_.checkpoint_every_s > 0 &&
          std::chrono::duration<double>(Clock::now() - last_checkpoint_wall_).count() >= cfg_.checkpoint_every_s;
      if (dir_ != nullptr && (schedule_.checkpoint_at(now) || wall_due || sig != 0 || stop_file)) checkpoint();
      if (sig != 0 || stop_file) {
        progress.finish();
        if (stop_file) dir_->clear_stop();
        out_.say(
            "stopped at step %lld of %lld (t = %.17g) by %s: checkpoint written; continue with: nbody run "
            "--resume %s",
            static_cast<long long>(now), static_cast<long long>(cfg_.steps), sim_.time(),
            sig != 0 ? signal_name(sig) : "the stop file", dir_->path().c_str());
        return 0;
      }
    }
    progress.finish();
    finish(first, stepping, stepped_interactions, std::chrono::duration<double>(Clock::now() - wall_start).count());
    return 0;
  }

 private:
  void announce(const RunProgress* resumed) {
    if (resumed != nullptr) {
      out_.say("nbody run: resumed at step %lld (t = %.17g) from %s", static_cast<long long>(sim_.step_count()),
               sim_.time(), dir_->path().c_str());
    }
    out_.say("nbody run: %s, N = %zu, %s, %s, dt = %g, %lld steps, softening %g, seed %lld", cfg_.ic.c_str(),
             sim_.size(), cfg_.precision.c_str(), cfg_.integrator.c_str(), cfg_.dt, static_cast<long long>(cfg_.steps),
             cfg_.softening, static_cast<long long>(cfg_.seed));
    out_.say("backend: %s (%s)", sim_.backend_name().c_str(), sim_.device_name().c_str());
    // config.toml holds the resolved G; an explicit -G other than the unit system's is noted.
    const UnitSystem& units = unit_system(cfg_.units);
    out_.say("units: %s, G = %.10g", cfg_.units.c_str(), cfg_.gravitational_constant);
    if (std::fabs(cfg_.gravitational_constant - units.G) > 1e-12 * units.G) {
      out_.say("note: -G %.10g overrides the %s unit system's G = %.10g", cfg_.gravitational_constant,
               cfg_.units.c_str(), units.G);
    }
  }

  // A row of diagnostics.csv and of lagrangian_radii.csv for the current step.
  void diagnostics_row(HostParticles& host) {
    if (!have_last_ || last_.step != sim_.step_count()) last_ = sim_.diagnostics();
    have_last_ = true;
    if (dir_ != nullptr) {
      dir_->append_diagnostics(last_, initial_);
      radii_ = lagrangian_radii(host.get());
      radii_step_ = sim_.step_count();
      dir_->append_lagrangian_radii(radii_step_, sim_.time(), radii_);
    }
  }

  void snapshot(HostParticles& host) {
    if (dir_ != nullptr) dir_->write_snapshot(host.get(), sim_.time());
  }

  // The outputs the schedule puts at `step` (those a checkpoint at this step accounts for).
  void scheduled_outputs(std::int64_t step) {
    have_last_ = have_last_ && last_.step == step;
    HostParticles host(sim_);
    if (schedule_.diagnostics_at(step)) diagnostics_row(host);
    if (dir_ != nullptr && schedule_.snapshot_at(step)) snapshot(host);
  }

  void checkpoint() {
    Checkpoint ck = sim_.checkpoint();
    ck.config = cfg_;
    ck.progress = {initial_, initial_radii_, dir_->diagnostics_rows(), dir_->snapshots_written()};
    const auto file = dir_->write_checkpoint(ck);
    last_checkpoint_step_ = ck.step;
    last_checkpoint_wall_ = Clock::now();
    out_.note("checkpoint at step %lld: %s", static_cast<long long>(ck.step), file.filename().c_str());
  }

  // `interactions`: pairs evaluated while stepping (block time steps evaluate only active targets).
  void finish(std::int64_t first, double stepping, std::uint64_t interactions, double wall) {
    const std::int64_t end = sim_.step_count();
    // A final checkpoint, so the run can be extended with --resume --steps; then the end-of-run
    // outputs the schedule did not already give (the checkpoint does not count them, so a
    // longer resumed run replaces them).
    if (dir_ != nullptr && last_checkpoint_step_ != end) checkpoint();
    HostParticles host(sim_);
    if (!schedule_.diagnostics_at(end)) diagnostics_row(host);
    if (!have_last_) {
      last_ = sim_.diagnostics();
      have_last_ = true;
    }
    if (dir_ != nullptr && !schedule_.snapshot_at(end)) snapshot(host);
    if (dir_ != nullptr && radii_step_ != end) {  // a resumed run with nothing left to step
      radii_ = lagrangian_radii(host.get());
      radii_step_ = end;
    }

    const std::int64_t steps = end - first;
    std::string line = "done: " + std::to_string(steps) + " steps in " + format_duration(wall) + " wall";
    if (stepping > 0 && steps > 0) {
      const double rate = double(interactions) / stepping / 1e9;
      char buf[160];
      std::snprintf(buf, sizeof buf, " (stepping %s: %.4g steps/s, %.4g billion interactions/s)",
                    format_duration(stepping).c_str(), double(steps) / stepping, rate);
      line += buf;
    }
    out_.say("%s", line.c_str());
    const double e0 = initial_.total;
    out_.say("energy: E0 = %.10g, E = %.10g, |dE/E0| = %.3e; virial ratio 2K/|W| = %.4f", e0, last_.total,
             relative_energy_error(last_, e0), last_.virial_ratio);
    out_.say("momenta: |P - P0| = %.3e, |L - L0|/|L0| = %.3e", momentum_drift(last_, initial_),
             angular_momentum_drift(last_, initial_));
    if (dir_ != nullptr) {
      out_.say("half-mass radius: %.6g -> %.6g", initial_radii_[4], radii_[4]);
      out_.say(
          "output: %s (config.toml, model.toml, run.log, diagnostics.csv, lagrangian_radii.csv, %d snapshots, "
          "checkpoint at step %lld)",
          dir_->path().c_str(), dir_->snapshots_written(), static_cast<long long>(end));
    }
  }

  Simulation& sim_;
  const RunConfig& cfg_;
  RunDirectory* dir_;
  OutputSchedule schedule_;
  Reporter out_;
  Diagnostics initial_;  // step 0: E0, P0, L0 of the drift columns
  std::array<double, 7> initial_radii_{}, radii_{};  // Lagrangian radii at step 0 and at radii_step_
  std::int64_t radii_step_ = -1;
  Diagnostics last_;
  bool have_last_ = false;
  std::int64_t last_checkpoint_step_ = -1;
  Clock::time_point last_checkpoint_wall_;
};

}  // namespace

int run_loop(Simulation& sim, const RunConfig& cfg, RunDirectory* dir, const RunProgress* resumed) {
  return Loop(sim, cfg, dir).run(resumed);
}

}  // namespace nbody::cli
