// The nbody program on the GPU: check in both precisions, a request that does not fit, and a
// bit-exact restart through the CUDA backend.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/particle_file.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

#define NBODY_SKIP_WITHOUT_CUDA()                                    \
  do {                                                               \
    std::string why_;                                                \
    if (!cuda_device_available(&why_)) GTEST_SKIP() << "skipped: no CUDA device (" << why_ << ")"; \
  } while (0)

TEST(CliGpu, CheckPrintsPositionsCorrectInBothPrecisions) {
  NBODY_SKIP_WITHOUT_CUDA();
  for (const char* p : {"fp32", "fp64"}) {
    const auto r = run_nbody(std::string("check --backend cuda --precision ") + p);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("positions correct"), std::string::npos) << r.out;
  }
}

TEST(CliGpu, StateLargerThanTheDeviceIsAnInputError) {
  NBODY_SKIP_WITHOUT_CUDA();
  // 2^31 - 1 bodies in float64 need 172 GB on the device: more than any current GPU has.
  const std::string dir = temp_dir("toolarge") + "/out";
  const auto r = run_nbody("run --backend cuda --precision fp64 -n 2147483647 --out " + dir);
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  ASSERT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("n:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("GPU memory"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST(CliGpu, RunOnCudaReportsItsDevice) {
  NBODY_SKIP_WITHOUT_CUDA();
  const auto r = run_nbody("run --backend cuda -n 4096 --steps 20");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("backend: cuda"), std::string::npos) << r.out;
}


TEST(CliGpu, ResumedRunGivesTheSameBytesAsAnUninterruptedOne) {
  NBODY_SKIP_WITHOUT_CUDA();
  namespace fs = std::filesystem;
  for (const char* precision : {"fp32", "fp64"}) {
    const fs::path base = temp_dir(std::string("gpu_restart_") + precision);
    const std::string format = hdf5_available() ? "hdf5" : "csv";
    const std::string args = std::string("run --backend cuda -n 5000 --dt 0.002 --diag-every 10 --snapshot-every 25 ") +
                             "--precision " + precision + " --snapshot-format " + format;
    const auto second = run_straight_and_resumed(args, base.string(), 50, 100);
    EXPECT_NE(second.out.find("backend: cuda"), std::string::npos) << second.out;
    const std::string last = "snapshot_004." + format;
    EXPECT_TRUE(read_text(base / "straight" / last) == read_text(base / "run" / last))
        << precision << ": " << last << " differs";
    for (const char* f : {"diagnostics.csv", "lagrangian_radii.csv"}) {
      EXPECT_TRUE(read_text(base / "straight" / f) == read_text(base / "run" / f)) << precision << ": " << f << " differs";
    }
  }
}

}  // namespace
}  // namespace nbody::test
