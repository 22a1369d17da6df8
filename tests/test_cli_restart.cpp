// Checkpoint and restart through the nbody program: bit-identical outputs after --resume, a
// run stopped by SIGTERM or a stop file, runs killed with SIGKILL at random moments, and the
// requests a resume must refuse.
#include <signal.h>

#include <fstream>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <thread>

#include "io/atomic_file.hpp"
#include "io/checkpoint.hpp"
#include "io/particle_file.hpp"
#include "io/run_directory.hpp"
#include "nbody/config.hpp"
#include "nbody/diagnostics.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

namespace fs = std::filesystem;

// A small fast run. The runs these tests start use one OpenMP thread: the results do not depend
// on the thread count, and two busy cores shared by parallel tests make threaded steps of 256
// bodies slower by orders of magnitude.
const std::string kBase = "run -n 256 --backend cpu --precision fp64 --diag-every 10 ";
const std::string kRun = kBase + "--dt 0.005 ";

void one_thread_children() { ::setenv("OMP_NUM_THREADS", "1", 1); }

std::string latest_snapshot(const fs::path& dir) {
  std::string best;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("snapshot_", 0) == 0 && !is_temporary_file(e.path())) best = std::max(best, name);
  }
  return best;
}

// Every file of the run directory except temporaries reads back whole (snapshots of n bodies).
void expect_valid_run_files(const fs::path& dir, const std::string& context, std::size_t n = 256) {
  if (!fs::exists(dir)) return;
  for (const auto& e : fs::directory_iterator(dir)) {
    const fs::path p = e.path();
    const std::string name = p.filename().string();
    if (is_temporary_file(p)) continue;
    try {
      if (name.rfind("snapshot_", 0) == 0) {
        EXPECT_EQ(read_particle_file(p).particles.size(), n) << context << " " << name;
      } else if (name.rfind("checkpoint_", 0) == 0) {
        (void)read_checkpoint(p);
      } else if (name == "config.toml") {
        RunConfig cfg;
        apply_toml_file(cfg, p);
      } else if (name == "diagnostics.csv" || name == "lagrangian_radii.csv") {
        const std::string header = name == "diagnostics.csv" ? diagnostics_csv_header() : lagrangian_csv_header();
        const auto columns = std::count(header.begin(), header.end(), ',');
        const std::string text = read_text(p);
        if (!text.empty()) EXPECT_EQ(text.back(), '\n') << context << ": a partial row in " << name;
        for (const auto& line : lines(text)) EXPECT_EQ(std::count(line.begin(), line.end(), ','), columns) << context;
      }
    } catch (const std::exception& ex) {
      ADD_FAILURE() << context << ": " << name << " does not read back: " << ex.what();
    }
  }
}

void expect_same_file(const fs::path& a, const fs::path& b) {
  ASSERT_TRUE(fs::exists(a)) << a;
  ASSERT_TRUE(fs::exists(b)) << b;
  EXPECT_TRUE(read_text(a) == read_text(b)) << a << " and " << b << " differ";
}

// The files a resumed run rewrites or appends to, compared whole with an uninterrupted run's.
void expect_same_logs(const fs::path& a, const fs::path& b) {
  for (const char* f : {"diagnostics.csv", "lagrangian_radii.csv", "model.toml"}) expect_same_file(a / f, b / f);
}

// Run in `dir`, then move the result to `keep`: a run to compare with must have used the same
// --out, since HDF5 snapshots record the whole configuration.
void reference_run(const std::string& args, const fs::path& dir, const fs::path& keep) {
  const auto r = run_nbody(args + " --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  fs::rename(dir, keep);
}

class CliRestart : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { one_thread_children(); }
};

TEST_P(CliRestart, ResumedRunGivesTheSameBytesAsAnUninterruptedOne) {
  const std::string format = GetParam();
  if (format == "hdf5" && !hdf5_available()) GTEST_SKIP() << "skipped: built without HDF5";
  const fs::path base = temp_dir("restart_" + format);
  const std::string args = kRun + "--snapshot-every 15 --snapshot-format " + format;
  reference_run(args + " --steps 80", base / "run", base / "straight");
  // 40 steps, then 40 more: the end-of-run row and snapshot at step 40 are not on the schedule
  // and must not survive into the longer run.
  const auto first = run_nbody(args + " --steps 40 --out " + (base / "run").string());
  ASSERT_EQ(first.status, 0) << first.err;
  const auto second = run_nbody("run --resume " + (base / "run").string() + " --steps 80");
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_NE(second.out.find("resumed at step 40"), std::string::npos) << second.out;
  const std::string last = latest_snapshot(base / "straight");
  EXPECT_EQ(last, latest_snapshot(base / "run"));
  expect_same_file(base / "straight" / last, base / "run" / last);
  expect_same_logs(base / "straight", base / "run");
  // Every snapshot written after the resume, and the final checkpoint, are the same too.
  for (const char* f : {"snapshot_003", "snapshot_004", "snapshot_005", "snapshot_006"}) {
    const std::string name = f + std::string(".") + format;
    expect_same_file(base / "straight" / name, base / "run" / name);
  }
  expect_same_file(base / "straight" / "checkpoint_0000000080.ckpt", base / "run" / "checkpoint_0000000080.ckpt");
}

INSTANTIATE_TEST_SUITE_P(Formats, CliRestart, testing::Values("hdf5", "csv", "tipsy"));

// The models with the other integrators, precisions and unit systems: run part of the way (with
// end-of-run outputs off the schedule) and resumed, the run is byte for byte the uninterrupted one.
struct ModelCase {
  std::string name;
  std::string args;
  std::size_t n = 256;
};
void PrintTo(const ModelCase& c, std::ostream* os) { *os << c.name; }

class CliModelRestart : public testing::TestWithParam<ModelCase> {
 protected:
  void SetUp() override { one_thread_children(); }
};

TEST_P(CliModelRestart, ResumedRunGivesTheSameBytesAsAnUninterruptedOne) {
  const fs::path base = temp_dir("restart_model_" + GetParam().name);
  const std::string format = hdf5_available() ? "hdf5" : "csv";
  const std::string args = "run --device cpu --diag-every 5 --snapshot-every 10 --snapshot-format " + format + " " +
                           GetParam().args;
  reference_run(args + " --steps 30", base / "run", base / "straight");
  // Step 17 is on neither schedule: its rows and snapshot must not survive into the longer run.
  const auto first = run_nbody(args + " --steps 17 --out " + (base / "run").string());
  ASSERT_EQ(first.status, 0) << first.err;
  const auto second = run_nbody("run --resume " + (base / "run").string() + " --steps 30");
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_NE(second.out.find("resumed at step 17"), std::string::npos) << second.out;
  expect_valid_run_files(base / "run", GetParam().name, GetParam().n);
  expect_same_logs(base / "straight", base / "run");
  for (const char* f : {"snapshot_002", "snapshot_003"}) {
    const std::string name = f + std::string(".") + format;
    expect_same_file(base / "straight" / name, base / "run" / name);
  }
  expect_same_file(base / "straight" / "checkpoint_0000000030.ckpt", base / "run" / "checkpoint_0000000030.ckpt");
  expect_same_file(base / "straight" / "config.toml", base / "run" / "config.toml");
}

INSTANTIATE_TEST_SUITE_P(
    Models, CliModelRestart,
    testing::Values(
        // A King cluster in galactic units (1e5 Msun within 10 pc; crossing time ~ 4 Myr) with
        // Hermite block steps.
        ModelCase{"king_galactic_hermite4", "--ic king -n 256 --units galactic --mass-scale 1e5 --length-scale 0.01 "
                                            "--softening 1e-4 --precision fp64 --integrator hermite4 --dt-mode block "
                                            "--dt 1e-4"},
        ModelCase{"solar_system_yoshida4", "--ic solar-system -n 10 --units solar --softening 0 --precision fp64 "
                                           "--integrator yoshida4 --dt 0.01",
                 10},
        ModelCase{"disk_galaxy_mixed", "--ic disk-galaxy -n 256 --precision mixed --dt 0.01"},
        ModelCase{"galaxy_collision_fp32", "--ic galaxy-collision -n 256 --precision fp32 --dt 0.01"},
        // The tree with GADGET's relative criterion: its |a| history is in the checkpoint (without
        // it the resumed run's first pass would be Barnes-Hut, and the bits would part). Leaves
        // and groups of 4: with the defaults (16, 64) 256 bodies make 4 groups, whose weakest
        // |a| moves too little in a step for the cells the history opens to change, and a
        // resumed run that opened cells by the wrong history still gave the same bits.
        ModelCase{"plummer_tree_relative_fp32", "--ic plummer -n 256 --precision fp32 --dt 0.01 --gravity tree "
                                                "--tree-criterion relative --tree-alpha 0.05 --tree-leaf-size 4 "
                                                "--tree-group-size 4"}),
    [](const testing::TestParamInfo<ModelCase>& info) { return info.param.name; });

// The tree's relative criterion opens the cells of a pass by the |a| of the pass before. The
// checkpoint holds no accelerations, so a resumed leapfrog or yoshida4 run computes those at the
// checkpoint's positions again as its first pass, which must open the cells the uninterrupted
// run's last pass before the checkpoint opened (by the |a| of the pass before that one); a
// resumed euler run's first pass is the next one (its steps start at new positions), by the
// last pass's |a|. Resumed at step 50 (on the snapshot schedule), byte for byte the
// uninterrupted run in both precisions.
struct TreeResumeCase {
  std::string integrator, precision;
};
void PrintTo(const TreeResumeCase& c, std::ostream* os) { *os << c.integrator << "_" << c.precision; }

class CliTreeRestart : public testing::TestWithParam<TreeResumeCase> {
 protected:
  void SetUp() override { one_thread_children(); }
};

TEST_P(CliTreeRestart, RelativeCriterionResumedRunGivesTheSameBytes) {
  const auto& c = GetParam();
  const fs::path base = temp_dir("restart_tree_relative_" + c.integrator + "_" + c.precision);
  const std::string args = "run --gravity tree --device cpu -n 2000 --dt 0.002 --diag-every 10 --snapshot-every 25 "
                           "--snapshot-format csv --tree-criterion relative --tree-alpha 0.05 --integrator " +
                           c.integrator + " --precision " + c.precision;
  const auto resumed = run_straight_and_resumed(args, base.string(), 50, 100);
  EXPECT_NE(resumed.out.find("resumed at step 50"), std::string::npos) << resumed.out;
  for (const char* f : {"snapshot_002.csv", "snapshot_003.csv", "snapshot_004.csv", "diagnostics.csv",
                        "lagrangian_radii.csv", "checkpoint_0000000100.ckpt"}) {
    expect_same_file(base / "straight" / f, base / "run" / f);
  }
}

INSTANTIATE_TEST_SUITE_P(Integrators, CliTreeRestart,
                         testing::Values(TreeResumeCase{"leapfrog", "fp64"}, TreeResumeCase{"leapfrog", "fp32"},
                                         TreeResumeCase{"euler", "fp64"}, TreeResumeCase{"euler", "fp32"},
                                         TreeResumeCase{"yoshida4", "fp64"}, TreeResumeCase{"yoshida4", "fp32"}),
                         [](const testing::TestParamInfo<TreeResumeCase>& info) {
                           return info.param.integrator + "_" + info.param.precision;
                         });

// Waits until the run has started stepping (its step-0 diagnostics row is there).
bool wait_until_running(const fs::path& dir, const Child& c) {
  for (int i = 0; i < 5000; ++i) {
    if (lines(read_text((dir / "diagnostics.csv").string())).size() >= 2) return true;
    int raw = 0;
    if (::waitpid(c.pid, &raw, WNOHANG) == c.pid) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

// Stops a long run (by `how`), checks the clean exit, resumes it to a few steps past where it
// stopped, and compares with a run of that length from the start.
void stop_and_resume(const std::string& tag, const std::function<void(const Child&, const fs::path&)>& how,
                     const std::string& expect_message, int delay_ms = 30) {
  const fs::path base = temp_dir(tag);
  const fs::path dir = base / "run";
  const std::string args = kRun + "--snapshot-format csv --checkpoint-every 1000";
  const Child c = start_nbody(args + " --steps 100000000 --out " + dir.string(), base.string());
  ASSERT_TRUE(wait_until_running(dir, c)) << read_text(c.err_file);
  std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));  // into the stepping
  how(c, dir);
  const int status = wait_child(c, 30);
  EXPECT_EQ(status, 0) << read_text(c.err_file);
  const std::string out = read_text(c.out_file);
  EXPECT_NE(out.find("stopped at step"), std::string::npos) << out;
  EXPECT_NE(out.find(expect_message), std::string::npos) << out;
  EXPECT_NE(out.find("--resume " + dir.string()), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "stop"));
  expect_valid_run_files(dir, tag);
  const auto found = RunDirectory::latest_checkpoint(dir);
  const std::int64_t stopped = found.checkpoint.step;
  ASSERT_GE(stopped, 0);

  const std::string steps = std::to_string(stopped + 25);
  const auto resumed = run_nbody("run --resume " + dir.string() + " --steps " + steps);
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  reference_run(args + " --steps " + steps, base / "ref", base / "straight");
  const std::string last = latest_snapshot(base / "straight");
  expect_same_file(base / "straight" / last, dir / latest_snapshot(dir));
  expect_same_logs(base / "straight", dir);
}

TEST(CliStop, SigtermCheckpointsExitsZeroAndResumes) {
  one_thread_children();
  stop_and_resume(
      "sigterm", [](const Child& c, const fs::path&) { ::kill(c.pid, SIGTERM); }, "by SIGTERM");
}

TEST(CliStop, SigintCheckpointsExitsZeroAndResumes) {
  one_thread_children();
  stop_and_resume(
      "sigint", [](const Child& c, const fs::path&) { ::kill(c.pid, SIGINT); }, "by SIGINT");
}

TEST(CliStop, SignalBeforeTheFirstStepStopsAtStepZero) {
  one_thread_children();
  // As soon as the step-0 outputs exist: often before the first step is done, which must not
  // write the step-0 outputs twice.
  stop_and_resume(
      "sigearly", [](const Child& c, const fs::path&) { ::kill(c.pid, SIGTERM); }, "by SIGTERM", 0);
}

TEST(CliStop, StopFileCheckpointsExitsZeroAndIsRemoved) {
  one_thread_children();
  stop_and_resume(
      "stopfile", [](const Child&, const fs::path& dir) { write_file_atomic(dir / "stop", ""); }, "by the stop file");
}

// SIGKILL at random moments (seeded), then resume until the run completes: every file left
// reads back, and the result is the uninterrupted run's, byte for byte.
TEST(CliFaultInjection, KilledAtRandomMomentsResumesToTheSameBytes) {
  one_thread_children();
  const fs::path base = temp_dir("sigkill");
  const std::string args = kRun + "--snapshot-format csv --snapshot-every 50 --checkpoint-every 4 --steps 300";
  const auto t0 = std::chrono::steady_clock::now();
  reference_run(args, base / "ref", base / "straight");
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string last = latest_snapshot(base / "straight");

  std::mt19937_64 rng(20261122);
  constexpr int kTrials = 8;
  int kills_that_hit = 0, resumes = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    const std::string context = "trial " + std::to_string(trial);
    const fs::path dir = base / ("t" + std::to_string(trial));
    std::string cmd = args + " --out " + dir.string();
    // Up to two kills a trial: the first run, then a resumed one.
    for (int attempt = 0; attempt < 3; ++attempt) {
      const Child c = start_nbody(cmd, base.string());
      if (attempt < 2) {
        const auto delay = std::uniform_real_distribution<double>(0.0, 0.9 * wall)(rng);
        std::this_thread::sleep_for(std::chrono::duration<double>(delay));
        ::kill(c.pid, SIGKILL);
      }
      const int status = wait_child(c, 60);
      if (status == 128 + SIGKILL)
        ++kills_that_hit;
      else
        EXPECT_EQ(status, 0) << context << ": " << read_text(c.err_file);
      expect_valid_run_files(dir, context);
      // Resume when there is a checkpoint; start over when the run died before its first one.
      bool resumable = false;
      try {
        (void)RunDirectory::latest_checkpoint(dir);
        resumable = true;
      } catch (const std::exception&) {
      }
      resumes += resumable;
      cmd = resumable ? "run --resume " + dir.string() : args + " --overwrite --out " + dir.string();
    }
    ASSERT_TRUE(fs::exists(dir / last)) << context;
    expect_same_file(base / "straight" / last, dir / last);
    expect_same_logs(base / "straight", dir);
    for (const auto& e : fs::directory_iterator(dir)) EXPECT_FALSE(is_temporary_file(e.path())) << context << e.path();
  }
  RecordProperty("kills_that_hit", kills_that_hit);
  RecordProperty("resumes", resumes);
  std::printf("fault injection: %d of %d kills hit a running run, %d resumes (the reference run took %.3f s)\n",
              kills_that_hit, 2 * kTrials, resumes, wall);
  EXPECT_GT(kills_that_hit, 0);
}

// ---- refusals ------------------------------------------------------------------------

class CliResumeRefusal : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    one_thread_children();
    dir_ = temp_dir("refusal_run") + "/run";
    const auto r = run_nbody(kRun + "--snapshot-format csv --steps 20 --out " + dir_);
    ASSERT_EQ(r.status, 0) << r.err;
  }
  static void expect_refused(const std::string& args, const std::string& names) {
    const auto before = read_text(dir_ + "/diagnostics.csv");
    const auto r = run_nbody(args);
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    const auto err = lines(r.err);
    ASSERT_EQ(err.size(), 1u) << r.err;
    EXPECT_NE(err[0].find(names), std::string::npos) << err[0];
    EXPECT_EQ(read_text(dir_ + "/diagnostics.csv"), before) << "the run directory was touched";
  }
  static std::string dir_;
};
std::string CliResumeRefusal::dir_;

TEST_F(CliResumeRefusal, PhysicsParametersMayNotChange) {
  expect_refused("run --resume " + dir_ + " --dt 0.01", "--dt");
  expect_refused("run --resume " + dir_ + " --softening 0.1", "--softening");
  expect_refused("run --resume " + dir_ + " --integrator euler", "--integrator");
  expect_refused("run --resume " + dir_ + " --precision fp32", "--precision");
  expect_refused("run --resume " + dir_ + " -n 100", "--n");
  expect_refused("run --resume " + dir_ + " --seed 7", "--seed");
  expect_refused("run --resume " + dir_ + " --snapshot-format tipsy", "--snapshot-format");
  expect_refused("run --resume " + dir_ + " -G 2", "--gravitational-constant");
}

// The initial conditions are in the checkpoint, so their parameters cannot act on a resumed run;
// they are refused all the same, so that config.toml, model.toml and the snapshots' /Parameters
// and /Units keep describing the run the state was drawn for.
TEST_F(CliResumeRefusal, ModelParametersAndUnitsMayNotChange) {
  expect_refused("run --resume " + dir_ + " --units galactic --mass-scale 1e5 --length-scale 0.01", "--units");
  expect_refused("run --resume " + dir_ + " --mass-scale 1e5", "--mass-scale");
  expect_refused("run --resume " + dir_ + " --king-w0 9", "--king-w0");
  expect_refused("run --resume " + dir_ + " --virial-ratio 0.5", "--virial-ratio");
  expect_refused("run --resume " + dir_ + " --ic king", "--ic");
}

TEST_F(CliResumeRefusal, StepsBeforeTheCheckpointAreRefused) {
  expect_refused("run --resume " + dir_ + " --steps 10", "--steps");
}

TEST_F(CliResumeRefusal, NoCheckpointIsRefused) {
  const std::string empty = temp_dir("refusal_empty");
  for (const std::string& d : {empty, empty + "/missing", dir_ + "/config.toml"}) {
    const auto r = run_nbody("run --resume " + d);
    EXPECT_EQ(r.status, 2) << r.err;
    ASSERT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_NE(r.err.find("resume:"), std::string::npos) << r.err;
  }
  EXPECT_NE(run_nbody("run --resume " + empty + "/missing").err.find("'" + empty + "/missing' does not exist"),
            std::string::npos);
  // A run directory whose checkpoints all fail to read back is refused (they may be recoverable).
  const std::string bad_ck = temp_dir("refusal_badck");
  fs::copy(dir_, bad_ck + "/run");
  for (const auto& e : fs::directory_iterator(bad_ck + "/run")) {
    if (e.path().extension() == ".ckpt") write_file_atomic(e.path(), "NBODYCKP damaged");
  }
  const auto r = run_nbody("run --resume " + bad_ck + "/run");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no usable checkpoint"), std::string::npos) << r.err;
}

TEST_F(CliResumeRefusal, ADamagedLatestCheckpointFallsBackToThePreviousOne) {
  const fs::path copy = fs::path(temp_dir("refusal_damaged")) / "run";
  const auto made = run_nbody(kRun + "--snapshot-format csv --steps 30 --checkpoint-every 10 --out " + copy.string());
  ASSERT_EQ(made.status, 0) << made.err;
  // checkpoints at 20 and 30 are kept; damage the one at 30
  ASSERT_TRUE(fs::exists(copy / "checkpoint_0000000020.ckpt"));
  std::string bytes = read_text(copy / "checkpoint_0000000030.ckpt");
  bytes[bytes.size() / 2] ^= 1;
  write_file_atomic(copy / "checkpoint_0000000030.ckpt", bytes);
  const auto r = run_nbody("run --resume " + copy.string());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("resumed at step 20"), std::string::npos) << r.out;
  EXPECT_NE(read_text(copy / "run.log").find("checksum"), std::string::npos);
}

TEST_F(CliResumeRefusal, OutputCadenceMayChange) {
  const fs::path copy = fs::path(temp_dir("refusal_cadence")) / "run";
  fs::copy(dir_, copy);
  const auto r = run_nbody("run --resume " + copy.string() + " --steps 30 --diag-every 5 --checkpoint-every 3");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(read_text(copy / "config.toml").find("steps = 30\n"), std::string::npos);
}

// A run directory written by the previous release (flat config.toml, `backend` in the
// checkpoint's configuration) resumes, and continues into the files the release's uninterrupted
// run wrote, byte for byte.
TEST(CliRestart, ARunDirectoryOfTheReleaseResumes) {
  one_thread_children();
  const std::string data = NBODY_TEST_DATA;
  const fs::path copy = fs::path(temp_dir("release_run")) / "run";
  fs::copy(data + "/release_run", copy);
  const auto r = run_nbody("run --resume " + copy.string() + " --steps 6");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("resumed at step 4"), std::string::npos) << r.out;
  for (const char* f : {"diagnostics.csv", "lagrangian_radii.csv"}) {
    expect_same_file(fs::path(data) / "release_run_straight6" / f, copy / f);
  }
  // The snapshot's bodies byte for byte; its metadata comment has since gained the run's
  // softening (", softening = 0.01" after the units), which is all that differs.
  std::string snapshot = read_text(copy / "snapshot_001.csv");
  const std::string added = ", softening = 0.01\n";
  const auto at = snapshot.find(added);
  ASSERT_NE(at, std::string::npos) << snapshot.substr(0, 300);
  snapshot.replace(at, added.size(), "\n");
  EXPECT_TRUE(snapshot == read_text(fs::path(data) / "release_run_straight6" / "snapshot_001.csv"));
  // config.toml is rewritten in sections.
  const std::string cfg = read_text(copy / "config.toml");
  EXPECT_NE(cfg.find("[integrator]\n"), std::string::npos) << cfg;
  EXPECT_NE(cfg.find("device = \"cpu\"\n"), std::string::npos) << cfg;
  EXPECT_NE(cfg.find("steps = 6\n"), std::string::npos) << cfg;
  // Giving the old spelling of what it runs on is no change.
  const auto again = run_nbody("run --resume " + copy.string() + " --steps 8 --backend cpu");
  EXPECT_EQ(again.status, 0) << again.err;
}

// ---- schedules -----------------------------------------------------------------------

TEST(CliSchedule, SnapshotsInSimulationTime) {
  one_thread_children();
  // dt = 0.03, every 0.1: the first steps at or past t = 0.1, 0.2, 0.3 are 4, 7, 10.
  const fs::path dir = fs::path(temp_dir("every_t")) / "run";
  const auto r =
      run_nbody(kBase + "--dt 0.03 --steps 10 --snapshot-every-t 0.1 --snapshot-format tipsy --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<double> times;
  for (int i = 0; i < 10; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "snapshot_%03d.tipsy", i);
    if (!fs::exists(dir / name)) break;
    times.push_back(read_particle_file(dir / name).info.time);
  }
  const std::vector<double> want = {0.0, 4 * 0.03, 7 * 0.03, 10 * 0.03};
  EXPECT_EQ(times, want);
}

TEST(CliSchedule, WallClockCheckpoints) {
  one_thread_children();
  const fs::path dir = fs::path(temp_dir("every_s")) / "run";
  const auto r = run_nbody(kRun + "--steps 40 --checkpoint-every-s 1e-9 --snapshot-format csv --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string log = read_text(dir / "run.log");
  // A checkpoint after every chunk of steps (chunks end at each diagnostics step).
  EXPECT_NE(log.find("checkpoint at step 10"), std::string::npos) << log;
  EXPECT_NE(log.find("checkpoint at step 20"), std::string::npos) << log;
  // Only the latest two are kept.
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.path().extension() == ".ckpt";
  EXPECT_EQ(files, 2);
}


std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  for (const char c : line) {
    if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

// ---- one process per run directory -----------------------------------------------------

// A second run into a running run's --out, --overwrite of it and --resume of it are refused with
// exit 2 naming the holder, and leave the running run's files alone; once it has stopped, it
// resumes.
TEST(CliLock, ARunningRunsDirectoryIsRefusedToOtherProcesses) {
  one_thread_children();
  const fs::path base = temp_dir("lock");
  const fs::path dir = base / "run";
  const Child c = start_nbody(kRun + "--snapshot-format csv --steps 100000000 --out " + dir.string(), base.string());
  ASSERT_TRUE(wait_until_running(dir, c)) << read_text(c.err_file);
  const std::string config = read_text(dir / "config.toml");
  for (const std::string& args : {kRun + "--steps 10 --snapshot-format csv --out " + dir.string(),
                                  kRun + "--steps 10 --snapshot-format csv --overwrite --out " + dir.string(),
                                  "run --resume " + dir.string()}) {
    const auto r = run_nbody(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.out << r.err;
    ASSERT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_NE(r.err.find("in use by another nbody process (pid " + std::to_string(c.pid) + " on host "),
              std::string::npos)
        << r.err;
  }
  EXPECT_EQ(read_text(dir / "config.toml"), config);
  ::kill(c.pid, SIGTERM);
  EXPECT_EQ(wait_child(c, 30), 0) << read_text(c.err_file);
  expect_valid_run_files(dir, "lock");
  const std::int64_t stopped = RunDirectory::latest_checkpoint(dir).checkpoint.step;
  const auto resumed = run_nbody("run --resume " + dir.string() + " --steps " + std::to_string(stopped + 5));
  EXPECT_EQ(resumed.status, 0) << resumed.err;
}

// The lock file a run that failed before writing anything leaves behind (not held by anyone)
// does not make its directory "not empty".
TEST(CliLock, ADirectoryWithOnlyAStaleLockFileIsUsable) {
  const fs::path dir = fs::path(temp_dir("stale_lock")) / "run";
  fs::create_directories(dir);
  std::ofstream(dir / RunDirectoryLock::kFileName) << "pid 1 host elsewhere\n";
  const auto r = run_nbody(kRun + "--steps 2 --snapshot-format csv --out " + dir.string());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "config.toml"));
}

// ---- checkpoints belong to their run ----------------------------------------------------

TEST(CliRunId, ACheckpointOfAnotherRunIsRefusedBeforeAnythingIsTouched) {
  one_thread_children();
  const fs::path base = temp_dir("run_id");
  const std::string args = kRun + "--snapshot-format csv --checkpoint-every 10 --steps 20";
  ASSERT_EQ(run_nbody(args + " --out " + (base / "a").string()).status, 0);
  ASSERT_EQ(run_nbody(args + " --seed 2 --out " + (base / "b").string()).status, 0);
  const std::string id = read_text(base / "a" / "run_id");
  ASSERT_EQ(id.size(), 17u) << id;
  EXPECT_EQ(read_checkpoint(base / "a" / "checkpoint_0000000020.ckpt").run_id + "\n", id);
  EXPECT_NE(read_text(base / "b" / "run_id"), id);
  // b's checkpoint, copied into a as its newest
  fs::copy_file(base / "b" / "checkpoint_0000000020.ckpt", base / "a" / "checkpoint_0000000030.ckpt");
  std::map<std::string, std::string> before;
  for (const auto& e : fs::directory_iterator(base / "a")) before[e.path().filename().string()] = read_text(e.path());
  const auto r = run_nbody("run --resume " + (base / "a").string() + " --steps 40");
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  ASSERT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("checkpoint_0000000030.ckpt belongs to another run"), std::string::npos) << r.err;
  std::map<std::string, std::string> after;
  for (const auto& e : fs::directory_iterator(base / "a")) after[e.path().filename().string()] = read_text(e.path());
  EXPECT_TRUE(before == after) << "the run directory was touched";
}

// ---- a run killed before its first checkpoint ---------------------------------------------

TEST(CliRestart, ARunWithoutACheckpointStartsAgainFromStepZero) {
  one_thread_children();
  const fs::path base = temp_dir("no_checkpoint");
  const fs::path dir = base / "run";
  const std::string args = kRun + "--snapshot-format csv --snapshot-every 10";
  reference_run(args + " --steps 30", dir, base / "straight");
  // Killed long before its first (wall-clock) checkpoint.
  const Child c = start_nbody(args + " --steps 100000000 --out " + dir.string(), base.string());
  ASSERT_TRUE(wait_until_running(dir, c)) << read_text(c.err_file);
  ::kill(c.pid, SIGKILL);
  wait_child(c, 30);
  ASSERT_FALSE(RunDirectory::has_checkpoint_files(dir));
  const auto r = run_nbody("run --resume " + dir.string() + " --steps 30");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("no checkpoint in " + dir.string()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("starting it again from step 0"), std::string::npos) << r.out;
  EXPECT_NE(read_text(dir / "run.log").find("starting it again from step 0"), std::string::npos);
  expect_same_logs(base / "straight", dir);
  expect_same_file(base / "straight" / "snapshot_003.csv", dir / "snapshot_003.csv");
  expect_same_file(base / "straight" / "checkpoint_0000000030.ckpt", dir / "checkpoint_0000000030.ckpt");
}

TEST(CliDefaults, AWallClockCheckpointEveryHalfHour) {
  const fs::path dir = fs::path(temp_dir("default_cadence")) / "run";
  const auto r = run_nbody("run -n 16 --steps 1 --backend cpu --snapshot-format csv --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(read_text(dir / "config.toml").find("checkpoint_every_s = 1800.0\n"), std::string::npos);
  const auto help = run_nbody("run --help");
  EXPECT_NE(help.out.find("(default: 1800)"), std::string::npos) << help.out;
}

// ---- continuing with changed physics; the run's length in simulation time ------------------

TEST(CliFrom, ANewRunContinuesFromACheckpointWithChangedPhysics) {
  one_thread_children();
  const fs::path base = temp_dir("from");
  ASSERT_EQ(run_nbody(kRun + "--snapshot-format csv --steps 20 --out " + (base / "a").string()).status, 0);
  const std::string a_id = read_text(base / "a" / "run_id");
  // --resume refuses the change and names the way to make it.
  const auto refused = run_nbody("run --resume " + (base / "a").string() + " --integrator hermite4 --steps 30");
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("nbody run --from"), std::string::npos) << refused.err;

  const fs::path b = base / "b";
  const auto r = run_nbody("run --from " + (base / "a").string() + " --integrator hermite4 --dt 0.0025 --steps 8 " +
                           "--out " + b.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("continued from"), std::string::npos) << r.out;
  const std::string model = read_text(b / "model.toml");
  EXPECT_NE(model.find("[continued_from]"), std::string::npos) << model;
  EXPECT_NE(model.find("checkpoint_0000000020.ckpt\""), std::string::npos) << model;
  EXPECT_NE(model.find("step = 20\n"), std::string::npos) << model;
  EXPECT_NE(model.find("run_id = \"" + a_id.substr(0, 16) + "\""), std::string::npos) << model;
  // Its step 0 is the checkpoint's state at the checkpoint's time: t = 20 * 0.005 = 0.1.
  const auto diag = lines(read_text(b / "diagnostics.csv"));
  ASSERT_GE(diag.size(), 3u);
  const auto first = csv_fields(diag[1]), a_last = csv_fields(lines(read_text(base / "a" / "diagnostics.csv")).back());
  EXPECT_EQ(first[0], "0");
  EXPECT_EQ(first[1], a_last[1]);  // the time
  for (int i : {2, 3, 4}) EXPECT_EQ(first[i], a_last[i]) << "the same state: kinetic, potential, total energy";
  const std::string cfg = read_text(b / "config.toml");
  EXPECT_NE(cfg.find("integrator = \"hermite4\""), std::string::npos);
  EXPECT_NE(cfg.find("start_time = 0.1\n"), std::string::npos) << cfg;
  // The new run resumes as any other.
  EXPECT_EQ(run_nbody("run --resume " + b.string() + " --steps 12").status, 0);
  // Its model is the checkpoint's.
  const auto model_change = run_nbody("run --from " + (base / "a").string() + " --ic king --out " + (base / "c").string());
  EXPECT_EQ(model_change.status, 2);
  EXPECT_NE(model_change.err.find("--ic"), std::string::npos) << model_change.err;
  EXPECT_FALSE(fs::exists(base / "c"));
  EXPECT_EQ(run_nbody("run --from '' --out " + (base / "d").string()).status, 2);
}

TEST(CliTEnd, RunsToASimulationTime) {
  one_thread_children();
  const fs::path dir = fs::path(temp_dir("t_end")) / "run";
  const auto r = run_nbody(kRun + "--snapshot-format csv --t-end 0.1 --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(read_text(dir / "config.toml").find("steps = 20\n"), std::string::npos);  // 0.1 / 0.005
  EXPECT_EQ(lines(read_text(dir / "diagnostics.csv")).back().rfind("20,", 0), 0u);
  // Longer on resume, in simulation time.
  const auto more = run_nbody("run --resume " + dir.string() + " --t-end 0.15");
  ASSERT_EQ(more.status, 0) << more.err;
  EXPECT_EQ(lines(read_text(dir / "diagnostics.csv")).back().rfind("30,", 0), 0u);
  const auto both = run_nbody(kRun + "--steps 5 --t-end 1");
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.err.find("--t-end"), std::string::npos) << both.err;
}

// --ic file: the run goes on from the file's time.
TEST(CliIcFile, StartsAtTheFilesTime) {
  one_thread_children();
  const fs::path base = temp_dir("ic_time");
  ASSERT_EQ(run_nbody(kRun + "--snapshot-format tipsy --steps 10 --out " + (base / "a").string()).status, 0);
  const auto r = run_nbody(kBase + "--dt 0.005 --steps 4 --ic file:" + (base / "a" / "snapshot_001.tipsy").string() +
                           " --snapshot-format csv --out " + (base / "b").string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("start time t = 0.05"), std::string::npos) << r.out;
  const auto a_last = csv_fields(lines(read_text(base / "a" / "diagnostics.csv")).back());
  const auto diag = lines(read_text(base / "b" / "diagnostics.csv"));
  EXPECT_EQ(csv_fields(diag[1])[1], a_last[1]) << diag[1];
  const auto last = csv_fields(diag.back());
  EXPECT_EQ(last[0], "4");
  EXPECT_NEAR(std::stod(last[1]), 0.07, 1e-12);
}

}  // namespace
}  // namespace nbody::test
