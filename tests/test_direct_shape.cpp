// The production kernel's launch policy picks a compiled shape, with a valid slice count, for
// every N, arithmetic and GPU size.
#include <gtest/gtest.h>

#if NBODY_HAVE_CUDA
#include "gravity/direct/cuda/direct_shape.hpp"

namespace nbody::test {
namespace {

TEST(DirectShapePolicy, PicksACompiledShapeForEveryN) {
  for (const KernelArithmetic a : {KernelArithmetic::fp32, KernelArithmetic::fp64, KernelArithmetic::mixed}) {
    for (const int sms : {16, 108, 132, 144}) {
      for (std::int64_t n = 1; n <= (std::int64_t(1) << 26); n = n * 3 / 2 + 1) {
        const DirectShape s = choose_shape(n, a, DeviceSlots{sms});
        bool compiled = false;
        for (const DirectShape& c : compiled_shapes(a)) {
          compiled = compiled || (c.block == s.block && c.targets == s.targets && c.warps == s.warps && c.lanes == s.lanes);
        }
        EXPECT_TRUE(compiled) << s.text() << " at n = " << n;
        EXPECT_GE(s.slices, 1);
        EXPECT_LE(s.slices, max_slices(n, s)) << s.text() << " at n = " << n;
      }
    }
  }
}

TEST(DirectShapePolicy, SmallNUsesTheWarpSlicedKernelAndLargeNTheTiledOne) {
  EXPECT_TRUE(choose_shape(4096, KernelArithmetic::fp32, DeviceSlots{132}).warps);
  EXPECT_EQ(choose_shape(4096, KernelArithmetic::fp32, DeviceSlots{132}).slices, 1);
  EXPECT_FALSE(choose_shape(1 << 20, KernelArithmetic::fp32, DeviceSlots{132}).warps);
  EXPECT_EQ(choose_shape(1 << 20, KernelArithmetic::fp32, DeviceSlots{132}).text(), "256x2/s8");
}

}  // namespace
}  // namespace nbody::test
#endif
