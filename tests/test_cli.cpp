// The nbody program: help, version, a small run, the check, and every kind of bad input
// (exit status 2, one line on stderr naming the parameter, no files written).
#include <cstdlib>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "gravity/names.hpp"
#include "io/particle_file.hpp"
#include "nbody/config.hpp"
#include "run/summary.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

namespace fs = std::filesystem;

TEST(Cli, VersionAndHelp) {
  const auto v = run_nbody("--version");
  EXPECT_EQ(v.status, 0);
  EXPECT_NE(v.out.find("nbody "), std::string::npos);
  for (const char* cmd : {"--help", "run --help", "check --help"}) {
    const auto h = run_nbody(cmd);
    EXPECT_EQ(h.status, 0) << cmd;
    EXPECT_NE(h.out.find("Usage"), std::string::npos) << cmd;
  }
  const auto run_help = run_nbody("run --help");
  for (const char* flag : {"--ic", "-n", "--seed", "--backend", "--precision", "--integrator", "--dt", "--steps",
                           "--softening", "--out", "--snapshot-every", "--diag-every", "--config", "--softening-law",
                           "--dt-mode", "--eta", "hermite4", "yoshida4", "--units", "--king-w0", "--virial-ratio",
                           "--pericentre", "--incl1", "--incl2"}) {
    EXPECT_NE(run_help.out.find(flag), std::string::npos) << flag;
  }
}

// The flags are listed under their sections' headings; device and gravity are flags of their own.
TEST(Cli, RunHelpGroupsTheFlagsBySection) {
  const auto h = run_nbody("run --help");
  ASSERT_EQ(h.status, 0);
  const auto at = [&](const std::string& s) { return h.out.find(s); };
  for (const char* s : {"Run:\n", "Model:\n", "Gravity:\n", "Integrator:\n", "Output:\n", "--device", "--gravity"}) {
    EXPECT_NE(at(s), std::string::npos) << s << "\n" << h.out;
  }
  EXPECT_LT(at("Model:\n"), at("--king-w0"));
  EXPECT_LT(at("Gravity:\n"), at("--device"));
  EXPECT_LT(at("--device"), at("Integrator:\n"));
  EXPECT_LT(at("Integrator:\n"), at("--dt-mode"));
  EXPECT_LT(at("Output:\n"), at("--snapshot-every"));
}

// A run directory's config.toml, given back with --config, is the same run: the flags, the
// sectioned file and the flat file give one configuration.
TEST(Cli, ConfigTomlOfARunRunsTheSameConfiguration) {
  const std::string dir = temp_dir("config_again");
  const auto first = run_nbody("run --ic king --king-w0 7 -n 64 --steps 2 --backend cpu-reference --precision fp64 "
                               "--integrator hermite4 --eta 0.03 --dt 0.0625 --out " + dir + "/a");
  ASSERT_EQ(first.status, 0) << first.err;
  const std::string a = read_text(dir + "/a/config.toml");
  EXPECT_NE(a.find("[gravity]\n"), std::string::npos) << a;
  EXPECT_NE(a.find("\ndevice = \"cpu\"\n"), std::string::npos) << a;
  EXPECT_NE(a.find("\ngravity = \"reference\"\n"), std::string::npos) << a;
  const auto second = run_nbody("run --config " + dir + "/a/config.toml --out " + dir + "/b");
  ASSERT_EQ(second.status, 0) << second.err;
  std::string b = read_text(dir + "/b/config.toml");
  const auto out = b.find("out = ");
  ASSERT_NE(out, std::string::npos);
  b.replace(out, b.find('\n', out) - out, "out = " + toml_string(dir + "/a"));
  EXPECT_EQ(a, b);
  // The flat file of the same run.
  const auto flat = run_nbody("run --config " + std::string(NBODY_TEST_DATA) + "/flat.toml --steps 1");
  EXPECT_EQ(flat.status, 0) << flat.err;
}

TEST(Cli, SmallRunWritesItsDirectory) {
  const std::string dir = temp_dir("run") + "/out";
  const auto r = run_nbody("run --config " + std::string(NBODY_TEST_DATA) + "/small_run.toml --steps 10 --diag-every 5 "
                           "--snapshot-every 5 --snapshot-format csv --out " + dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;  // no progress line when stderr is not a terminal
  EXPECT_NE(r.out.find("N = 256"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("billion interactions/s"), std::string::npos);
  EXPECT_NE(r.out.find("|dE/E0|"), std::string::npos);
  for (const char* f : {"config.toml", "model.toml", "diagnostics.csv", "lagrangian_radii.csv", "snapshot_000.csv",
                        "snapshot_001.csv", "snapshot_002.csv"}) {
    EXPECT_TRUE(fs::exists(fs::path(dir) / f)) << f;
  }
  EXPECT_FALSE(fs::exists(fs::path(dir) / "snapshot_003.csv"));
  // diagnostics: header + steps 0, 5, 10
  std::ifstream diag(fs::path(dir) / "diagnostics.csv");
  int rows = 0;
  for (std::string line; std::getline(diag, line);) ++rows;
  EXPECT_EQ(rows, 4);
  // Lagrangian radii at the same cadence: header + steps 0, 5, 10.
  std::ifstream lagr(fs::path(dir) / "lagrangian_radii.csv");
  std::vector<std::string> lagr_rows;
  for (std::string line; std::getline(lagr, line);) lagr_rows.push_back(line);
  ASSERT_EQ(lagr_rows.size(), 4u);
  EXPECT_EQ(lagr_rows[0], "step,time,r_0.01,r_0.05,r_0.1,r_0.2,r_0.5,r_0.75,r_0.9");
  EXPECT_EQ(lagr_rows[3].rfind("10,0.05", 0), 0u) << lagr_rows[3];
  // The flags override the file: steps = 10, not 20.
  std::ifstream cfg(fs::path(dir) / "config.toml");
  std::stringstream ss;
  ss << cfg.rdbuf();
  EXPECT_NE(ss.str().find("steps = 10\n"), std::string::npos);
  EXPECT_NE(ss.str().find("backend = \"cpu\""), std::string::npos);
  // The G in use is recorded (the default 0 resolved to the henon unit system's 1).
  EXPECT_NE(ss.str().find("gravitational_constant = 1.0\n"), std::string::npos);
  EXPECT_NE(ss.str().find("units = \"henon\""), std::string::npos);
}

TEST(Cli, SolarSystemRunRecordsItsSourceAndUnits) {
  const std::string dir = temp_dir("solar") + "/out";
  const auto r = run_nbody("run --ic solar-system -n 10 --units solar --softening 0 --dt 0.001 --steps 100 "
                           "--backend cpu --precision fp64 --out " + dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("units: solar, G = 39.4784176"), std::string::npos) << r.out;
  std::ifstream in(fs::path(dir) / "model.toml");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string model = ss.str();
  for (const char* s : {"name = \"solar-system\"", "DE441", "JD 2451545.0 TDB", "ecliptic", "gm_de440",
                        "system = \"solar\"", "UnitLength_in_cm = 14959787070000", "UnitTime_in_s = 31558196.0"}) {
    EXPECT_NE(model.find(s), std::string::npos) << s << "\n" << model;
  }
}

TEST(Cli, ExplicitGravitationalConstantIsNotedWhenItDiffersFromTheUnits) {
  const auto r = run_nbody("run -n 32 --steps 1 --backend cpu -G 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("note: -G 2 overrides the henon unit system's G = 1"), std::string::npos) << r.out;
}

// Every example parses and starts: a few steps each, at a small n where n is free.
TEST(Cli, ExamplesRun) {
  const std::string examples = NBODY_EXAMPLES;
  int count = 0;
  for (const auto& entry : fs::directory_iterator(examples)) {
    if (entry.path().extension() != ".toml") continue;
    ++count;
    RunConfig cfg;
    apply_toml_file(cfg, entry.path());
    validate(cfg);
    const std::string n = cfg.ic == "solar-system" ? "" : " -n 256";
    // The tree's examples keep their gravity (--backend would make it the direct sum).
    const std::string on_cpu = cfg.gravity == "tree" ? " --device cpu" : " --backend cpu";
    const auto r = run_nbody("run --config " + entry.path().string() + n + " --steps 2" + on_cpu);
    EXPECT_EQ(r.status, 0) << entry.path() << "\n" << r.err;
  }
  EXPECT_GE(count, 5);
}

TEST(Cli, Hermite4BlockStepsRunAndRecordTheirOptions) {
  const std::string dir = temp_dir("hermite") + "/out";
  const auto r = run_nbody("run -n 64 --backend cpu --precision fp64 --integrator hermite4 --dt-mode block --eta 0.01 "
                           "--softening-law spline --dt 0.0625 --steps 4 --out " + dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("hermite4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("billion interactions/s"), std::string::npos) << r.out;
  // The block steps' line: how many, and how many of the 64 bodies each corrected on average.
  const auto at = r.out.find("block steps: ");
  ASSERT_NE(at, std::string::npos) << r.out;
  unsigned long long steps = 0;
  double mean = 0;
  long long bodies = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str() + at, "block steps: %llu, %lf active bodies on average of %lld", &steps, &mean,
                        &bodies),
            3)
      << r.out.substr(at);
  EXPECT_GE(steps, 4u);  // at least one a step of dt
  EXPECT_GT(mean, 0.0);
  EXPECT_LE(mean, 64.0);
  EXPECT_EQ(bodies, 64);
  std::ifstream cfg(fs::path(dir) / "config.toml");
  std::stringstream ss;
  ss << cfg.rdbuf();
  EXPECT_NE(ss.str().find("dt_mode = \"block\""), std::string::npos) << ss.str();
  EXPECT_NE(ss.str().find("softening_law = \"spline\""), std::string::npos);
  EXPECT_NE(ss.str().find("eta = 0.01"), std::string::npos);
}

TEST(Cli, ExampleClusterConfigurationRuns) {
  // The example, shortened: it must stay valid as the parameters evolve.
  const auto r = run_nbody("run --config " + std::string(NBODY_EXAMPLES) + "/cluster_hermite.toml -n 64 --steps 1 "
                           "--backend cpu");
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(Cli, NonEmptyOutputDirectoryIsRefusedUnlessOverwrite) {
  const std::string dir = temp_dir("reuse");
  const auto first = run_nbody("run -n 16 --steps 1 --backend cpu --out " + dir + "/o");
  ASSERT_EQ(first.status, 0) << first.err;
  const auto second = run_nbody("run -n 16 --steps 1 --backend cpu --out " + dir + "/o");
  EXPECT_EQ(second.status, 2);
  EXPECT_NE(second.err.find("out:"), std::string::npos);
  const auto third = run_nbody("run -n 16 --steps 1 --backend cpu --overwrite --out " + dir + "/o");
  EXPECT_EQ(third.status, 0) << third.err;
}

TEST(Cli, CheckOnTheCpuBackendPrintsPositionsCorrect) {
  const auto r = run_nbody("check --backend cpu");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("relative position error: max"), std::string::npos);
  EXPECT_NE(r.out.find("tolerance"), std::string::npos);
  EXPECT_NE(r.out.find("positions correct"), std::string::npos) << r.out;
}

// check takes the device and the algorithm as run does (--backend is their older spelling).
TEST(Cli, CheckTakesDeviceAndGravity) {
  const auto r = run_nbody("check --device cpu --gravity direct -n 512");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("backend: cpu ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("positions correct"), std::string::npos) << r.out;
  const auto both = run_nbody("check --backend cpu --device cuda -n 64");
  EXPECT_EQ(both.status, 2) << both.out << both.err;
  EXPECT_NE(both.err.find("--device"), std::string::npos) << both.err;
}

struct BadInput {
  std::string name;
  std::string args;
  std::string names;  // what the error line must name
};

class CliBadInput : public testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, ExitsTwoWithOneLineAndWritesNothing) {
  // `run` cases also name an output directory, which must not appear.
  const std::string dir = temp_dir("bad_" + GetParam().name) + "/out";
  const bool is_run = GetParam().args.rfind("run", 0) == 0;
  const auto r = run_nbody(GetParam().args + (is_run ? " --out " + dir : std::string()));
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  const auto err = lines(r.err);
  ASSERT_EQ(err.size(), 1u) << r.err;
  EXPECT_EQ(err[0].rfind("nbody: error: ", 0), 0u) << err[0];
  EXPECT_NE(err[0].find(GetParam().names), std::string::npos) << err[0];
  EXPECT_FALSE(fs::exists(dir)) << "files were written";
}

const std::string kData = NBODY_TEST_DATA;

INSTANTIATE_TEST_SUITE_P(
    Cases, CliBadInput,
    testing::Values(BadInput{"n_zero", "run -n 0", "--n"}, BadInput{"n_negative", "run -n -5", "--n"},
                    BadInput{"n_not_a_number", "run -n many", "--n"},
                    BadInput{"n_too_large_for_host", "run -n 2000000000 --backend cpu", "n:"},
                    BadInput{"unknown_ic", "run --ic nosuch", "--ic"},
                    BadInput{"unknown_integrator", "run --integrator rk45", "--integrator"},
                    BadInput{"unknown_backend", "run --backend opencl", "--backend"},
                    BadInput{"unknown_precision", "run --precision fp16", "--precision"},
                    BadInput{"dt_zero", "run --dt 0", "--dt"}, BadInput{"dt_negative", "run --dt -0.1", "--dt"},
                    BadInput{"dt_nan", "run --dt nan", "--dt"}, BadInput{"dt_inf", "run --dt inf", "--dt"},
                    BadInput{"softening_negative", "run --softening -1", "--softening"},
                    BadInput{"softening_nan", "run --softening NaN", "--softening"},
                    BadInput{"steps_negative", "run --steps -1", "--steps"},
                    BadInput{"g_negative", "run -G -1", "--gravitational-constant"},
                    BadInput{"seed_negative", "run --seed -1", "--seed"},
                    BadInput{"snapshot_every_negative", "run --snapshot-every -2", "--snapshot-every"},
                    BadInput{"unknown_flag", "run --bogus 3", "--bogus"},
                    BadInput{"config_missing", "run --config " + kData + "/missing.toml", "missing.toml"},
                    BadInput{"config_malformed", "run --config " + kData + "/malformed.toml", "malformed.toml"},
                    BadInput{"config_unknown_key", "run --config " + kData + "/unknown_key.toml", "timestep"},
                    BadInput{"config_wrong_type", "run --config " + kData + "/wrong_type.toml", "dt"},
                    BadInput{"config_bad_value", "run --config " + kData + "/bad_value.toml", "dt"},
                    BadInput{"check_unknown_backend", "check --backend opencl", "--backend"},
                    BadInput{"unknown_units", "run --units cgs", "--units"},
                    BadInput{"solar_system_n", "run --ic solar-system --units solar -n 9", "n:"},
                    BadInput{"solar_system_henon", "run --ic solar-system -n 10", "units"},
                    BadInput{"physical_units_without_scales", "run --ic plummer --units galactic", "mass_scale"},
                    BadInput{"king_w0_zero", "run --ic king --king-w0 0", "--king-w0"},
                    BadInput{"virial_ratio_two", "run --ic uniform-sphere --virial-ratio 2", "virial_ratio"},
                    BadInput{"galaxy_no_halo", "run --ic disk-galaxy --disk-fraction 0.8 --bulge-fraction 0.2",
                             "disk_fraction"},
                    BadInput{"separation_below_pericentre",
                             "run --ic galaxy-collision --pericentre 0.5 --separation 0.2", "separation"},
                    BadInput{"unknown_softening_law", "run --softening-law gauss", "--softening-law"},
                    BadInput{"unknown_dt_mode", "run --dt-mode adaptive", "--dt-mode"},
                    BadInput{"eta_zero", "run --eta 0", "--eta"}, BadInput{"eta_above_one", "run --eta 2", "--eta"},
                    BadInput{"block_steps_with_leapfrog", "run --integrator leapfrog --dt-mode block", "--dt-mode"},
                    BadInput{"auto_steps_with_euler", "run --integrator euler --dt-mode auto", "--dt-mode"},
                    BadInput{"auto_steps_with_yoshida4", "run --integrator yoshida4 --dt-mode auto", "--dt-mode"},
                    BadInput{"auto_leapfrog_without_softening",
                             "run --integrator leapfrog --dt-mode auto --softening 0", "--softening"},
                    BadInput{"model_parameter_of_another_model", "run --ic plummer --virial-ratio 0.5",
                             "--virial-ratio: applies to --ic uniform-sphere only (the run uses plummer)"},
                    BadInput{"king_w0_with_a_file", "run --ic file:" + kData + "/none.csv --king-w0 3",
                             "--king-w0: applies to --ic king only"},
                    BadInput{"scales_with_henon_units", "run --mass-scale 1e5",
                             "--mass-scale: applies to physical --units (galactic, solar) only (the run uses henon)"},
                    BadInput{"eta_with_fixed_leapfrog", "run --integrator leapfrog --eta 0.05",
                             "--eta: applies to --integrator hermite4 and leapfrog with --dt-mode auto only (the "
                             "run uses leapfrog with --dt-mode fixed)"},
                    BadInput{"eta_with_euler", "run --integrator euler --eta 0.05", "(the run uses euler)"},
                    BadInput{"backend_against_device", "run --backend cpu --device cuda",
                             "--backend: cpu means device cpu, but --device gives cuda"},
                    BadInput{"backend_against_gravity", "run --backend cuda --gravity reference",
                             "--backend: cuda means gravity direct, but --gravity gives reference"},
                    BadInput{"reference_on_cuda", "run --device cuda --gravity reference",
                             "--gravity reference, --device cuda"},
                    BadInput{"unknown_device", "run --device opencl", "--device"},
                    BadInput{"config_wrong_section", "run --config " + kData + "/wrong_section.toml",
                             "wrong_section.toml: [gravity] dt: belongs in [integrator]"},
                    BadInput{"config_not_applicable", "run --config " + kData + "/not_applicable.toml",
                             "[model] king_w0: applies to --ic king only"},
                    BadInput{"resume_empty", "run --resume ''", "--resume: the directory is empty"},
                    BadInput{"config_empty", "run --config ''", "--config: the path is empty"},
                    BadInput{"from_empty", "run --from ''", "--from: the path is empty"},
                    BadInput{"from_missing", "run --from " + kData + "/no_such_run", "no_such_run"},
                    BadInput{"steps_and_t_end", "run --steps 5 --t-end 1", "--t-end"},
                    BadInput{"t_end_before_start", "run --t-end 1 --start-time 2", "--t-end"}),
    [](const testing::TestParamInfo<BadInput>& info) { return info.param.name; });

TEST(Cli, CudaBackendWithoutDeviceIsAnInputError) {
  std::string why;
  if (cuda_device_available(&why)) GTEST_SKIP() << "a CUDA device is present";
  const std::string dir = temp_dir("nocuda") + "/out";
  const auto r = run_nbody("run --backend cuda -n 64 --out " + dir);
  EXPECT_EQ(r.status, 2);
  ASSERT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("backend"), std::string::npos) << r.err;
  // The option, plainly, and what to do; cudaGetDeviceCount's words only as the detail.
  EXPECT_NE(r.err.find("cuda (--device or --backend)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("use --device cpu"), std::string::npos) << r.err;
#if NBODY_HAVE_CUDA
  EXPECT_NE(r.err.find("needs a usable NVIDIA GPU, and none was found ("), std::string::npos) << r.err;
#endif
  EXPECT_FALSE(fs::exists(dir));
}

// `nbody` alone and `nbody help` list the subcommands, one line each (exit 2: nothing was asked;
// exit 0: the list was); `nbody help run` is run --help.
TEST(Cli, SubcommandsAreListed) {
  const auto none = run_nbody("");
  EXPECT_EQ(none.status, 2);
  const auto help = run_nbody("help");
  EXPECT_EQ(help.status, 0) << help.err;
  for (const auto* r : {&none.err, &help.out}) {
    EXPECT_EQ(r->find("A subcommand is required"), std::string::npos) << *r;
    for (const char* sub : {"\n  run  ", "\n  check  ", "\n  bench  ", "\n  convert  ", "\n  help  "}) {
      EXPECT_NE(r->find(sub), std::string::npos) << sub << " in " << *r;
    }
  }
  const auto run_help = run_nbody("help run");
  EXPECT_EQ(run_help.status, 0);
  EXPECT_NE(run_help.out.find("--resume"), std::string::npos);
  EXPECT_EQ(run_nbody("help nosuch").status, 2);
}

// check draws its own cube: its --help says nothing of --ic.
TEST(Cli, CheckHelpDescribesOnlyItsOwnOptions) {
  const auto h = run_nbody("check --help");
  EXPECT_EQ(h.status, 0);
  EXPECT_EQ(h.out.find("--ic"), std::string::npos) << h.out;
  EXPECT_NE(h.out.find("-n,--n"), std::string::npos) << h.out;
}

// A run without --out says so, and how to keep its results.
TEST(Cli, ARunWithoutOutSaysNothingIsWritten) {
  const auto r = run_nbody("run -n 16 --steps 1 --backend cpu");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("no --out: nothing will be written (give --out DIR"), std::string::npos) << r.out;
}

// `nbody --help` (and `nbody help`) describe the whole program: both gravity solvers, the
// integrators, PIC and the tools, not direct summation alone.
TEST(Cli, TopLevelHelpDescribesTheWholeProgram) {
  const auto help = run_nbody("--help");
  const auto list = run_nbody("help");
  ASSERT_EQ(help.status, 0);
  ASSERT_EQ(list.status, 0);
  for (const auto* text : {&help.out, &list.out}) {
    for (const char* what : {"--gravity direct", "--gravity tree", "leapfrog", "hermite4", "pic run", "pic check",
                             "bench", "convert", "mpirun"}) {
      EXPECT_NE(text->find(what), std::string::npos) << what << " in " << *text;
    }
    EXPECT_EQ(text->find("direct-summation gravitational N-body simulation on"), std::string::npos) << *text;
  }
  EXPECT_NE(list.out.find("\n  pic       2D3V electromagnetic particle-in-cell"), std::string::npos) << list.out;
}

// A start time at which a step rounds away is refused, naming the flag (it ran with t + dt == t).
TEST(Cli, StartTimeWhereTheStepRoundsAwayIsRefused) {
  const auto r = run_nbody("run -n 16 --device cpu --steps 2 --start-time 1.7e308");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.err.find("nbody: error: --start-time: 1.7e+308 + --dt 0.01 rounds back to 1.7e+308"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("nbody run:"), std::string::npos) << r.out;
}

// A run continued --from a checkpoint has its bodies and its time: -n and --start-time are
// refused there (-n 999 was ignored without a word), naming both flags; the same N is no change.
TEST(Cli, FlagsThatFromCannotApplyAreRefused) {
  const std::string dir = temp_dir("from_conflicts");
  ASSERT_EQ(run_nbody("run -n 16 --device cpu --steps 2 --out " + dir + "/a").status, 0);
  const auto n = run_nbody("run --from " + dir + "/a -n 999 --steps 2 --out " + dir + "/b");
  EXPECT_EQ(n.status, 2) << n.out;
  EXPECT_NE(n.err.find("-n 999 and --from " + dir + "/a conflict"), std::string::npos) << n.err;
  EXPECT_NE(n.err.find("16 bodies"), std::string::npos) << n.err;
  EXPECT_FALSE(fs::exists(dir + "/b"));
  const auto t = run_nbody("run --from " + dir + "/a --start-time 5 --steps 2 --out " + dir + "/b");
  EXPECT_EQ(t.status, 2) << t.out;
  EXPECT_NE(t.err.find("--start-time 5 and --from " + dir + "/a conflict"), std::string::npos) << t.err;
  EXPECT_FALSE(fs::exists(dir + "/b"));
  const auto same = run_nbody("run --from " + dir + "/a -n 16 --steps 2 --out " + dir + "/c");
  EXPECT_EQ(same.status, 0) << same.err;
}

// --gpus K checks what it can before it starts the ranks under mpirun: a stand-in mpirun on
// PATH records whether it was started (it was, and printed mpirun's lines, for --device cuda on
// a build without CUDA).
TEST(Cli, GpusChecksTheRunBeforeStartingMpirun) {
  const std::string dir = temp_dir("gpus_mpirun");
  const std::string bin = dir + "/bin", marker = dir + "/mpirun_started";
  fs::create_directories(bin);
  std::ofstream(bin + "/mpirun") << "#!/bin/sh\necho \"$@\" > " << marker << "\n";
  fs::permissions(bin + "/mpirun", fs::perms::owner_all);
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", (bin + ":" + path).c_str(), 1);
  fs::create_directories(dir + "/full");
  std::ofstream(dir + "/full/x") << "x";
  std::vector<std::pair<std::string, std::string>> cases = {
      {"run --gpus 2 --device cuda -n 16 --steps 1 --dt -1", "--dt: must be > 0"},
      {"run --gpus 2 --device cpu -n 16 --steps 1", "--gpus 2 and --device cpu conflict"},
      {"run --gpus 2 --device cuda -n 16 --steps 1 --out " + dir + "/full", "not empty"},
  };
  if (!cuda_device_available()) {
    cases.emplace_back("run --gpus 2 --device cuda -n 16 --steps 1", "--gpus 2: no GPU to run on: ");
  }
  for (const auto& [args, want] : cases) {
    SCOPED_TRACE(args);
    const auto r = run_nbody(args);
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(marker)) << read_text(marker);
    fs::remove(marker);
  }
  ::setenv("PATH", path.c_str(), 1);
}

// A --config file's value that a flag replaces is not checked on its own: the merged
// configuration is (a file's snapshot_format = "hdf5" with --snapshot-format csv was refused on a
// build without HDF5; a file's dt = -1 with --dt 0.01 everywhere).
TEST(Cli, FlagsReplaceFileValuesBeforeTheyAreChecked) {
  const std::string dir = temp_dir("flag_over_file");
  std::ofstream(dir + "/bad_dt.toml") << "[integrator]\ndt = -1\n";
  const auto dt = run_nbody("run --config " + dir + "/bad_dt.toml --dt 0.01 -n 16 --device cpu --steps 1");
  EXPECT_EQ(dt.status, 0) << dt.err;
  const auto unreplaced = run_nbody("run --config " + dir + "/bad_dt.toml -n 16 --device cpu --steps 1");
  EXPECT_EQ(unreplaced.status, 2);
  EXPECT_NE(unreplaced.err.find("bad_dt.toml: [integrator] dt: must be > 0"), std::string::npos) << unreplaced.err;
  std::ofstream(dir + "/format.toml") << "[output]\nsnapshot_format = \"" << (hdf5_available() ? "fits" : "hdf5")
                                      << "\"\n";
  const auto format = run_nbody("run --config " + dir + "/format.toml --snapshot-format csv -n 16 --device cpu "
                                "--steps 1 --out " + dir + "/run");
  EXPECT_EQ(format.status, 0) << format.err;
  EXPECT_NE(read_text(dir + "/run/config.toml").find("snapshot_format = \"csv\""), std::string::npos);
  // An alias in the file (backend = device and gravity) is replaced when both are given.
  std::ofstream(dir + "/alias.toml") << "backend = \"no-such\"\n";
  const auto alias = run_nbody("run --config " + dir + "/alias.toml --device cpu --gravity direct -n 16 --steps 1");
  EXPECT_EQ(alias.status, 0) << alias.err;
  const auto half = run_nbody("run --config " + dir + "/alias.toml --device cpu -n 16 --steps 1");
  EXPECT_EQ(half.status, 2);
  EXPECT_NE(half.err.find("no-such"), std::string::npos) << half.err;
  // The merged configuration is still checked as a whole.
  std::ofstream(dir + "/fields.toml") << "[output]\nsnapshot_fields = \"acc\"\n";
  const auto fields = run_nbody("run --config " + dir + "/fields.toml --snapshot-format csv -n 16 --device cpu "
                                "--steps 1");
  EXPECT_EQ(fields.status, 2);
  EXPECT_NE(fields.err.find("snapshot_fields"), std::string::npos) << fields.err;
}

// The stop message gives the time a person reads (1.85, not 1.8500000000000001).
TEST(Cli, StopMessageTimeIsReadable) {
  RunResult result;
  result.last_step = 185;
  result.time = 1.85;
  result.stopped_by = "SIGINT";
  RunConfig cfg;
  cfg.steps = 1000;
  const std::string line = runloop::stop_message(result, cfg, "nbody run --resume");
  EXPECT_NE(line.find("stopped at step 185 of 1000 (t = 1.85) by SIGINT"), std::string::npos) << line;
}

// The closing energy line of a PIC run gives the Poynting planes' energies only where they mean
// something: the laser's with a laser, the right plane's with an open x axis (a periodic box
// without a laser printed "laser in 0, out right 0"). The laser's a0 reads as given.
TEST(Cli, PicEnergyLineSaysWhatTheBoundariesGive) {
  const std::string dir = temp_dir("pic_energy_line");
  const std::string periodic = "[grid]\nnx = 16\nny = 4\ndx = 0.05\ndy = 0.05\n[time]\nsteps = 4\ncourant = 0.9\n"
                               "[[species]]\nname = \"electron\"\nppc = 4\ndensity = 1.0\ntemperature_keV = 1.0\n"
                               "[[species]]\nname = \"proton\"\nppc = 4\ndensity = 1.0\nimmobile = true\n";
  std::ofstream(dir + "/periodic.toml") << periodic;
  const auto box = run_nbody("pic run --config " + dir + "/periodic.toml --steps 2");
  ASSERT_EQ(box.status, 0) << box.err;
  EXPECT_NE(box.out.find("pic: energy "), std::string::npos) << box.out;
  EXPECT_EQ(box.out.find("laser in"), std::string::npos) << box.out;
  EXPECT_EQ(box.out.find("out right"), std::string::npos) << box.out;
  EXPECT_EQ(box.out.find("laser a0"), std::string::npos) << box.out;

  std::string open = periodic;
  open.replace(open.find("[time]"), 0, "boundary_x = \"open\"\n");
  for (std::size_t at = 0; (at = open.find("density = 1.0\n", at)) != std::string::npos; at += 14) {
    open.insert(at + 14, "boundary_xmin = \"absorb\"\nboundary_xmax = \"absorb\"\n");
  }
  std::ofstream(dir + "/open.toml") << open;
  const auto outflow = run_nbody("pic run --config " + dir + "/open.toml --steps 2");
  ASSERT_EQ(outflow.status, 0) << outflow.err;
  EXPECT_NE(outflow.out.find(" (out right "), std::string::npos) << outflow.out;
  EXPECT_EQ(outflow.out.find("laser in"), std::string::npos) << outflow.out;

  std::ofstream(dir + "/laser.toml") << open << "[laser]\na0 = 20.0\npolarisation = \"circular\"\nduration = 1.0\n";
  const auto laser = run_nbody("pic run --config " + dir + "/laser.toml --steps 2");
  ASSERT_EQ(laser.status, 0) << laser.err;
  EXPECT_NE(laser.out.find(", laser a0 = 20\n"), std::string::npos) << laser.out;
  EXPECT_NE(laser.out.find(" (laser in "), std::string::npos) << laser.out;
  EXPECT_NE(laser.out.find(", out right "), std::string::npos) << laser.out;
}

}  // namespace
}  // namespace nbody::test

namespace nbody::test {
namespace {

// A build without the renderer (no libpng or cairo) refuses the pictures before anything runs or
// is written: one line naming the flag or command, exit status 2. (The pictures themselves are
// tested with the renderer, tests/render/test_frames_cli.cpp.)
TEST(Cli, PicturesInABuildWithoutTheRendererAreRefusedInOneLine) {
  if (NBODY_HAVE_RENDER) GTEST_SKIP() << "skipped: this build has the renderer";
  const std::string dir = temp_dir("no_renderer");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"run -n 16 --steps 2 --out " + dir + "/run --render-every 1", "--render-every: this build of nbody has no renderer"},
      {"render " + dir + "/anything.csv", "render: this build of nbody has no renderer"},
  };
  for (const auto& [args, message] : cases) {
    const ProcessResult r = run_nbody(args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/run"));
}

}  // namespace
}  // namespace nbody::test
