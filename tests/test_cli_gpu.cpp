// The nbody program on the GPU: check in both precisions, and a request that does not fit.
#include <filesystem>

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

}  // namespace
}  // namespace nbody::test
