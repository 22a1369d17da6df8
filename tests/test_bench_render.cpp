// `nbody bench --suite render` (bench/render_suite.cpp) on the CPU at a small N: the step, the map
// and the worker's frame are measured and verified; the device shading is skipped without a GPU.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "bench.hpp"

namespace nbody::bench {
namespace {

TEST(RenderBench, MeasuresTheStepTheMapAndTheFrameOnTheCpu) {
  Options o;
  o.quick = true;
  o.max_n = 20000;
  std::vector<Record> records;
  render_suite(o, [&](Record r) { records.push_back(std::move(r)); });
  if (!NBODY_HAVE_RENDER) {
    ASSERT_EQ(records.size(), 1u);
    EXPECT_NE(records[0].skipped.find("no renderer"), std::string::npos);
    return;
  }
  std::map<std::string, Record> by;
  for (const Record& r : records) by[r.rung] = r;
  ASSERT_EQ(by.size(), 4u);
  for (const char* rung : {"tree-step", "frame-map", "frame-write"}) {
    SCOPED_TRACE(rung);
    const Record& r = by[rung];
    EXPECT_EQ(r.error, "");
    EXPECT_TRUE(r.verified) << r.verification;
    EXPECT_GT(r.median_s, 0);
    EXPECT_LE(r.min_s, r.median_s);
    EXPECT_GE(r.repeats, 2);
    EXPECT_EQ(r.n, 20000);
  }
  EXPECT_NE(by["frame-map"].verification.find("% of a tree step"), std::string::npos);
  EXPECT_NE(by["frame-map"].verification.find("bodies in view"), std::string::npos);
  // Without a GPU the bodies are on the host: nothing is shaded on a device, and it says so.
  if (by["frame-shaded"].skipped.empty()) GTEST_SKIP() << "a GPU is present: the CPU case is not this machine's";
  EXPECT_NE(by["frame-shaded"].skipped.find("on the host"), std::string::npos);
  EXPECT_EQ(by["frame-shaded"].median_s, 0);
}

}  // namespace
}  // namespace nbody::bench
