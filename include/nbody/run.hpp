#pragma once
// The run loop: a simulation stepped in chunks between the events of its output schedule, with
// outputs (diagnostics and Lagrangian radii, snapshots, checkpoints, and the caller's own), stop
// conditions, messages and progress reports supplied by the caller. A run with cfg.out writes
// its run directory (see docs/ARCHITECTURE.md, "Files, checkpoints and restart"); without it,
// only the caller's outputs see the run.
//
// The library never prints and never installs signal handlers: the `nbody` program passes a
// Logger that prints on stdout and a StopCondition set by SIGINT/SIGTERM; a binding would pass
// its own (a KeyboardInterrupt check, its logging module).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nbody/checkpoint.hpp"
#include "nbody/config.hpp"
#include "nbody/diagnostics.hpp"
#include "nbody/particles.hpp"
#include "nbody/simulation.hpp"

namespace nbody {

// The `nbody run` default of checkpoint_every_s: a checkpoint every 30 minutes of wall time, so
// that a run killed by a scheduler (or a crash) loses at most that much. RunConfig{} keeps 0
// (none) for programs that choose their own.
inline constexpr double kDefaultCheckpointEverySeconds = 1800;

// Where a run's messages go. A run with a directory also records every line in its run.log.
class Logger {
 public:
  virtual ~Logger() = default;
  // A line for the user: what runs, the stop, the summary.
  virtual void info(std::string_view line) = 0;
  // A line for the record only (each checkpoint, a checkpoint skipped on resume); ignored unless
  // overridden.
  virtual void detail(std::string_view /*line*/) {}
  // A progress line every RunHooks::heartbeat_seconds of wall time (step, time, rate, ETA), for
  // logs that no progress bar reaches; run.log always has it. Ignored unless overridden.
  virtual void heartbeat(std::string_view /*line*/) {}
};

// Asked between chunks of steps whether the run should stop there. A run that stops writes a
// checkpoint (when it has a directory) and returns; resume_run continues it with the same bits.
class StopCondition {
 public:
  virtual ~StopCondition() = default;
  // The reason to stop now, as the stop message names it ("SIGINT", "the stop file"), or none.
  [[nodiscard]] virtual std::optional<std::string> requested() = 0;
  // Called once when the run has stopped for this condition's reason (after the checkpoint).
  virtual void acknowledge() {}
};

// Told after every chunk of steps (the `nbody` program draws its progress line from it).
class ProgressObserver {
 public:
  virtual ~ProgressObserver() = default;
  // Before the first chunk: the step the run starts from and the step it runs to.
  virtual void started(std::int64_t /*first_step*/, std::int64_t /*last_step*/) {}
  // After a chunk of `steps` steps that took `seconds`; `step` is the step reached.
  virtual void advanced(std::int64_t step, std::int64_t steps, double seconds) = 0;
  // When stepping is over (before the final outputs and the summary).
  virtual void ended() {}
};

// The run at a step boundary, as outputs see it. The particles and diagnostics of the step are
// computed once and shared by every output that asks at this step.
class RunState {
 public:
  RunState(Simulation& sim, const RunConfig& cfg, Logger& log) : sim_(sim), cfg_(cfg), log_(log) {}

  [[nodiscard]] Simulation& simulation() noexcept { return sim_; }
  [[nodiscard]] const RunConfig& config() const noexcept { return cfg_; }  // resolved
  [[nodiscard]] std::int64_t step() const { return sim_.step_count(); }
  [[nodiscard]] double time() const { return sim_.time(); }
  // The state on the host as float64 (downloaded at most once per output event).
  [[nodiscard]] const Particles<double>& particles();
  // Diagnostics of the current step (computed at most once per step).
  [[nodiscard]] const Diagnostics& diagnostics();
  // The step-0 diagnostics the drifts are measured from (stored in checkpoints).
  [[nodiscard]] const Diagnostics& initial_diagnostics() const noexcept { return initial_; }
  // Messages (to the caller's logger and, with a directory, run.log).
  [[nodiscard]] Logger& log() noexcept { return log_; }

  // For the loop: the step-0 diagnostics, and the end of an output event (the host copy of the
  // particles is dropped: it can be as large as the state).
  void set_initial_diagnostics(const Diagnostics& d) { initial_ = d; }
  void end_of_event() {
    particles_ = {};
    particles_step_ = -1;
  }

 private:
  Simulation& sim_;
  const RunConfig& cfg_;
  Logger& log_;
  Diagnostics initial_;
  Particles<double> particles_;
  std::int64_t particles_step_ = -1;  // the step particles_ holds (-1: none)
  std::optional<Diagnostics> diagnostics_;
};

enum class RunEnd {
  completed,  // reached cfg.steps
  stopped,    // a StopCondition asked
};

// Something a run writes on a schedule: diagnostics rows, snapshots, checkpoints, or the
// caller's own (a callback every K steps, a renderer). Chunks of steps end at every step some
// output is due, so an output sees each step it asks for. One shape for every physics: `State`
// is the run at a step boundary (RunState for gravity, pic::PicRunState for PIC) and `Progress`
// what a checkpoint records of the outputs (RunProgress, pic::PicProgress).
template <class State, class Progress>
class BasicOutput {
 public:
  virtual ~BasicOutput() = default;
  // The first step after `step` at which this output is due (a step beyond the run's end: none).
  [[nodiscard]] virtual std::int64_t next_step_due(std::int64_t step) const = 0;
  // Whether it writes at the current step; asked at step 0 of a new run and after every chunk.
  [[nodiscard]] virtual bool due(State& state) = 0;
  virtual void write(State& state) = 0;
  // When the run ends. Called in reverse order of the outputs, so that a checkpoint (the last
  // output) is written before the end-of-run extras of the others, which it does not count.
  virtual void finish(State& /*state*/, RunEnd /*how*/) {}
  // Its part of a checkpoint's progress: what it has written on its schedule so far.
  virtual void record_progress(Progress& /*progress*/) const {}
};

// Gravity's outputs.
using Output = BasicOutput<RunState, RunProgress>;

// How a run is driven: all of it borrowed for the duration of the call, all of it optional.
struct RunHooks {
  Logger* logger = nullptr;                     // none: messages go only to run.log
  std::vector<StopCondition*> stop_conditions;  // asked in this order between chunks
  ProgressObserver* progress = nullptr;
  std::vector<Output*> outputs;  // the caller's, after the run directory's
  // How the stop message tells the user to continue: this, then the run directory.
  std::string resume_command = "nbody run --resume";
  // Chunks of steps are cut to about this much wall time (the loop measures the steps), so stop
  // conditions and wall-clock checkpoints are noticed soon; Simulation::advance is not
  // interruptible.
  double chunk_seconds = 0.25;
  // A heartbeat line (Logger::heartbeat and run.log) every this many seconds of wall time; 0: none.
  double heartbeat_seconds = 60;
  // The opening lines and the closing summary (whose final diagnostics cost a potential-energy
  // pass); a caller that steps in many short calls (advance_run) may leave them out.
  bool announce = true;
};

struct RunResult {
  std::int64_t first_step = 0;  // where stepping started (a resumed run's checkpoint step)
  std::int64_t last_step = 0;   // where it ended
  double time = 0;
  std::optional<std::string> stopped_by;  // the StopCondition's reason, when one ended the run
  Diagnostics initial;                    // step 0
  std::optional<Diagnostics> final;       // at the end of a completed run
  double wall_seconds = 0;                // from the first chunk to the end of stepping
  double stepping_seconds = 0;            // inside Simulation::advance
  std::uint64_t interactions = 0;         // pairs evaluated while stepping
  Simulation::BlockStepCounts block_steps;  // the Hermite block steps of this run (its steps only)
  std::int64_t bodies = 0;
  std::int64_t chunks = 0;                // calls of Simulation::advance
  std::optional<std::filesystem::path> directory;
  int snapshots = 0;  // snapshots in the directory
};

// What run_simulation does with a cfg.out directory that already holds files.
enum class ExistingRunFiles {
  refuse,   // an input error (nothing is written)
  replace,  // the files of the earlier run are removed
};

// A new run: validates cfg (G resolved from the unit system unless given), creates the
// simulation and, with cfg.out, the run directory, then runs to cfg.steps (or cfg.t_end) or a
// stop. Nothing is written before everything that can reject the input has run. The run
// directory is locked for the run's life: another process using it is refused (an input error
// naming it). With cfg.from the initial state is that checkpoint's (a file, or a run directory's
// newest): its particles at its time, as step 0 of a new run with cfg's physics; cfg's model
// parameters must be the checkpoint's, and model.toml records the source ([continued_from]).
RunResult run_simulation(RunConfig cfg, const RunHooks& hooks, ExistingRunFiles existing = ExistingRunFiles::refuse);

// The newest checkpoint of a run directory that reads back whole (an input error when there is
// none, or `dir` is not a run directory).
struct ResumePoint {
  std::filesystem::path directory;
  std::filesystem::path file;
  Checkpoint checkpoint;             // checkpoint.config is the configuration stored with it
  std::vector<std::string> skipped;  // newer checkpoints that did not read back, and why
  // The directory has its config.toml but no checkpoint (the run ended before its first one):
  // checkpoint.config is config.toml's, and resume_run starts the run again from step 0.
  bool from_start = false;
};
// An input error also when another process holds the directory, or when the newest checkpoint
// belongs to another run (its run id is not the directory's).
[[nodiscard]] ResumePoint find_resume_point(const std::filesystem::path& dir);

// Continues a run from `point` with `cfg`: the stored configuration, or one that differs from it
// only in the parameters marked may_change_on_resume (run length, output cadence; checked here:
// an input error names the first other parameter that differs). Drops what the directory holds
// beyond the checkpoint, then continues every file as the uninterrupted run would have written it.
RunResult resume_run(ResumePoint point, const RunConfig& cfg, const RunHooks& hooks);

// The configuration stored in the checkpoint a --from run starts from (`from`: a checkpoint file,
// or a run directory: its newest checkpoint), with `out` cleared and `from` set: the base that the
// new run's flags change.
[[nodiscard]] RunConfig continuation_config(const std::filesystem::path& from);

// The first step whose time cfg.start_time + step * cfg.dt is at or past t (how --t-end becomes
// --steps; 0 when t is not after the start time).
[[nodiscard]] std::int64_t step_at_time(const RunConfig& cfg, double t);

// Advances a simulation the caller holds to step `last_step` through the run loop, without a run
// directory: chunks of steps, the caller's stop conditions, progress observer and outputs (an
// output due at the starting step is not written again). For programs that step one simulation
// in several calls (the Python API). `initial`: the diagnostics the drifts are measured from.
RunResult advance_run(Simulation& sim, std::int64_t last_step, const Diagnostics& initial, const RunHooks& hooks);

// "1.23 s", "4 min 05 s", "2 h 03 min"
[[nodiscard]] std::string format_duration(double seconds);

}  // namespace nbody
