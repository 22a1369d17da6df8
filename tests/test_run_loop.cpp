// The run loop through the library's public API (nbody/run.hpp): a caller's logger, stop
// condition, progress observer and outputs; a stopped run resumed to the same bits; chunks of
// many steps in one advance; outputs on their schedule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <limits>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "io/checkpoint.hpp"
#include "nbody/error.hpp"
#include "nbody/run.hpp"
#include "nbody/simulation.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

namespace fs = std::filesystem;

class CapturedLines final : public Logger {
 public:
  void info(std::string_view line) override { info_lines.emplace_back(line); }
  void detail(std::string_view line) override { detail_lines.emplace_back(line); }
  std::vector<std::string> info_lines, detail_lines;
};

// Asks to stop once `chunks` chunks have been stepped (it is asked before each chunk).
class StopAfterChunks final : public StopCondition {
 public:
  explicit StopAfterChunks(int chunks) : chunks_(chunks) {}
  std::optional<std::string> requested() override {
    if (asked_++ < chunks_) return std::nullopt;
    return "the test's stop";
  }
  void acknowledge() override { ++acknowledged; }
  int acknowledged = 0;

 private:
  int chunks_;
  int asked_ = 0;
};

struct Chunk {
  std::int64_t end, steps;
};
class ChunkRecorder final : public ProgressObserver {
 public:
  void started(std::int64_t first, std::int64_t last) override {
    first_step = first;
    last_step = last;
  }
  void advanced(std::int64_t step, std::int64_t steps, double /*seconds*/) override { chunks.push_back({step, steps}); }
  void ended() override { ++ended_calls; }
  std::int64_t first_step = -1, last_step = -1;
  std::vector<Chunk> chunks;
  int ended_calls = 0;
};

// A caller's output every k steps: records the steps it saw.
class EveryK final : public Output {
 public:
  explicit EveryK(std::int64_t k) : k_(k) {}
  std::int64_t next_step_due(std::int64_t step) const override { return (step / k_ + 1) * k_; }
  bool due(RunState& state) override { return state.step() % k_ == 0; }
  void write(RunState& state) override { steps.push_back(state.step()); }
  std::vector<std::int64_t> steps;

 private:
  std::int64_t k_;
};

// The state at the end of a completed run.
class FinalState final : public Output {
 public:
  std::int64_t next_step_due(std::int64_t /*step*/) const override { return INT64_MAX; }
  bool due(RunState& /*state*/) override { return false; }
  void write(RunState& /*state*/) override {}
  void finish(RunState& state, RunEnd how) override {
    if (how == RunEnd::completed) particles = state.particles();
  }
  std::optional<Particles<double>> particles;
};

RunConfig small_run(std::int64_t steps) {
  RunConfig cfg;
  cfg.n = 128;
  cfg.device = "cpu";
  cfg.precision = "fp64";
  cfg.integrator = "euler";
  cfg.dt = 0.005;
  cfg.steps = steps;
  cfg.snapshot_format = "csv";
  return cfg;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}
void expect_same_bits(const Particles<double>& a, const Particles<double>& b) {
  EXPECT_TRUE(same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z));
  EXPECT_TRUE(same_bits(a.vx, b.vx) && same_bits(a.vy, b.vy) && same_bits(a.vz, b.vz));
  EXPECT_TRUE(same_bits(a.m, b.m) && a.id == b.id);
}

// The first column (the step) of every row of a CSV file.
std::vector<std::int64_t> csv_steps(const fs::path& file) {
  std::vector<std::int64_t> steps;
  const auto rows = lines(read_text(file.string()));
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (!rows[i].empty()) steps.push_back(std::stoll(rows[i].substr(0, rows[i].find(','))));
  }
  return steps;
}

TEST(RunLoop, StopWritesACheckpointAndTheResumedRunEndsWithTheUninterruptedRunsBits) {
  const fs::path base = temp_dir("run_loop_stop");
  RunConfig cfg = small_run(120);
  cfg.diag_every = 10;
  cfg.snapshot_every = 40;

  FinalState straight_end;
  RunHooks straight_hooks;
  straight_hooks.outputs = {&straight_end};
  cfg.out = (base / "straight").string();
  const RunResult straight = run_simulation(cfg, straight_hooks);
  ASSERT_FALSE(straight.stopped_by);
  ASSERT_TRUE(straight.final && straight_end.particles);
  EXPECT_EQ(straight.last_step, 120);

  CapturedLines log;
  StopAfterChunks stop(3);
  RunHooks hooks;
  hooks.logger = &log;
  hooks.stop_conditions = {&stop};
  cfg.out = (base / "run").string();
  const RunResult stopped = run_simulation(cfg, hooks);
  ASSERT_EQ(stopped.stopped_by, "the test's stop");
  EXPECT_EQ(stop.acknowledged, 1);
  EXPECT_EQ(stopped.chunks, 3);
  EXPECT_GT(stopped.last_step, 0);
  EXPECT_LT(stopped.last_step, 120);
  EXPECT_FALSE(stopped.final);
  ASSERT_FALSE(log.info_lines.empty());
  const std::string& said = log.info_lines.back();
  EXPECT_EQ(said.rfind("stopped at step " + std::to_string(stopped.last_step) + " of 120", 0), 0u) << said;
  EXPECT_NE(said.find("by the test's stop: checkpoint written; continue with: nbody run --resume " + cfg.out),
            std::string::npos)
      << said;
  // The checkpoint is a detail: in run.log and the logger's detail, not among the lines for the user.
  const std::string ck_line = "checkpoint at step " + std::to_string(stopped.last_step);
  ASSERT_FALSE(log.detail_lines.empty());
  EXPECT_EQ(log.detail_lines.back().rfind(ck_line, 0), 0u) << log.detail_lines.back();
  EXPECT_NE(read_text((base / "run" / "run.log").string()).find(ck_line), std::string::npos);
  for (const auto& line : log.info_lines) EXPECT_EQ(line.find("checkpoint at step"), std::string::npos) << line;

  ResumePoint point = find_resume_point(base / "run");
  ASSERT_EQ(point.checkpoint.step, stopped.last_step);
  EXPECT_TRUE(point.skipped.empty());
  const RunConfig stored = point.checkpoint.config;
  FinalState resumed_end;
  ChunkRecorder chunks;
  RunHooks resume_hooks;
  resume_hooks.outputs = {&resumed_end};
  resume_hooks.progress = &chunks;
  const RunResult resumed = resume_run(std::move(point), stored, resume_hooks);
  EXPECT_EQ(resumed.first_step, stopped.last_step);
  EXPECT_EQ(chunks.first_step, stopped.last_step);
  EXPECT_EQ(resumed.last_step, 120);
  ASSERT_TRUE(resumed.final && resumed_end.particles);
  expect_same_bits(*straight_end.particles, *resumed_end.particles);
  EXPECT_EQ(*resumed.final, *straight.final);
  EXPECT_EQ(resumed.initial, straight.initial);
  // (The checkpoints differ: they hold the configuration, whose `out` differs.)
  for (const char* f : {"diagnostics.csv", "lagrangian_radii.csv", "snapshot_001.csv", "snapshot_003.csv"}) {
    ASSERT_TRUE(fs::exists(base / "run" / f)) << f;
    EXPECT_EQ(read_text((base / "straight" / f).string()), read_text((base / "run" / f).string())) << f;
  }
}

TEST(RunLoop, EulerAdvancesInChunksOfManyStepsWithTheSameBitsAsSingleSteps) {
  const RunConfig cfg = small_run(200);  // no outputs on a schedule, no directory
  ChunkRecorder chunks;
  FinalState end;
  RunHooks hooks;
  hooks.progress = &chunks;
  hooks.outputs = {&end};
  const RunResult result = run_simulation(cfg, hooks);
  EXPECT_EQ(chunks.first_step, 0);
  EXPECT_EQ(chunks.last_step, 200);
  EXPECT_EQ(chunks.ended_calls, 1);
  ASSERT_EQ(static_cast<std::int64_t>(chunks.chunks.size()), result.chunks);
  std::int64_t total = 0, longest = 0;
  for (const auto& c : chunks.chunks) {
    total += c.steps;
    longest = std::max(longest, c.steps);
  }
  EXPECT_EQ(total, 200);
  // The first chunk is one step (nothing measured yet); 200 steps of 128 bodies take far less
  // than a chunk's 0.25 s, so the rest goes in one or a few calls.
  EXPECT_EQ(chunks.chunks.front().steps, 1);
  EXPECT_GT(longest, 1);
  EXPECT_LT(result.chunks, 20);
  std::printf("[ measured ] %lld chunks, the longest %lld steps\n", static_cast<long long>(result.chunks),
              static_cast<long long>(longest));

  // A chunk in one advance call gives the bits of single steps.
  auto sim = Simulation::create(cfg);
  for (int i = 0; i < 200; ++i) sim->advance(1);
  ASSERT_TRUE(end.particles);
  expect_same_bits(sim->particles(), *end.particles);
}

TEST(RunLoop, OutputsFallOnTheirSchedule) {
  const fs::path dir = fs::path(temp_dir("run_loop_schedule")) / "run";
  RunConfig cfg = small_run(95);
  cfg.diag_every = 10;
  cfg.snapshot_every = 30;
  cfg.out = dir.string();
  EveryK every7(7);
  ChunkRecorder chunks;
  CapturedLines log;
  RunHooks hooks;
  hooks.outputs = {&every7};
  hooks.progress = &chunks;
  hooks.logger = &log;
  const RunResult result = run_simulation(cfg, hooks);
  ASSERT_FALSE(result.stopped_by);

  // Every chunk ends at the next step anything is due, or before it: none steps over one.
  std::int64_t from = 0;
  for (const auto& c : chunks.chunks) {
    for (std::int64_t s = from + 1; s < c.end; ++s) {
      EXPECT_FALSE(s % 7 == 0 || s % 10 == 0 || s % 30 == 0)
          << "chunk " << from << ".." << c.end << " steps over " << s;
    }
    EXPECT_EQ(c.end - from, c.steps);
    from = c.end;
  }
  EXPECT_EQ(from, 95);

  const std::vector<std::int64_t> sevens = {0, 7, 14, 21, 28, 35, 42, 49, 56, 63, 70, 77, 84, 91};
  EXPECT_EQ(every7.steps, sevens);
  // Diagnostics every 10 steps and at the end; snapshots every 30 steps and at the end.
  const std::vector<std::int64_t> diag = {0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95};
  EXPECT_EQ(csv_steps(dir / "diagnostics.csv"), diag);
  EXPECT_EQ(csv_steps(dir / "lagrangian_radii.csv"), diag);
  EXPECT_EQ(result.snapshots, 5);
  EXPECT_TRUE(fs::exists(dir / "snapshot_004.csv"));
  EXPECT_FALSE(fs::exists(dir / "snapshot_005.csv"));

  // run.log holds what the logger was told (after its timestamps), in order, and the details.
  std::vector<std::string> logged;
  for (const auto& line : lines(read_text((dir / "run.log").string()))) {
    if (!line.empty()) logged.push_back(line.substr(line.find(' ') + 1));
  }
  std::erase_if(logged, [](const std::string& l) { return l.rfind("checkpoint at step", 0) == 0; });
  EXPECT_EQ(logged, log.info_lines);
  EXPECT_EQ(log.detail_lines, std::vector<std::string>{"checkpoint at step 95: checkpoint_0000000095.ckpt"});
  EXPECT_EQ(log.info_lines.back().rfind("output: " + cfg.out, 0), 0u) << log.info_lines.back();
}

TEST(RunLoop, StopWithoutADirectoryReturnsAndWritesNothing) {
  const RunConfig cfg = small_run(1000);
  CapturedLines log;
  StopAfterChunks stop(0);
  RunHooks hooks;
  hooks.logger = &log;
  hooks.stop_conditions = {&stop};
  const RunResult result = run_simulation(cfg, hooks);
  EXPECT_EQ(result.stopped_by, "the test's stop");
  EXPECT_EQ(result.last_step, 0);
  EXPECT_EQ(result.chunks, 0);
  EXPECT_FALSE(result.directory);
  ASSERT_FALSE(log.info_lines.empty());
  EXPECT_EQ(log.info_lines.back(), "stopped at step 0 of 1000 (t = 0) by the test's stop");
  EXPECT_TRUE(log.detail_lines.empty());
}


// ---- heartbeat -------------------------------------------------------------------------

class Heartbeats final : public Logger {
 public:
  void info(std::string_view /*line*/) override {}
  void heartbeat(std::string_view line) override { lines.emplace_back(line); }
  std::vector<std::string> lines;
};

TEST(RunLoop, HeartbeatLinesGoToTheLoggerAndRunLog) {
  const fs::path base = temp_dir("run_loop_heartbeat");
  RunConfig cfg = small_run(40);
  cfg.diag_every = 10;
  cfg.out = (base / "run").string();
  Heartbeats log;
  RunHooks hooks;
  hooks.logger = &log;
  hooks.heartbeat_seconds = 1e-9;  // after every chunk
  (void)run_simulation(cfg, hooks);
  ASSERT_FALSE(log.lines.empty());
  EXPECT_EQ(log.lines.back().rfind("step 40 of 40 (t = 0.2): ", 0), 0u) << log.lines.back();
  EXPECT_NE(log.lines.back().find("steps/s, ETA "), std::string::npos) << log.lines.back();
  EXPECT_NE(read_text((base / "run" / "run.log").string()).find(log.lines.back()), std::string::npos);
}

TEST(RunLoop, ARunWithoutADirectorySaysNothingWillBeWritten) {
  CapturedLines log;
  RunHooks hooks;
  hooks.logger = &log;
  (void)run_simulation(small_run(2), hooks);
  ASSERT_FALSE(log.info_lines.empty());
  EXPECT_EQ(log.info_lines.front().rfind("no --out: nothing will be written", 0), 0u) << log.info_lines.front();
}

// ---- checkpoints: the empty sections, and states no run can have -----------------------------

Checkpoint checkpoint_after(RunConfig cfg, std::int64_t steps) {
  auto sim = Simulation::create(cfg);
  sim->advance(steps);
  Checkpoint ck = sim->checkpoint();
  ck.run_id = "0123456789abcdef";
  return ck;
}

// Euler, leapfrog and yoshida4 keep no integrator state: the empty INTG bytes go through the
// codec (the path that once gave memcpy a null pointer: build with -fsanitize=undefined to see it).
TEST(CheckpointCodec, EmptyIntegratorStateRoundTrips) {
  for (const char* integrator : {"euler", "leapfrog", "yoshida4"}) {
    RunConfig cfg = small_run(2);
    cfg.integrator = integrator;
    const Checkpoint ck = checkpoint_after(cfg, 2);
    ASSERT_TRUE(ck.integrator.bytes.empty());
    const Checkpoint back = decode_checkpoint(encode_checkpoint(ck), "mem");
    EXPECT_EQ(back.integrator, ck.integrator);
    EXPECT_EQ(back.run_id, ck.run_id);
    EXPECT_EQ(back.step, 2);
  }
  Checkpoint none = checkpoint_after(small_run(1), 1);
  none.run_id.clear();  // no RUNI section
  EXPECT_EQ(decode_checkpoint(encode_checkpoint(none), "mem").run_id, "");
}

// Written and read back as a file.
void expect_refused(const Checkpoint& ck, const std::string& names) {
  const fs::path file = fs::path(temp_dir("ck_refused")) / "ck.ckpt";
  write_checkpoint(file, ck);
  try {
    (void)read_checkpoint(file);
    ADD_FAILURE() << "accepted; expected a refusal naming " << names;
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_status(), 2);
    EXPECT_EQ(std::string(e.what()).rfind(file.string() + ": checkpoint", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
  }
}

TEST(CheckpointCodec, StatesNoRunCanHaveAreRefused) {
  const Checkpoint good = checkpoint_after(small_run(2), 2);
  validate_checkpoint(good, "ck.ckpt");
  const auto with = [&](auto change) {
    Checkpoint ck = good;
    change(std::get<Particles<double>>(ck.state), ck);
    return ck;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_refused(with([&](Particles<double>& p, Checkpoint&) { p.x[3] = nan; }), "particle 3: x is not finite");
  expect_refused(with([&](Particles<double>& p, Checkpoint&) { p.vz[0] = INFINITY; }), "vz is not finite");
  expect_refused(with([&](Particles<double>& p, Checkpoint&) { p.m[5] = 0; }), "particle 5: mass");
  expect_refused(with([&](Particles<double>& p, Checkpoint&) { p.m[5] = nan; }), "particle 5: mass");
  expect_refused(with([&](Particles<double>& p, Checkpoint&) { p.id[7] = p.id[2]; }), "duplicate id");
  expect_refused(with([&](Particles<double>&, Checkpoint& ck) { ck.time = nan; }), "time is not finite");
  expect_refused(with([&](Particles<double>&, Checkpoint& ck) { ck.step = -1; }), "negative");
  expect_refused(with([&](Particles<double>&, Checkpoint& ck) { ck.integrator.bytes = {1, 2, 3}; }),
                 "3 bytes, euler keeps none");
  expect_refused(with([&](Particles<double>&, Checkpoint& ck) { ck.integrator.tag = "leapfrog"; }),
                 "the configuration's integrator is 'euler'");
}

TEST(CheckpointCodec, HermiteLevelsOutsideTheirRangeAndWrongSizesAreRefused) {
  RunConfig cfg = small_run(2);
  cfg.integrator = "hermite4";
  cfg.dt_mode = "block";
  cfg.dt = 0.01;
  const Checkpoint good = checkpoint_after(cfg, 2);
  ASSERT_FALSE(good.integrator.bytes.empty());
  validate_checkpoint(good, "ck.ckpt");
  for (const std::int32_t level : {-1, 41, 1 << 30}) {
    Checkpoint ck = good;
    std::memcpy(ck.integrator.bytes.data() + sizeof(std::uint64_t) + 4 * sizeof level, &level, sizeof level);
    expect_refused(ck, "block level " + std::to_string(level) + " of particle 4 is outside [0, 40]");
  }
  Checkpoint short_state = good;
  short_state.integrator.bytes.pop_back();
  expect_refused(short_state, "hermite4 state of");
  Checkpoint nan_time = good;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::memcpy(nan_time.integrator.bytes.data() + nan_time.integrator.bytes.size() - sizeof nan, &nan, sizeof nan);
  expect_refused(nan_time, "hermite4 time of particle 127 is not finite");
}

}  // namespace
}  // namespace nbody::test
