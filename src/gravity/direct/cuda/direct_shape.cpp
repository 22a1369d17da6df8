// The launch-shape policy of the production direct-sum kernel: a table derived from measured
// sweeps (`nbody bench --suite tune` on an H100: every compiled shape and slice count at
// N = 1024 ... 262144 in fp32, fp64 and mixed; bench/results/ holds the data), expressed in
// targets per SM so that it carries over to GPUs with other SM counts.
//
// Why the table looks as it does. A pair costs 13 issue slots in float32 (12 FP32 + 1 MUFU; 16
// FP64 instructions in float64) plus one shared-memory load per R targets, so large R is cheapest
// per pair; but every scheduler needs enough independent work to hide the FMA and MUFU latencies,
// and at small N there are too few targets to give each of the 4 x 132 schedulers several warps.
//   - Few targets per SM (small N): the warp-sliced kernel, whose warps split a block's sources,
//     with L lanes sharing a target when even one target per warp lane would leave schedulers idle.
//     Splitting a target's sources over several blocks instead costs a device-wide fence, an
//     atomic ticket and a second pass over the partial sums — about 3 microseconds, which the
//     sweeps show is never repaid below ~10^5 bodies.
//   - Many targets per SM: the tiled kernel with R = 2 (fp32, mixed) or 4 (fp64) and enough source
//     slices that the grid holds tens of blocks per SM, so the last wave's tail is small. Larger R
//     measured no faster: past R = 2 the kernel is bound by issue, not by the shared-memory load.
// Measured against the best shape of each sweep the table's choice is within a few per cent.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <iterator>

#include "gravity/direct/cuda/direct_shape.hpp"

namespace nbody {
namespace {

// Largest power of two <= v (1 for v < 2).
int pow2_floor(double v) {
  int p = 1;
  while (double(p) * 2 <= v) p *= 2;
  return p;
}

// Tiled shape with S slices so that the grid holds about `work / N` x (targets per block) blocks:
// S = work / N rounded down to a power of two, within [1, max_slices].
DirectShape tiled(std::int64_t n, int block, int targets, double work) {
  DirectShape s{block, targets, 1};
  s.slices = std::min(pow2_floor(work / double(n)), max_slices(n, s));
  return s;
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

std::optional<DirectShape> parse_direct_shape(std::string_view text) {
  DirectShape s;
  const char* p = text.data();
  const char* const end = text.data() + text.size();
  // One positive decimal number at p.
  auto number = [&](int& out) {
    const auto [next, ec] = std::from_chars(p, end, out);
    if (ec != std::errc() || next == p || out <= 0) return false;
    p = next;
    return true;
  };
  auto eat = [&](char c) {
    if (p == end || *p != c) return false;
    ++p;
    return true;
  };
  int first = 0;
  s.warps = eat('w');
  if (!number(first) || !eat('x') || !number(s.targets)) return std::nullopt;
  s.block = s.warps ? 32 * first : first;
  if (s.warps && p != end && *p == 'l' && !(eat('l') && number(s.lanes))) return std::nullopt;
  if (p != end && !(eat('/') && eat('s') && number(s.slices))) return std::nullopt;
  if (p != end || s.block > 1024) return std::nullopt;
  return s;
}

bool is_compiled(const DirectShape& s, KernelArithmetic a) {
  if (s.slices < 1 || (s.slices & (s.slices - 1)) != 0) return false;
  return std::any_of(compiled_shapes(a).begin(), compiled_shapes(a).end(), [&](const DirectShape& c) {
    return c.block == s.block && c.targets == s.targets && c.warps == s.warps && c.lanes == s.lanes;
  });
}

const std::vector<DirectShape>& compiled_shapes(KernelArithmetic a) {
  static const std::vector<DirectShape> fp32(std::begin(kCompiledFp32), std::end(kCompiledFp32));
  static const std::vector<DirectShape> fp64(std::begin(kCompiledFp64), std::end(kCompiledFp64));
  static const std::vector<DirectShape> mixed(std::begin(kCompiledMixed), std::end(kCompiledMixed));
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
  const double per_sm = double(n) / double(std::max(1, d.sm_count));  // targets per SM
  // {block, targets per thread, slices, warp-sliced, lanes per target}
  switch (a) {
    case KernelArithmetic::fp32:
      // Rows from `--suite tune-program` (the documents' whole program per shape, N = 1024 ...
      // 16384 on an H100: 7.8, 15.5, 31, 62, 124 targets per SM); each boundary lies halfway (in
      // ratio) between the measured sizes on either side.
      if (per_sm <= 22) return {512, 2, 1, true, 4};
      if (per_sm <= 44) return {512, 2, 1, true, 2};
      if (per_sm <= 256) return {512, 2, 1, true};
      return tiled(n, 256, 2, 8.0 * 1024 * 1024);
    case KernelArithmetic::fp64:
      if (per_sm <= 16) return {512, 1, 1, true, 2};
      if (per_sm <= 64) return {512, 1, 1, true};
      if (per_sm <= 256) return {256, 2, 1, true};
      return tiled(n, 128, 4, 4.0 * 1024 * 1024);
    case KernelArithmetic::mixed:
      if (per_sm <= 16) return {1024, 1, 1, true, 2};
      if (per_sm <= 64) return {1024, 1, 1, true};
      if (per_sm <= 256) return {512, 2, 1, true};
      return tiled(n, 128, 2, 4.0 * 1024 * 1024);
  }
  return {};
}

}  // namespace nbody
