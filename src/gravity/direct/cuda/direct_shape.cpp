// The launch-shape policy of the production direct-sum kernel.
//
// Derivation. The kernel is bound by instruction issue: a pair costs 13 issue slots (12 FP32 +
// 1 MUFU, see interaction.hpp) plus one shared-memory load shared by the R targets of a thread,
// so the best it can do with R targets per thread is 13 / (13 + 1/R) of the issue rate. To reach
// it, every SM sub-partition needs enough independent instruction streams to hide the ~4-cycle
// FMA and longer MUFU latencies: warps x R independent accumulations per scheduler. So:
//   1. at large N prefer the largest R: blocks are plentiful and only the issue cost matters;
//   2. at small N, N / (block R) blocks cannot occupy 132 SMs: split the sources into S slices
//      (more blocks, each a partial sum, reduced in order by the last block of a group) until the
//      blocks fill the resident slots, trading R down when even S = N / block is not enough;
//   3. count whole waves: blocks / (waves x slots) is the fraction of the last wave that works
//      (the "tail effect" the source documents measure).
// The model's score is  issue(R) x balance(blocks) x latency_hiding(warps per scheduler x R),
// and the policy takes the best-scoring compiled shape. `nbody bench --suite tune` measures every
// compiled shape and slice count and reports the policy's pick against the measured best.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "gravity/direct/cuda/direct_shape.hpp"

namespace nbody {
namespace {

constexpr double kPairIssueSlots = 13.0;
// Independent accumulation chains per scheduler needed to hide latency (FMA ~4 cycles deep,
// 3 chains per target; MUFU and LDS longer): 8 warps x 1 target or 2 warps x 4 targets.
constexpr double kChainsToHideLatency = 8.0;

double score(std::int64_t n, const DirectShape& s, const DeviceSlots& d) {
  const std::int64_t groups = (n + s.group() - 1) / s.group();
  const std::int64_t blocks = groups * s.slices;
  const int warps_per_block = s.block / 32;
  const std::int64_t slots_per_sm = std::max(1, d.blocks_per_sm(s));
  const std::int64_t slots = slots_per_sm * d.sm_count;
  const std::int64_t waves = (blocks + slots - 1) / slots;
  const double balance = double(blocks) / double(waves * slots);
  const double resident_warps = double(std::min(blocks, slots)) * warps_per_block / double(d.sm_count);
  const double chains = resident_warps / 4.0 * s.targets;
  const double hiding = std::min(1.0, chains / kChainsToHideLatency);
  const double issue = kPairIssueSlots / (kPairIssueSlots + 1.0 / s.targets);
  // Each extra slice costs its partial sums a round trip through L2: about 6 loads and stores per
  // target per slice against N / S pairs; noticeable only when N / S is a few tiles.
  const double split_cost = s.slices > 1 ? 1.0 / (1.0 + 6.0 * s.slices / double(n)) : 1.0;
  // The warp-sliced kernel stages sources 32 at a time per warp: a last, partial chunk idles lanes.
  double chunking = 1.0;
  if (s.warps) {
    const double per_warp = double(n) / double(s.slices) / double(s.block / 32);
    chunking = per_warp / (std::ceil(per_warp / 32.0) * 32.0);
    // Lanes sharing a target pay a butterfly of 3 (L - 1) R shuffles against per_warp / L pairs.
    chunking *= 1.0 / (1.0 + 3.0 * (s.lanes - 1) * 32.0 / std::max(per_warp, 1.0) / 13.0);
  }
  return issue * balance * hiding * split_cost * chunking;
}

}  // namespace

std::string DirectShape::text() const {
  char buf[48];
  if (warps && lanes > 1) {
    std::snprintf(buf, sizeof buf, "w%dx%dl%d/s%d", block / 32, targets, lanes, slices);
  } else if (warps) {
    std::snprintf(buf, sizeof buf, "w%dx%d/s%d", block / 32, targets, slices);
  } else {
    std::snprintf(buf, sizeof buf, "%dx%d/s%d", block, targets, slices);
  }
  return buf;
}

const std::vector<DirectShape>& compiled_shapes(KernelArithmetic a) {
  // Keep in step with launch_direct_sum() in direct_launch.cuh.
  static const std::vector<DirectShape> fp32 = {
      {128, 1, 1},       {128, 2, 1},       {128, 4, 1},          {128, 8, 1},         {256, 2, 1},
      {256, 4, 1},       {256, 8, 1},       {1024, 1, 1, true},   {512, 2, 1, true},   {256, 4, 1, true},
      {1024, 1, 1, true, 2}, {512, 1, 1, true, 4}, {512, 2, 1, true, 2}};
  static const std::vector<DirectShape> fp64 = {{128, 1, 1},       {128, 2, 1},       {128, 4, 1},
                                                {512, 1, 1, true}, {256, 2, 1, true}, {512, 1, 1, true, 2}};
  static const std::vector<DirectShape> mixed = {{128, 1, 1},        {128, 2, 1},       {128, 4, 1},
                                                 {1024, 1, 1, true}, {512, 2, 1, true}, {1024, 1, 1, true, 2}};
  switch (a) {
    case KernelArithmetic::fp32: return fp32;
    case KernelArithmetic::fp64: return fp64;
    case KernelArithmetic::mixed: return mixed;
  }
  return fp32;
}

int max_slices(std::int64_t n, const DirectShape& shape) noexcept {
  int s = 1;
  while (std::int64_t(s) * 2 * shape.min_slice() <= n) s *= 2;
  return s;
}

DirectShape choose_shape(std::int64_t n, KernelArithmetic a, const DeviceSlots& d) {
  DirectShape best = compiled_shapes(a).front();
  double best_score = -1;
  for (DirectShape s : compiled_shapes(a)) {
    for (int slices = 1; slices <= max_slices(n, s); slices *= 2) {
      s.slices = slices;
      const double v = score(n, s, d);
      // Strictly better only: ties keep the earlier (fewer slices, smaller R) shape.
      if (v > best_score * (1.0 + 1e-9)) {
        best_score = v;
        best = s;
      }
    }
  }
  return best;
}

}  // namespace nbody
