// `nbody ensemble` through the program: bad configurations and tables get one error line and
// exit status 2 with nothing written; a run stopped between intervals and resumed writes the
// same bytes as the run that never stopped.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include <filesystem>
#include <fstream>
#include <optional>

#include "ensemble/backend.hpp"
#include "ensemble/config.hpp"
#include "ensemble/generators.hpp"
#include "ensemble/run.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

namespace fs = std::filesystem;

const char* kScattering = R"([ensemble]
generator = "scattering"
systems = 12
seed = 3
[scattering]
v_inf = 0.5
b_max = 2
r0 = 10
[integrator]
name = "hermite4_adaptive"
dt = 0.05
eta = 0.01
[time]
t_end = 30
intervals = 10
[stop]
escape_radius = 20
[output]
progress_every = 2
)";

struct BadCase {
  const char* set;     // --set arguments
  const char* expect;  // in the error line
};

class EnsembleBadInput : public testing::TestWithParam<BadCase> {};

TEST_P(EnsembleBadInput, OneLineExitTwoNothingWritten) {
  const fs::path base = temp_dir("ensemble_bad");
  const fs::path deck = base / "scattering.toml";
  std::ofstream(deck) << kScattering;
  const fs::path out = base / "run";
  const auto r = run_nbody("ensemble --config " + deck.string() + " --out " + out.string() + " " + GetParam().set);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find(GetParam().expect), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, EnsembleBadInput,
    testing::Values(BadCase{"--set integrator.order=4", "integrator.order: unknown key"},
                    BadCase{"--set physics.g=1", "physics: unknown table"},
                    BadCase{"--set integrator.name=rk4", "integrator.name: 'rk4' is not one of"},
                    BadCase{"--set time.t_end=nan", "time.t_end: nan is not a finite number"},
                    BadCase{"--set scattering.e=1.5", "scattering.e: 1.5 must be in [0, 1)"},
                    BadCase{"--set ensemble.systems=0", "ensemble.systems: 0 is out of range"},
                    BadCase{"--set scattering.b_max=20", "scattering.r0: 10 must be larger than b_max"},
                    BadCase{"--set ensemble.generator=planetary --set planetary.mass=[0.001,0.002] --set planetary.a=[1]",
                            "planetary.a: 1 values for 2 planets"},
                    BadCase{"--set ensemble.generator=table", "ensemble.table: generator = \"table\" needs a CSV file"},
                    BadCase{"--set ensemble.generator=table --set ensemble.table=none.csv", "none.csv"},
                    BadCase{"--set integrator.dt=-1", "integrator.dt: -1 must be > 0"},
                    BadCase{"--set integrator.name=ias15 --set integrator.epsilon=0", "integrator.epsilon: 0 must be > 0"},
                    BadCase{"--set integrator.epsilon=-1e-9", "integrator.epsilon: -1e-09 must be > 0"},
                    BadCase{"--set integrator.name=ias15 --set integrator.min_dt=0.1",
                            "integrator.min_dt: 0.1 must be below integrator.dt"},
                    BadCase{"--set integrator.dt=1e-300", "integrator.dt: 1e-300 makes more than 1e12 steps"},
                    BadCase{"--set bad", "expected table.key=value"}));

TEST(EnsembleBadDevice, NoUsableGpuIsOneLineAndNothingWritten) {
  if (ensemble::gpu_backend_available()) GTEST_SKIP() << "a CUDA device is usable here";
  const fs::path base = temp_dir("ensemble_bad_device");
  const fs::path deck = base / "scattering.toml";
  std::ofstream(deck) << kScattering;
  const fs::path out = base / "run";
  const auto r = run_nbody("ensemble --config " + deck.string() + " --out " + out.string() + " --set run.device=cuda");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("run.device = \"cuda\""), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

struct BadTable {
  const char* text;
  const char* expect;
};

class EnsembleBadTable : public testing::TestWithParam<BadTable> {};

TEST_P(EnsembleBadTable, OneLineNamingTheFileAndLine) {
  const fs::path base = temp_dir("ensemble_table");
  const fs::path table = base / "systems.csv";
  std::ofstream(table) << GetParam().text;
  const fs::path deck = base / "table.toml";
  std::ofstream(deck) << "[ensemble]\ngenerator = \"table\"\ntable = \"systems.csv\"\n[time]\nt_end = 1\n";
  const fs::path out = base / "run";
  const auto r = run_nbody("ensemble --config " + deck.string() + " --out " + out.string());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("systems.csv"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(GetParam().expect), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, EnsembleBadTable,
    testing::Values(BadTable{"system,mass,x,y,z,vx,vy,vz\n", "the header"},
                    BadTable{"system,m,x,y,z,vx,vy,vz\n0,1,0,0,0,0,0,0\n0,1,1,0,0,0,x,0\n", "line 3: vy: 'x' is not a finite number"},
                    BadTable{"system,m,x,y,z,vx,vy,vz\n0,1,0,0,0,0,0,0\n0,1,1,0,0,0,1,0\n2,1,0,0,0,0,0,0\n", "line 4: system: 2 where 1"},
                    BadTable{"system,m,x,y,z,vx,vy,vz\n0,1,0,0,0,0,0,0\n", "system 0 has one body"},
                    BadTable{"system,m,x,y,z,vx,vy,vz\n0,1,0,0,0,0,0\n", "line 2: 7 columns where 8 are expected"},
                    BadTable{"system,m,x,y,z,vx,vy,vz\n0,-1,0,0,0,0,0,0\n0,1,1,0,0,0,1,0\n", "line 2: m: -1 must be >= 0"},
                    BadTable{"system,m,x,y,z,vx,vy,vz\n0,1,0,0,0,0,0,0,7\n", "9 columns where 8 are expected"}));

TEST(EnsembleTable, ATableRunsAndGivesItsSystems) {
  const fs::path base = temp_dir("ensemble_table_ok");
  // Two circular binaries (G = 1, masses 0.5 and 0.5 at separation 1: speed 0.5 each).
  std::ofstream(base / "systems.csv") << "system,m,x,y,z,vx,vy,vz\n0,0.5,-0.5,0,0,0,-0.5,0\n0,0.5,0.5,0,0,0,0.5,0\n"
                                         "1,0.5,0,-0.5,0,0.5,0,0\n1,0.5,0,0.5,0,-0.5,0,0\n";
  std::ofstream(base / "table.toml") << "[ensemble]\ngenerator = \"table\"\ntable = \"systems.csv\"\n[integrator]\n"
                                        "name = \"yoshida4\"\ndt = 0.01\n[time]\nt_end = 6.283185307179586\n";
  const auto r = run_nbody("ensemble --config " + (base / "table.toml").string() + " --out " + (base / "run").string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = lines(read_text((base / "run" / "results.csv").string()));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].rfind("0,end_time,", 0), 0u) << rows[1];
  EXPECT_EQ(rows[2].rfind("1,end_time,", 0), 0u) << rows[2];
}

// Stops the run when asked for the n-th time.
class StopAfter final : public StopCondition {
 public:
  explicit StopAfter(int n) : n_(n) {}
  std::optional<std::string> requested() override {
    if (++asked_ >= n_) return std::string("the test");
    return std::nullopt;
  }

 private:
  int n_, asked_ = 0;
};

TEST(EnsembleResume, AStoppedRunResumedWritesTheBytesOfTheWholeRun) {
  const fs::path base = temp_dir("ensemble_resume");
  const fs::path deck = base / "scattering.toml";
  std::ofstream(deck) << kScattering;
  const auto whole = run_nbody("ensemble --config " + deck.string() + " --out " + (base / "whole").string());
  ASSERT_EQ(whole.status, 0) << whole.err;

  // Stopped after 4 intervals (one a chunk), then resumed by the program.
  const ensemble::EnsembleConfig c =
      ensemble::read_ensemble_config(deck.string(), {}, ensemble::EnsembleFlags{(base / "part").string()});
  ensemble::EnsembleStore s = ensemble::make_systems(c);
  StopAfter stop(5);
  RunHooks hooks;
  hooks.stop_conditions.push_back(&stop);
  hooks.chunk_seconds = 0;
  const auto first = ensemble::run_ensemble(c, s, hooks);
  ASSERT_TRUE(first.stopped_by.has_value());
  EXPECT_EQ(first.last_interval, 4);
  const auto resumed = run_nbody("ensemble --resume " + (base / "part").string());
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("resumed from interval 4"), std::string::npos) << resumed.out;
  for (const char* f : {"results.csv", "final_states.csv", "checkpoint_0000000010.ckpt"})
    EXPECT_EQ(read_text((base / "whole" / f).string()), read_text((base / "part" / f).string())) << f;
  if (fs::exists(base / "whole" / "results.h5"))
    EXPECT_EQ(read_text((base / "whole" / "results.h5").string()), read_text((base / "part" / "results.h5").string()));
  EXPECT_NE(read_text((base / "part" / "run.log").string()).find("stopped by the test at interval 4"), std::string::npos);
}

TEST(EnsembleResume, AResumeThatChangesThePhysicsIsRefused) {
  const fs::path base = temp_dir("ensemble_resume_refused");
  const fs::path deck = base / "scattering.toml";
  std::ofstream(deck) << kScattering;
  ASSERT_EQ(run_nbody("ensemble --config " + deck.string() + " --out " + (base / "run").string()).status, 0);
  const auto r = run_nbody("ensemble --resume " + (base / "run").string() + " --set integrator.eta=0.02");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("integrator.eta: differs from the run being resumed"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace nbody::test

namespace nbody::test {
namespace {

// examples/ensemble/cross_section.py on a small run of the scattering example: every system
// in one class, the cross-sections printed; the bar chart drawn where an interpreter has
// matplotlib (scripts/python finds it: Debian's, where the first python3 lacks it).
TEST(EnsembleExamples, CrossSectionScriptReadsARun) {
  if (std::system("python3 -c 'import tomllib' > /dev/null 2>&1") != 0) GTEST_SKIP() << "no python3 with tomllib";
  const fs::path base = temp_dir("ensemble_cross_section");
  const std::string dir = NBODY_EXAMPLES "/ensemble/";
  const auto s = run_nbody("ensemble --config " + dir + "scattering.toml --out " + (base / "s").string() +
                           " --set ensemble.systems=20 --set time.t_end=40 --set time.intervals=4");
  ASSERT_EQ(s.status, 0) << s.err;
  const std::string out = (base / "cs.txt").string();
  ASSERT_EQ(std::system(("python3 " + dir + "cross_section.py " + (base / "s").string() + " > " + out).c_str()), 0);
  int counted = 0;
  for (const auto& line : lines(read_text(out))) {
    for (const char* c : {"preservation", "exchange", "ionisation", "resonant at t_end", "collision", "other stop"}) {
      if (line.find(c) == std::string::npos || line.find("sigma =") == std::string::npos) continue;
      counted += std::atoi(line.c_str() + line.find(c) + std::string(c).size());
    }
  }
  EXPECT_EQ(counted, 20);
  const std::string plotter = NBODY_SOURCE_DIR "/scripts/python --needs matplotlib,tomllib ";
  if (std::system((plotter + "-c 'pass' > /dev/null 2>&1").c_str()) != 0) GTEST_SKIP() << "no python3 with matplotlib";
  const fs::path png = base / "cs.png";
  ASSERT_EQ(std::system((plotter + dir + "cross_section.py " + (base / "s").string() + " --plot " + png.string() +
                         " > /dev/null").c_str()),
            0);
  ASSERT_TRUE(fs::exists(png));
  EXPECT_EQ(read_text(png).substr(1, 3), "PNG");
}

// The examples as written, made small by --set (their sizes are for a real experiment).
TEST(EnsembleExamples, RunAsWritten) {
  const fs::path base = temp_dir("ensemble_examples");
  const std::string dir = NBODY_EXAMPLES "/ensemble/";
  const auto s = run_nbody("ensemble --config " + dir + "scattering.toml --out " + (base / "s").string() +
                           " --set ensemble.systems=20 --set time.t_end=40 --set time.intervals=4");
  ASSERT_EQ(s.status, 0) << s.err;
  EXPECT_EQ(lines(read_text((base / "s" / "results.csv").string())).size(), 21u);
  const auto p = run_nbody("ensemble --config " + dir + "planetary.toml --out " + (base / "p").string() +
                           " --set ensemble.systems=4 --set time.t_end=62.83 --set time.intervals=2");
  ASSERT_EQ(p.status, 0) << p.err;
  const auto rows = lines(read_text((base / "p" / "results.csv").string()));
  ASSERT_EQ(rows.size(), 5u);
  for (std::size_t k = 1; k < rows.size(); ++k) EXPECT_NE(rows[k].find(",end_time,"), std::string::npos) << rows[k];
}

}  // namespace
}  // namespace nbody::test

namespace nbody::test {
namespace {

// Waits (at most 30 s) until `file` holds `text`; false when the child ended first.
bool wait_for_text(const fs::path& file, const std::string& text) {
  for (int k = 0; k < 3000; ++k) {
    if (fs::exists(file) && read_text(file.string()).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// The number after "stopped by SIGTERM at interval " in `out` (-1: none).
long long stopped_at(const std::string& out) {
  const std::string key = "stopped by SIGTERM at interval ";
  const auto at = out.find(key);
  return at == std::string::npos ? -1 : std::stoll(out.substr(at + key.size()));
}

TEST(EnsembleSignals, SigtermCheckpointsExitsZeroAndTheRunResumes) {
  const fs::path base = temp_dir("ensemble_sigterm");
  const fs::path dir = base / "run";
  // (longer than the test waits: it is stopped twice)
  std::ofstream(base / "long.toml") << "[ensemble]\ngenerator = \"plummer\"\nsystems = 64\n[plummer]\nn = 32\n"
                                       "[integrator]\nname = \"leapfrog\"\ndt = 1e-4\n[time]\nt_end = 1000\n"
                                       "intervals = 1000000\n";
  fs::create_directories(base / "first");
  fs::create_directories(base / "second");
  const Child first = start_nbody("ensemble --config " + (base / "long.toml").string() + " --out " + dir.string(),
                                  (base / "first").string());
  ASSERT_TRUE(wait_for_text(dir / "run.log", "ensemble: 64 systems")) << read_text(first.err_file);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ::kill(first.pid, SIGTERM);
  ASSERT_EQ(wait_child(first, 30), 0) << read_text(first.err_file);
  const std::string out = read_text(first.out_file);
  const long long k = stopped_at(out);
  ASSERT_GE(k, 0) << out;
  EXPECT_NE(out.find("nbody ensemble --resume " + dir.string()), std::string::npos) << out;
  char name[64];
  std::snprintf(name, sizeof name, "checkpoint_%010lld.ckpt", k);
  EXPECT_TRUE(fs::exists(dir / name)) << name;
  EXPECT_TRUE(fs::exists(dir / "results.csv"));

  const Child second = start_nbody("ensemble --resume " + dir.string(), (base / "second").string());
  ASSERT_TRUE(wait_for_text(second.out_file, "resumed from interval " + std::to_string(k))) << read_text(second.err_file);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ::kill(second.pid, SIGTERM);
  ASSERT_EQ(wait_child(second, 30), 0) << read_text(second.err_file);
  EXPECT_GE(stopped_at(read_text(second.out_file)), k);
}

}  // namespace
}  // namespace nbody::test
