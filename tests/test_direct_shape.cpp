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
        EXPECT_TRUE(is_compiled(s, a)) << s.text() << " at n = " << n;
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

TEST(DirectShapeText, EveryCompiledShapeReadsBackFromItsText) {
  for (const KernelArithmetic a : {KernelArithmetic::fp32, KernelArithmetic::fp64, KernelArithmetic::mixed}) {
    for (DirectShape c : compiled_shapes(a)) {
      for (const int slices : {1, 4, 64}) {
        c.slices = slices;
        const auto back = parse_direct_shape(c.text());
        ASSERT_TRUE(back.has_value()) << c.text();
        EXPECT_EQ(*back, c) << c.text();
        EXPECT_TRUE(is_compiled(*back, a)) << c.text();
      }
    }
  }
  // Without "/sS": one slice.
  const auto one = parse_direct_shape("w16x2l2");
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->text(), "w16x2l2/s1");
  EXPECT_EQ(parse_direct_shape("256x2")->text(), "256x2/s1");
}

TEST(DirectShapeText, RejectsWhatIsNotAShapeOrNotCompiled) {
  for (const char* bad : {"", "w", "256", "256x", "x2", "256x2/", "256x2/s", "256x2/s0", "256x2/4", "w16x2l",
                          "w16x2l2/s1 ", "256x-2", "256x2l2", "4096x1", "w40x1", "abc"}) {
    EXPECT_FALSE(parse_direct_shape(bad).has_value()) << "'" << bad << "'";
  }
  EXPECT_FALSE(is_compiled(*parse_direct_shape("256x3/s1"), KernelArithmetic::fp32));
  EXPECT_FALSE(is_compiled(*parse_direct_shape("256x2/s3"), KernelArithmetic::fp32));  // not a power of two
  EXPECT_FALSE(is_compiled(*parse_direct_shape("w16x2l4"), KernelArithmetic::fp64));
  EXPECT_TRUE(is_compiled(*parse_direct_shape("w16x2l4/s2"), KernelArithmetic::fp32));
}

}  // namespace
}  // namespace nbody::test
#endif
