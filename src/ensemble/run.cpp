#include "ensemble/run.hpp"

#include <chrono>
#include <cstdio>
#include <memory>

#include "config/deck_identity.hpp"
#include "core/fnv1a.hpp"
#include "core/strings.hpp"
#include "ensemble/backend.hpp"
#include "ensemble/checkpoint.hpp"
#include "ensemble/generators.hpp"
#include "ensemble/results.hpp"
#include "io/atomic_file.hpp"
#include "io/run_files.hpp"
#include "nbody/error.hpp"
#include "run/drive.hpp"
#include "run/run_log.hpp"
#include "run/stop_file.hpp"

namespace nbody::ensemble {
namespace {

namespace fs = std::filesystem;
constexpr const char* kDeck = "deck.toml";
constexpr const char* kResults = "results.csv";
constexpr const char* kStates = "final_states.csv";
constexpr const char* kResultsH5 = "results.h5";

bool is_ensemble_file(const std::string& name) {
  return name == kDeck || name == kResults || name == kStates || name == kResultsH5;
}

std::string run_id_of(const EnsembleConfig& c) {
  char text[24];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(fnv1a64(c.deck_identity)));
  return text;
}

// The end of interval k (the same number for every system and every run of the deck).
double interval_end(const EnsembleConfig& c, std::int64_t k) {
  return k >= c.intervals ? c.params.t_end : c.params.t_end * double(k) / double(c.intervals);
}

std::int64_t total_steps(const EnsembleStore& s) {
  std::int64_t n = 0;
  for (const SystemState& st : s.state) n += st.steps;
  return n;
}

// The run at an interval's end, as the outputs see it.
class EnsembleRunState {
 public:
  EnsembleRunState(EnsembleStore& s, Backend& b, const EnsembleConfig& c, Logger& log, std::int64_t& interval)
      : s_(s), b_(b), c_(c), log_(log), interval_(interval) {}
  [[nodiscard]] std::int64_t step() const { return interval_; }
  [[nodiscard]] const EnsembleConfig& config() const { return c_; }
  [[nodiscard]] Logger& log() { return log_; }
  [[nodiscard]] EnsembleStore& states() { return s_; }  // the systems' states (always current)
  // The bodies on the host (copied back from the GPU at most once an interval).
  EnsembleStore& host() {
    if (fetched_ != interval_) b_.fetch(s_), fetched_ = interval_;
    return s_;
  }
  void end_of_event() {}

 private:
  EnsembleStore& s_;
  Backend& b_;
  const EnsembleConfig& c_;
  Logger& log_;
  std::int64_t& interval_;
  std::int64_t fetched_ = -1;
};

struct EnsembleProgress {};
using EnsembleOutput = BasicOutput<EnsembleRunState, EnsembleProgress>;

// Every `every` intervals (not 0), up to `last`.
struct Cadence {
  std::int64_t every = 0, last = 0;
  [[nodiscard]] bool at(std::int64_t k) const { return every > 0 && k > 0 && k % every == 0; }
  [[nodiscard]] std::int64_t next(std::int64_t k) const { return every > 0 ? std::min(last, (k / every + 1) * every) : last; }
};

// A line in run.log every progress_every intervals: the time, the systems running and stopped.
class ProgressOutput final : public EnsembleOutput {
 public:
  explicit ProgressOutput(Cadence c) : c_(c) {}
  [[nodiscard]] std::int64_t next_step_due(std::int64_t k) const override { return c_.next(k); }
  [[nodiscard]] bool due(EnsembleRunState& s) override { return c_.at(s.step()); }
  void write(EnsembleRunState& s) override {
    const auto counts = outcome_counts(s.states());
    s.log().detail(format_line("ensemble: interval %lld of %lld (t = %.6g): %lld running, %lld stopped (%s)",
                               static_cast<long long>(s.step()), static_cast<long long>(c_.last),
                               interval_end(s.config(), s.step()), static_cast<long long>(counts[0]),
                               static_cast<long long>(s.states().systems() - counts[0]), outcome_line(counts).c_str()));
  }

 private:
  Cadence c_;
};

class CheckpointOutput final : public EnsembleOutput {
 public:
  CheckpointOutput(Cadence c, double every_s, RunFiles& files) : c_(c), every_s_(every_s), files_(files) {}
  [[nodiscard]] std::int64_t next_step_due(std::int64_t k) const override { return c_.next(k); }
  [[nodiscard]] bool due(EnsembleRunState& s) override {
    if (s.step() == 0) return false;
    return c_.at(s.step()) ||
           (every_s_ > 0 && std::chrono::duration<double>(Clock::now() - last_wall_).count() >= every_s_);
  }
  void write(EnsembleRunState& s) override {
    written_at_ = s.step();
    last_wall_ = Clock::now();
    EnsembleCheckpoint ck;
    ck.run_id = files_.run_id();
    ck.interval = s.step();
    files_.sync_log();
    // (the checkpoint holds a copy: the store stays the run's)
    ck.store = s.host();
    save_ensemble_checkpoint(files_.checkpoint_path(s.step()).string(), ck);
    files_.keep_latest_checkpoints(s.step());
    s.log().detail("checkpoint at interval " + std::to_string(s.step()));
  }
  void finish(EnsembleRunState& s, RunEnd /*how*/) override {
    if (written_at_ != s.step()) write(s);
  }

 private:
  using Clock = std::chrono::steady_clock;
  Cadence c_;
  double every_s_;
  RunFiles& files_;
  std::int64_t written_at_ = -1;
  Clock::time_point last_wall_ = Clock::now();
};

// results.csv, final_states.csv and results.h5 at the end (completed or stopped).
class ResultsOutput final : public EnsembleOutput {
 public:
  ResultsOutput(std::int64_t last, const fs::path& dir) : last_(last), dir_(dir) {}
  [[nodiscard]] std::int64_t next_step_due(std::int64_t /*k*/) const override { return last_; }
  [[nodiscard]] bool due(EnsembleRunState& /*s*/) override { return false; }
  void write(EnsembleRunState& /*s*/) override {}
  void finish(EnsembleRunState& s, RunEnd /*how*/) override {
    EnsembleStore& h = s.host();
    const std::vector<SystemResult> r = system_results(h, s.config().params.eps2);
    if (s.config().csv) {
      write_file_atomic(dir_ / kResults, results_csv(r));
      write_file_atomic(dir_ / kStates, final_states_csv(h));
    }
    if (s.config().hdf5 && results_hdf5_available()) write_results_hdf5(dir_ / kResultsH5, h, r);
  }

 private:
  std::int64_t last_;
  fs::path dir_;
};

class IntervalStepper final : public runloop::Stepper {
 public:
  IntervalStepper(EnsembleStore& s, Backend& b, const EnsembleConfig& c, std::int64_t& interval)
      : s_(s), b_(b), c_(c), interval_(interval) {}
  [[nodiscard]] std::int64_t step_count() const override { return interval_; }
  [[nodiscard]] double time() const override { return interval_end(c_, interval_); }
  void advance(std::int64_t steps) override {
    for (std::int64_t q = 0; q < steps; ++q) {
      ++interval_;
      b_.advance(s_, c_.params, interval_end(c_, interval_));
    }
  }

 private:
  EnsembleStore& s_;
  Backend& b_;
  const EnsembleConfig& c_;
  std::int64_t& interval_;
};

std::unique_ptr<Backend> backend_for(const EnsembleConfig& c) {
  return c.use_gpu ? make_gpu_backend() : make_cpu_backend(c.threads);
}

EnsembleRunResult run_from(const EnsembleConfig& c, EnsembleStore& s, std::unique_ptr<Backend> backend, RunFiles* files,
                           std::int64_t interval, bool resumed, const RunHooks& hooks,
                           const std::vector<std::string>& notes) {
  runloop::RunLog log(hooks.logger, files != nullptr ? [files](std::string_view line) { files->log(line); }
                                                     : runloop::RunLog::Record());
  for (const auto& line : notes) log.info(line);
  log.info(format_line("ensemble: %lld systems of %d to %d bodies (%lld bodies), %s, t_end = %.6g in %lld intervals, on the %s",
                       static_cast<long long>(s.systems()), s.systems() ? s.size_of(0) : 0, s.largest_system(),
                       static_cast<long long>(s.bodies()), integrator_name(c.params.integrator), c.params.t_end,
                       static_cast<long long>(c.intervals), backend->name().c_str()));
  if (!resumed) backend->start(s, c.params);
  const std::int64_t steps_before = total_steps(s);

  const std::int64_t last = c.intervals;
  ProgressOutput progress({c.progress_every, last});
  std::vector<EnsembleOutput*> outputs{&progress};
  std::optional<ResultsOutput> results;
  std::optional<CheckpointOutput> checkpoints;
  std::vector<StopCondition*> stops = hooks.stop_conditions;
  std::optional<runloop::StopFileOf<RunFiles>> stop_file;
  if (files != nullptr) {
    outputs.push_back(&results.emplace(last, files->path()));
    outputs.push_back(&checkpoints.emplace(Cadence{c.checkpoint_every, last}, c.checkpoint_every_s, *files));
    stops.push_back(&stop_file.emplace(*files));
  }
  EnsembleRunState state(s, *backend, c, log, interval);
  runloop::DriveSettings settings;
  settings.last_step = last;
  settings.chunk_seconds = hooks.chunk_seconds;
  settings.heartbeat_seconds = hooks.heartbeat_seconds;
  settings.progress = hooks.progress;

  EnsembleRunResult r;
  r.first_interval = interval;
  r.intervals = last;
  r.backend = backend->name();
  if (files != nullptr) r.directory = files->path();
  if (!resumed) runloop::write_due(outputs, state, settings);
  if (settings.progress != nullptr) settings.progress->started(interval, last);
  IntervalStepper stepper(s, *backend, c, interval);
  const runloop::Driven driven = runloop::drive(stepper, state, outputs, stops, log, settings);
  if (settings.progress != nullptr) settings.progress->ended();
  const RunEnd how = driven.stopped_by != nullptr ? RunEnd::stopped : RunEnd::completed;
  for (auto o = outputs.rbegin(); o != outputs.rend(); ++o) (*o)->finish(state, how);
  (void)state.host();  // `s` ends with the final bodies

  r.last_interval = interval;
  r.wall_seconds = driven.wall_seconds;
  r.system_steps = total_steps(s) - steps_before;
  r.outcomes = outcome_counts(s);
  for (const SystemResult& q : system_results(s, c.params.eps2)) r.worst_de = std::max(r.worst_de, q.de);
  if (driven.stopped_by != nullptr) {
    r.stopped_by = driven.reason;
    driven.stopped_by->acknowledge();
    log.info("ensemble: stopped by " + *driven.reason + " at interval " + std::to_string(r.last_interval) +
             (files != nullptr ? "; checkpointed: continue it with " + hooks.resume_command + " " + files->path().string()
                               : ""));
  }
  if (hooks.announce)
    for (const auto& line : ensemble_summary(r)) log.info(line);
  return r;
}

}  // namespace

std::string outcome_line(const std::vector<std::int64_t>& counts) {
  std::string out;
  for (int o = 1; o < kOutcomes && std::size_t(o) < counts.size(); ++o)
    if (counts[std::size_t(o)] > 0)
      out += (out.empty() ? "" : ", ") + std::string(outcome_name(o)) + " " + std::to_string(counts[std::size_t(o)]);
  return out.empty() ? "none" : out;
}

std::vector<std::string> ensemble_summary(const EnsembleRunResult& r) {
  std::vector<std::string> lines;
  const double rate = r.wall_seconds > 0 ? double(r.system_steps) / r.wall_seconds : 0;
  lines.push_back(format_line("ensemble: done on the %s, intervals %lld to %lld of %lld, %lld system-steps in %.3g s (%.4g "
                              "system-steps/s)",
                              r.backend.c_str(), static_cast<long long>(r.first_interval),
                              static_cast<long long>(r.last_interval), static_cast<long long>(r.intervals),
                              static_cast<long long>(r.system_steps), r.wall_seconds, rate));
  std::int64_t systems = 0;
  for (auto n : r.outcomes) systems += n;
  lines.push_back(format_line("ensemble: %lld systems: %lld running, stopped: %s; largest |dE/E| %.3g",
                              static_cast<long long>(systems), static_cast<long long>(r.outcomes.empty() ? 0 : r.outcomes[0]),
                              outcome_line(r.outcomes).c_str(), r.worst_de));
  if (r.directory) lines.push_back("ensemble: wrote " + r.directory->string());
  return lines;
}

EnsembleRunResult run_ensemble(const EnsembleConfig& c, EnsembleStore& s, const RunHooks& hooks, ExistingRunFiles existing) {
  std::unique_ptr<Backend> backend = backend_for(c);  // (a device that cannot be used: refused before any file)
  std::unique_ptr<RunFiles> files;
  std::vector<std::string> notes;
  if (!c.out_dir.empty()) {
    files = std::make_unique<RunFiles>(c.out_dir, run_id_of(c), existing == ExistingRunFiles::replace, is_ensemble_file);
    write_file_atomic(files->path() / kDeck, c.deck);
  } else {
    notes.emplace_back("ensemble: no --out: nothing will be written (give --out DIR for the results table and checkpoints)");
  }
  if (c.hdf5 && !results_hdf5_available() && files)
    notes.emplace_back("ensemble: this build has no HDF5: the results go to results.csv only");
  std::int64_t interval = 0;
  return run_from(c, s, std::move(backend), files.get(), interval, false, hooks, notes);
}

EnsembleRunResult resume_ensemble(const fs::path& dir, const std::vector<std::string>& overrides, const RunHooks& hooks) {
  RunFiles::check_resumable(dir);
  std::error_code ec;
  const fs::path deck = dir / kDeck;
  if (!fs::is_regular_file(deck, ec))
    throw_input_error("resume: '" + dir.string() + "' is not an ensemble run directory (no deck.toml)");
  RunDirectoryLock::check_free(dir, "resume");
  const EnsembleConfig stored = read_ensemble_config(deck.string(), {});
  EnsembleFlags flags;
  flags.out = dir.string();
  EnsembleConfig c = read_ensemble_config(deck.string(), overrides, flags);
  if (const std::string key = first_deck_difference(stored.deck_identity, c.deck_identity); !key.empty())
    throw_input_error(key + ": differs from the run being resumed (" + deck.string() +
                      "); a resumed ensemble may only change [output] and [run]");
  const auto found = RunFiles::checkpoints(dir);
  if (found.empty()) {
    EnsembleStore s = make_systems(c);
    RunHooks h = hooks;
    return run_ensemble(c, s, h, ExistingRunFiles::replace);
  }
  const std::string id = RunFiles::stored_run_id(dir);
  std::vector<std::string> notes;
  std::optional<EnsembleCheckpoint> ck;
  std::string first_fault;
  for (const auto& [step, path] : found) {
    try {
      ck = load_ensemble_checkpoint(path.string());
      break;
    } catch (const Error& e) {
      if (first_fault.empty()) first_fault = e.what();
      notes.push_back(std::string("ensemble: resume: skipped a checkpoint that did not read back: ") + e.what());
    }
  }
  if (!ck) throw_input_error("resume: no usable checkpoint in '" + dir.string() + "' (the newest: " + first_fault + ")");
  if (ck->run_id != id)
    throw_input_error("resume: the checkpoint belongs to another run (run id " + ck->run_id + ", this directory's is " +
                      (id.empty() ? std::string("none") : id) + ")");
  if (ck->interval > c.intervals)
    throw_input_error("resume: the checkpoint's interval " + std::to_string(ck->interval) + " is beyond time.intervals");
  std::unique_ptr<Backend> backend = backend_for(c);
  RunFiles files(dir, "resume");
  files.continue_run(id);
  write_file_atomic(dir / kDeck, c.deck);
  notes.push_back("ensemble: resumed from interval " + std::to_string(ck->interval));
  std::int64_t interval = ck->interval;
  return run_from(c, ck->store, std::move(backend), &files, interval, true, hooks, notes);
}

}  // namespace nbody::ensemble
