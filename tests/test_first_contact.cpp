// What a first run meets: the OpenMP work threshold and --threads, the model's own dt and
// softening, the warnings about a too long step or a too large softening, where the time went.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/parallel.hpp"
#include "io/particle_file.hpp"
#include "nbody/config.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The threshold is on the work (targets x sources), not on the targets alone: a Hermite block of
// 8 active bodies against 16,384 sources (131,072 pair terms) stays on one thread; a 64-body full
// pass too; 512 x 512 and 2 x 2^17 go parallel. One target never does.
TEST(Parallel, ThresholdIsOnTargetsTimesSources) {
  EXPECT_FALSE(parallel_pairs(8, 16384));
  EXPECT_FALSE(parallel_pairs(64, 64));
  EXPECT_FALSE(parallel_pairs(1000, 200));
  EXPECT_TRUE(parallel_pairs(512, 512));
  EXPECT_TRUE(parallel_pairs(16, 16384));
  EXPECT_TRUE(parallel_pairs(2, std::int64_t{1} << 17));
  EXPECT_FALSE(parallel_pairs(1, std::int64_t{1} << 40));
  EXPECT_FALSE(parallel_pairs(0, 100));
  EXPECT_FALSE(parallel_pairs(100, 0));
  EXPECT_TRUE(parallel_pairs(std::int64_t{1} << 40, std::int64_t{1} << 40));  // no overflow
  EXPECT_EQ(parallel_pairs(kParallelMinPairs / 1024, 1024), true);
  EXPECT_EQ(parallel_pairs(kParallelMinPairs / 1024 - 1, 1024), false);
  EXPECT_FALSE(parallel_elements(kParallelMinElements - 1));
  EXPECT_TRUE(parallel_elements(kParallelMinElements));
}

// --threads reaches OpenMP: the run's backend line reports the count, config.toml records it, and
// a resumed run may change it.
TEST(FirstContact, ThreadsOptionReachesOpenMP) {
  const std::string dir = temp_dir("threads");
  const auto r = run_nbody("run -n 64 --device cpu --steps 4 --threads 1 --checkpoint-every 2 --out " + dir + "/a");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "(CPU, 1 OpenMP threads)")) << r.out;
  EXPECT_TRUE(has(read_text(dir + "/a/config.toml"), "\nthreads = 1\n"));
  const auto two = run_nbody("run --resume " + dir + "/a --steps 8 --threads 3");
  ASSERT_EQ(two.status, 0) << two.err;
  EXPECT_TRUE(has(two.out, "(CPU, 3 OpenMP threads)")) << two.out;
  EXPECT_TRUE(has(read_text(dir + "/a/config.toml"), "\nthreads = 3\n"));
  const auto bad = run_nbody("run --threads -1");
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(has(bad.err, "--threads")) << bad.err;
}

// The README's King cluster in galactic units (1e5 Msun, 10 pc): its unit of time is
// sqrt(L^3 / (G M)) = 1.525e-3 kpc/(km/s), so the default step is 1.525e-5 (not 0.01, 650 times
// that) and the softening 1e-4 kpc; the run keeps its energy and config.toml records the step.
TEST(FirstContact, DefaultStepAndSofteningFollowTheModelsScales) {
  RunConfig cfg;
  cfg.ic = "king";
  cfg.units = "galactic";
  cfg.mass_scale = 1e5;
  cfg.length_scale = 0.01;
  apply_model_defaults(cfg, {});
  const double t = std::sqrt(1e-6 / (4.30091727e-6 * 1e5));
  EXPECT_NEAR(cfg.dt, 0.01 * t, 1e-6 * 0.01 * t);
  EXPECT_NEAR(cfg.softening, 1e-4, 1e-16);
  RunConfig given = cfg;
  given.dt = 0.5;
  given.softening = 0.25;
  apply_model_defaults(given, {"dt", "softening"});
  EXPECT_EQ(given.dt, 0.5);
  EXPECT_EQ(given.softening, 0.25);
  RunConfig henon;
  apply_model_defaults(henon, {});
  EXPECT_EQ(henon.dt, 0.01);
  EXPECT_EQ(henon.softening, 0.01);

  const std::string dir = temp_dir("king_galactic");
  const auto r = run_nbody("run --ic king --units galactic --mass-scale 1e5 --length-scale 0.01 -n 256 --device cpu "
                           "--precision fp64 --steps 200 --out " + dir + "/k");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(has(r.out, "warning")) << r.out;
  const std::string toml = read_text(dir + "/k/config.toml");
  EXPECT_TRUE(has(toml, "\ndt = 1.52")) << toml;
}

// A step too long for the model: the summary and run.log say so (the README's King example with
// the old default dt = 0.01 ended at |dE/E0| = 7 without a word).
TEST(FirstContact, LargeEnergyErrorIsWarnedAbout) {
  const std::string dir = temp_dir("energy_warning");
  const auto r = run_nbody("run --ic king --units galactic --mass-scale 1e5 --length-scale 0.01 -n 256 --device cpu "
                           "--dt 0.01 --steps 100 --out " + dir + "/k");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "warning: |dE/E0| = ")) << r.out;
  EXPECT_TRUE(has(r.out, "smaller --dt")) << r.out;
  EXPECT_TRUE(has(read_text(dir + "/k/run.log"), "warning: |dE/E0| = "));
  // The summary says where the time went.
  EXPECT_TRUE(has(r.out, "; outputs ")) << r.out;
}

// The Solar System gets no softening by default; a softening large against its scales is warned
// about (0.01 au put Mercury 29 degrees off after 10 years), a small one is not.
TEST(FirstContact, SolarSystemSofteningDefaultsToZeroAndLargeOnesAreWarnedAbout) {
  const auto plain = run_nbody("run --ic solar-system -n 10 --units solar --steps 10");
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_TRUE(has(plain.out, "dt = 2e-05, 10 steps, softening 0,")) << plain.out;
  EXPECT_FALSE(has(plain.out, "warning")) << plain.out;
  const auto soft = run_nbody("run --ic solar-system -n 10 --units solar --steps 10 --softening 0.01");
  ASSERT_EQ(soft.status, 0) << soft.err;
  EXPECT_TRUE(has(soft.out, "warning: softening 0.01 is large for solar-system")) << soft.out;
  const auto small = run_nbody("run --ic solar-system -n 10 --units solar --steps 10 --softening 1e-5");
  EXPECT_FALSE(has(small.out, "warning")) << small.out;
  const auto cluster = run_nbody("run -n 64 --steps 2 --softening 0.5 --device cpu");
  EXPECT_TRUE(has(cluster.out, "warning: softening 0.5 is large for plummer")) << cluster.out;
}

// A run from a snapshot takes the softening of the run that wrote it (HDF5 /Parameters, the CSV
// metadata comment, Tipsy's eps) unless --softening is given, and says so; a file that records
// none gets the default with a warning (it used to get the default without a word).
TEST(FirstContact, RunFromASnapshotKeepsItsSoftening) {
  const std::string dir = temp_dir("snapshot_softening");
  std::vector<std::string> formats = {"csv", "tipsy"};
  if (hdf5_available()) formats.push_back("hdf5");
  for (const std::string& format : formats) {
    SCOPED_TRACE(format);
    const std::string run = dir + "/" + format;
    const auto first = run_nbody("run -n 64 --device cpu --steps 2 --softening 0.0625 --snapshot-every 2 "
                                 "--snapshot-format " + format + " --out " + run);
    ASSERT_EQ(first.status, 0) << first.err;
    std::string snapshot;
    for (const auto& entry : std::filesystem::directory_iterator(run)) {
      if (entry.path().filename().string().starts_with("snapshot_")) snapshot = entry.path().string();
    }
    ASSERT_FALSE(snapshot.empty());
    EXPECT_EQ(read_particle_file_info(snapshot).softening, 0.0625);
    const auto next = run_nbody("run --ic file:" + snapshot + " --device cpu --steps 1 --out " + run + "/next");
    ASSERT_EQ(next.status, 0) << next.err;
    EXPECT_TRUE(has(next.out, "softening 0.0625: as recorded in")) << next.out;
    EXPECT_TRUE(has(read_text(run + "/next/config.toml"), "\nsoftening = 0.0625\n"));
    const auto given = run_nbody("run --ic file:" + snapshot + " --device cpu --steps 1 --softening 0.125 --out " +
                                 run + "/given");
    ASSERT_EQ(given.status, 0) << given.err;
    EXPECT_FALSE(has(given.out, "as recorded")) << given.out;
    EXPECT_TRUE(has(read_text(run + "/given/config.toml"), "\nsoftening = 0.125\n"));
  }
  // A file without a softening: a CSV of bodies written by hand.
  std::ofstream(dir + "/bodies.csv") << "id,m,x,y,z,vx,vy,vz\n0,0.5,1,0,0,0,0.5,0\n1,0.5,-1,0,0,0,-0.5,0\n";
  EXPECT_FALSE(read_particle_file_info(dir + "/bodies.csv").softening.has_value());
  const auto plain = run_nbody("run --ic file:" + dir + "/bodies.csv --device cpu --steps 1");
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_TRUE(has(plain.out, "warning: " + dir + "/bodies.csv records no softening: the default 0.01 is used"))
      << plain.out;
  // A negative softening in the metadata comment is refused like any bad value.
  std::ofstream(dir + "/bad.csv") << "id,m,x,y,z,vx,vy,vz\n# time = 0, softening = -1\n0,1,0,0,0,0,0,0\n";
  const auto bad = run_nbody("run --ic file:" + dir + "/bad.csv --device cpu --steps 1");
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(has(bad.err, "softening must be >= 0")) << bad.err;
}

}  // namespace
}  // namespace nbody::test
