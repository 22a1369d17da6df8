// `nbody pic run` under the run contract it shares with `nbody run`: the run directory (deck.toml
// with every --set applied, run.log, the lock, run_id), the refusal of a non-empty --out and of
// time.steps beside time.t_end, checkpoints on SIGTERM, on a stop file, every
// checkpoint_every_s of wall time and at the end, and --resume DIR continuing every file — the
// diagnostics' time integrals included — byte for byte as the uninterrupted run writes it.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <thread>

#include "support.hpp"

namespace nbody::test {
namespace {

namespace fs = std::filesystem;

// Document 004's hole boring, small: 60 x 4 cells, a circularly polarised laser on a thermal
// plasma with absorbing and thermal walls, the deterministic deposition.
const char* kDeck = R"([grid]
nx = 60
ny = 4
dx = 0.02
dy = 0.04
x0 = -0.2
boundary_x = "open"
[time]
steps = 60
courant = 0.95
[solver]
field = "ck"
shape = "tsc"
deposit = "deterministic"
[laser]
a0 = 3.0
polarisation = "circular"
envelope = "sin2"
duration = 1.0
[output]
diag_every = 10
fields_every = 30
images_every = 30
checkpoint_every = 30
[[species]]
name = "electron"
ppc = 4
density = 4.0
x_start = -0.15
x_end = 0.9
temperature_keV = 10.0
boundary_xmin = "thermal"
boundary_xmax = "absorb"
[[species]]
name = "deuteron"
ppc = 2
density = 4.0
x_start = -0.15
x_end = 0.9
boundary_xmin = "reflect"
boundary_xmax = "absorb"
)";

fs::path write_deck(const fs::path& base, const std::string& text = kDeck) {
  fs::create_directories(base);
  const fs::path p = base / "deck.in.toml";
  std::ofstream(p) << text;
  return p;
}

// The files of a run directory that an identical run writes with the same bytes (run.log has
// timestamps, the lock the process id).
std::set<std::string> compared_files(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), dir).string();
    if (rel == "run.log" || rel == ".nbody.lock") continue;
    out.insert(rel);
  }
  return out;
}

// Every file of `a` and `b` the same, byte for byte, and the same set of files but for the
// checkpoints (an interrupted run keeps the one it stopped with): those both hold are the same.
void expect_same_directories(const fs::path& a, const fs::path& b) {
  auto fa = compared_files(a), fb = compared_files(b);
  const auto is_checkpoint = [](const std::string& f) { return f.size() > 5 && f.substr(f.size() - 5) == ".ckpt"; };
  std::set<std::string> ca, cb;
  for (const auto& f : fa) if (!is_checkpoint(f)) ca.insert(f);
  for (const auto& f : fb) if (!is_checkpoint(f)) cb.insert(f);
  EXPECT_EQ(ca, cb);
  for (const auto& f : fa) {
    if (!fb.count(f)) continue;
    EXPECT_TRUE(read_text((a / f).string()) == read_text((b / f).string())) << f << " differs";
  }
}

// A whole run in base/run, moved to base/straight (a run id records its directory).
void reference(const fs::path& deck, const fs::path& base, const std::string& extra) {
  const auto r = run_nbody("pic run --config " + deck.string() + " --out " + (base / "run").string() + " " + extra);
  ASSERT_EQ(r.status, 0) << r.err;
  fs::rename(base / "run", base / "straight");
}

TEST(PicCliRun, TheRunDirectoryHoldsTheResolvedDeckTheLogAndTheRunId) {
  const fs::path base = temp_dir("pic_dir");
  const fs::path deck = write_deck(base);
  const auto r = run_nbody("pic run --config " + deck.string() + " --set grid.nx=64 --out " + (base / "run").string());
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* f : {"deck.toml", "run.log", "run_id", "diagnostics.csv", "units.json", "checkpoint_0000000060.ckpt"})
    EXPECT_TRUE(fs::exists(base / "run" / f)) << f;
  const std::string resolved = read_text((base / "run" / "deck.toml").string());
  EXPECT_NE(resolved.find("nx = 64"), std::string::npos) << resolved;
  EXPECT_NE(read_text((base / "run" / "run.log").string()).find("pic: done on the"), std::string::npos);
  EXPECT_EQ(lines(read_text((base / "run" / "run_id").string())).front().size(), 16u);
  // The resolved deck runs again to the same bits (in the same directory: the run id names it).
  fs::rename(base / "run", base / "first");
  const auto again = run_nbody("pic run --config " + (base / "first" / "deck.toml").string());
  ASSERT_EQ(again.status, 0) << again.err;
  expect_same_directories(base / "first", base / "run");
}

TEST(PicCliRun, ANonEmptyOutIsRefusedUnlessOverwritten) {
  const fs::path base = temp_dir("pic_nonempty");
  const fs::path deck = write_deck(base);
  fs::create_directories(base / "run");
  std::ofstream(base / "run" / "pic_00000400.h5") << "an earlier run's dump";
  const auto r = run_nbody("pic run --config " + deck.string() + " --out " + (base / "run").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("is not empty"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_FALSE(fs::exists(base / "run" / "deck.toml"));
  const auto o = run_nbody("pic run --config " + deck.string() + " --overwrite --out " + (base / "run").string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_FALSE(fs::exists(base / "run" / "pic_00000400.h5"));  // the earlier run's files are gone
}

TEST(PicCliRun, StepsBesideTEndIsRefused) {
  const fs::path base = temp_dir("pic_steps_tend");
  std::string text = kDeck;
  text.replace(text.find("steps = 60"), 10, "steps = 60\nt_end = 2.0");
  const fs::path deck = write_deck(base, text);
  const auto r = run_nbody("pic run --config " + deck.string() + " --out " + (base / "run").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("time.steps and time.t_end"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(base / "run"));
  // A flag gives the length instead of the deck's t_end.
  std::string tend = kDeck;
  tend.replace(tend.find("steps = 60"), 10, "t_end = 2.0");
  const auto f = run_nbody("pic run --config " + write_deck(base / "t", tend).string() + " --steps 20 --out " +
                           (base / "t" / "run").string());
  EXPECT_EQ(f.status, 0) << f.err;
  EXPECT_NE(f.out.find("20 steps"), std::string::npos) << f.out;
}

TEST(PicCliRun, ACompletedRunExtendedByResumeGivesTheSameBytes) {
  const fs::path base = temp_dir("pic_extend");
  const fs::path deck = write_deck(base);
  reference(deck, base, "");
  const auto a = run_nbody("pic run --config " + deck.string() + " --steps 30 --out " + (base / "run").string());
  ASSERT_EQ(a.status, 0) << a.err;
  const auto b = run_nbody("pic run --resume " + (base / "run").string() + " --steps 60");
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_NE(b.out.find("pic: resumed from"), std::string::npos) << b.out;
  expect_same_directories(base / "straight", base / "run");
}

// Waits until the run has written its step-0 diagnostics row (it is stepping).
bool wait_until_stepping(const fs::path& dir, const Child& c) {
  for (int i = 0; i < 5000; ++i) {
    if (fs::exists(dir / "diagnostics.csv") && lines(read_text((dir / "diagnostics.csv").string())).size() >= 2) return true;
    int raw = 0;
    if (::waitpid(c.pid, &raw, WNOHANG) == c.pid) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

// A long run stopped by `how` checkpoints, exits 0 and says how to continue; resumed, its every
// file equals an uninterrupted run's.
// A long run (4000 steps, a diagnostics row every 50) started in base/run once its uninterrupted
// reference is in base/straight, and stepping.
struct LongRun {
  fs::path base, deck, dir;
  Child child;
};
LongRun start_long_run(const std::string& tag) {
  LongRun r;
  r.base = temp_dir(tag);
  r.deck = write_deck(r.base);
  const std::string args = "--steps 4000 --set output.fields_every=0 --set output.images_every=0 "
                           "--set output.checkpoint_every=0 --set output.diag_every=50";
  reference(r.deck, r.base, args);
  r.dir = r.base / "run";
  r.child = start_nbody("pic run --config " + r.deck.string() + " " + args + " --out " + r.dir.string(), r.base.string());
  EXPECT_TRUE(wait_until_stepping(r.dir, r.child)) << read_text(r.child.err_file);
  return r;
}

void stop_and_resume(const std::string& tag, const std::function<void(const Child&, const fs::path&)>& how,
                     const std::string& expect) {
  const LongRun run = start_long_run(tag);
  if (::testing::Test::HasFailure()) return;
  const fs::path& base = run.base;
  const fs::path& dir = run.dir;
  const Child& c = run.child;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  how(c, dir);
  EXPECT_EQ(wait_child(c, 60), 0) << read_text(c.err_file);
  const std::string out = read_text(c.out_file);
  EXPECT_NE(out.find("pic: stopped by " + expect), std::string::npos) << out;
  EXPECT_NE(out.find("--resume " + dir.string()), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "stop"));
  bool checkpoint = false;
  for (const auto& e : fs::directory_iterator(dir)) checkpoint |= e.path().extension() == ".ckpt";
  ASSERT_TRUE(checkpoint);
  ASSERT_EQ(lines(read_text((dir / "diagnostics.csv").string())).size() < 82u, true) << "not stopped early";
  const auto r = run_nbody("pic run --resume " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  expect_same_directories(base / "straight", dir);
}

TEST(PicCliRun, SigtermCheckpointsExitsZeroAndResumesToTheSameBytes) {
  stop_and_resume("pic_sigterm", [](const Child& c, const fs::path&) { ::kill(c.pid, SIGTERM); }, "SIGTERM");
}

TEST(PicCliRun, AStopFileCheckpointsExitsZeroAndResumesToTheSameBytes) {
  stop_and_resume("pic_stopfile", [](const Child&, const fs::path& dir) { std::ofstream(dir / "stop") << ""; },
                  "the stop file");
}

TEST(PicCliRun, CheckpointsEveryHalfHourOfWallTimeByDefault) {
  const fs::path base = temp_dir("pic_wall");
  const auto r = run_nbody("pic run --config " + write_deck(base).string() + " --set output.checkpoint_every=0 --out " +
                           (base / "run").string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(read_text((base / "run" / "deck.toml").string()).find("steps = 60"), std::string::npos);
  // The default is in the resolved deck's reading: checkpoint_every_s = 1800 unless given.
  const auto w = run_nbody("pic run --config " + write_deck(base / "w").string() +
                           " --steps 3000 --set output.checkpoint_every=0 --set output.fields_every=0 "
                           "--set output.images_every=0 --set output.checkpoint_every_s=0.05 --out " +
                           (base / "w" / "run").string());
  ASSERT_EQ(w.status, 0) << w.err;
  int wall = 0;
  for (const auto& l : lines(read_text((base / "w" / "run" / "run.log").string())))
    wall += l.find("checkpoint at step") != std::string::npos && l.find("step 3000") == std::string::npos;
  EXPECT_GE(wall, 1) << "no wall-clock checkpoint before the end";
}

TEST(PicCliRun, ADamagedCheckpointIsSkippedAndAnotherRunsCheckpointRefused) {
  const fs::path base = temp_dir("pic_damaged");
  const fs::path deck = write_deck(base);
  reference(deck, base, "");
  ASSERT_EQ(run_nbody("pic run --config " + deck.string() + " --steps 45 --out " + (base / "run").string()).status, 0);
  // The newest checkpoint (step 45) with one bit flipped: the resume takes step 30's.
  const fs::path newest = base / "run" / "checkpoint_0000000045.ckpt";
  std::string bytes = read_text(newest.string());
  bytes[bytes.size() / 2] ^= 0x10;
  std::ofstream(newest, std::ios::binary) << bytes;
  const auto r = run_nbody("pic run --resume " + (base / "run").string() + " --steps 60");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("checksum"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("resumed from " + (base / "run" / "checkpoint_0000000030.ckpt").string()), std::string::npos);
  expect_same_directories(base / "straight", base / "run");
  // A checkpoint of another run (another dx and density, the same grid and species) is refused.
  ASSERT_EQ(run_nbody("pic run --config " + deck.string() + " --set grid.dx=0.021 --set species.0.density=5 --out " +
                      (base / "other").string())
                .status,
            0);
  fs::copy_file(base / "other" / "checkpoint_0000000060.ckpt", base / "run" / "checkpoint_0000000090.ckpt");
  const auto other = run_nbody("pic run --resume " + (base / "run").string() + " --steps 100");
  EXPECT_EQ(other.status, 2);
  EXPECT_NE(other.err.find("belongs to another run"), std::string::npos) << other.err;
}

TEST(PicCliRun, AResumeMayNotChangeThePhysics) {
  const fs::path base = temp_dir("pic_physics");
  ASSERT_EQ(run_nbody("pic run --config " + write_deck(base).string() + " --steps 30 --out " + (base / "run").string())
                .status,
            0);
  const auto r = run_nbody("pic run --resume " + (base / "run").string() + " --steps 60 --set grid.dx=0.03");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("grid.dx: differs from the run being resumed"), std::string::npos) << r.err;
  const auto early = run_nbody("pic run --resume " + (base / "run").string() + " --steps 20");
  EXPECT_EQ(early.status, 2);
  EXPECT_NE(early.err.find("before the checkpoint's step 30"), std::string::npos) << early.err;
  // A directory that is not there (a run killed before it created it) is named as missing.
  const auto missing = run_nbody("pic run --resume " + (base / "missing").string());
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(lines(missing.err).size(), 1u) << missing.err;
  EXPECT_NE(missing.err.find("'" + (base / "missing").string() + "' does not exist"), std::string::npos) << missing.err;
}

// ---- faults: a second process, kill -9, a full disk ----------------------------------------

// The run `args` continued until it completes: resumed where it has a checkpoint (or a directory
// to start again in), started again with --overwrite where it died before writing its deck or
// before creating its directory (the resume then says so).
void finish(const fs::path& deck, const fs::path& dir, const std::string& args, const std::string& context) {
  auto r = run_nbody("pic run --resume " + dir.string());
  if (r.status == 2 && (r.err.find("not a PIC run directory") != std::string::npos ||
                        r.err.find("does not exist") != std::string::npos))
    r = run_nbody("pic run --config " + deck.string() + " " + args + " --overwrite --out " + dir.string());
  ASSERT_EQ(r.status, 0) << context << ": " << r.err;
}

// Every file that is there reads back whole (the diagnostics' rows complete; the checkpoints are
// read by the resume in finish), and no temporary is left — but by a process killed while writing
// one (`killed`), whose temporaries the resume removes.
void expect_clean(const fs::path& dir, const std::string& context, bool killed = false) {
  if (!fs::exists(dir)) return;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (!killed) EXPECT_EQ(name.find(".tmp"), std::string::npos) << context << ": a temporary left: " << e.path();
    if (name == "diagnostics.csv") {
      const std::string text = read_text(e.path().string());
      if (!text.empty()) EXPECT_EQ(text.back(), '\n') << context << ": a partial row";
    }
  }
}

const std::string kFaultArgs =
    "--steps 600 --set output.diag_every=5 --set output.checkpoint_every=20 --set output.fields_every=100 "
    "--set output.images_every=200";

// A second process on a running run's directory — a new run into it, --overwrite of it, a resume
// of it — is refused (exit 2, one line naming the holder) and the running run's files are left
// alone; once stopped, it resumes to the uninterrupted run's bytes.
TEST(PicCliRun, ARunningRunsDirectoryIsRefusedToOtherProcesses) {
  const LongRun run = start_long_run("pic_lock");
  ASSERT_FALSE(HasFailure());
  const fs::path& base = run.base;
  const fs::path& deck = run.deck;
  const fs::path& dir = run.dir;
  const Child& c = run.child;
  const std::string resolved = read_text((dir / "deck.toml").string());
  for (const std::string& other : {"pic run --config " + deck.string() + " --out " + dir.string(),
                                   "pic run --config " + deck.string() + " --overwrite --out " + dir.string(),
                                   "pic run --resume " + dir.string()}) {
    const auto r = run_nbody(other);
    EXPECT_EQ(r.status, 2) << other << "\n" << r.out << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_NE(r.err.find("in use by another nbody process (pid " + std::to_string(c.pid)), std::string::npos) << r.err;
  }
  EXPECT_EQ(read_text((dir / "deck.toml").string()), resolved);
  ::kill(c.pid, SIGTERM);
  EXPECT_EQ(wait_child(c, 60), 0) << read_text(c.err_file);
  const auto r = run_nbody("pic run --resume " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  expect_same_directories(base / "straight", dir);
}

// SIGKILL at random moments (seeded), up to two a trial, then resumed until the run completes:
// no temporaries, every row whole, and the uninterrupted run's files byte for byte.
TEST(PicCliRun, KilledAtRandomMomentsResumesToTheSameBytes) {
  const fs::path base = temp_dir("pic_sigkill");
  const fs::path deck = write_deck(base);
  const auto t0 = std::chrono::steady_clock::now();
  reference(deck, base, kFaultArgs);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::mt19937_64 rng(20261128);
  int hits = 0;
  for (int trial = 0; trial < 5; ++trial) {
    const std::string context = "trial " + std::to_string(trial);
    const fs::path dir = base / "run";
    fs::remove_all(dir);
    std::string cmd = "pic run --config " + deck.string() + " " + kFaultArgs + " --out " + dir.string();
    for (int kill = 0; kill < 2; ++kill) {
      const Child c = start_nbody(cmd, base.string());
      std::this_thread::sleep_for(std::chrono::duration<double>(std::uniform_real_distribution<double>(0.0, wall)(rng)));
      ::kill(c.pid, SIGKILL);
      const int status = wait_child(c, 60);
      hits += status == 128 + SIGKILL;
      if (status != 128 + SIGKILL) EXPECT_EQ(status, 0) << context << ": " << read_text(c.err_file);
      expect_clean(dir, context, status == 128 + SIGKILL);
      cmd = fs::exists(dir / "deck.toml") ? "pic run --resume " + dir.string()
                                          : "pic run --config " + deck.string() + " " + kFaultArgs + " --overwrite --out " +
                                                dir.string();
    }
    finish(deck, dir, kFaultArgs, context);
    expect_clean(dir, context);
    expect_same_directories(base / "straight", dir);
  }
  EXPECT_GT(hits, 0) << "no kill hit a running run (the reference took " << wall << " s)";
}

// A full disk (a file-size limit on the process, at several sizes from below the first file to
// above most): exit 1 with one error line (never a crash), no temporaries, every file whole; the
// run then resumes to the uninterrupted run's bytes.
TEST(PicCliRun, AFullDiskFailsCleanlyAndResumesToTheSameBytes) {
  const fs::path base = temp_dir("pic_full");
  const fs::path deck = write_deck(base);
  reference(deck, base, kFaultArgs);
  std::uintmax_t largest = 0;
  for (const auto& e : fs::recursive_directory_iterator(base / "straight"))
    if (e.is_regular_file()) largest = std::max(largest, e.file_size());
  int failed = 0;
  for (const double share : {0.001, 0.01, 0.05, 0.2, 0.5, 0.9}) {
    const unsigned long long limit = std::max<unsigned long long>(64, (unsigned long long)(share * double(largest)));
    const std::string context = "limit " + std::to_string(limit);
    const fs::path dir = base / "run";
    fs::remove_all(dir);
    const auto r = run_nbody_limited("pic run --config " + deck.string() + " " + kFaultArgs + " --out " + dir.string(),
                                     RLIMIT_FSIZE, limit);
    if (r.status != 0) {
      ++failed;
      EXPECT_EQ(r.status, 1) << context << ": " << r.err;
      EXPECT_EQ(lines(r.err).size(), 1u) << context << ": " << r.err;
    }
    expect_clean(dir, context);
    finish(deck, dir, kFaultArgs, context);
    expect_same_directories(base / "straight", dir);
  }
  EXPECT_GE(failed, 4) << "the limits did not fail the runs";
}

}  // namespace
}  // namespace nbody::test
