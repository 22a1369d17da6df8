#pragma once
// The launch shape of the acceleration-and-jerk pass (the Hermite integrator's force pass) and
// the fixed order in which it sums a target's sources. Plain C++ (no CUDA types): the tests
// read it too.
//
// The order depends on the number of sources alone: the sources are cut into chunks of
// `chunk` bodies (a whole number of shared-memory tiles), the chunks into groups of
// kChunksPerGroup. A target's sum is a left fold over the groups of left folds over their chunks
// of left folds over the chunk's sources, each fold starting from zero. Every launch mode makes
// exactly these additions, so the bits of a body's a and jerk do not depend on how many other
// bodies are active (the mode), nor on how a pass is split over ranks:
//   whole:  a block of targets folds every source (large active sets);
//   groups: a block folds one group; a second kernel folds the groups' partials;
//   chunks: a block folds one chunk; a second kernel folds the chunks' partials into groups and
//           the groups into the sum (small active sets: the sources spread over many blocks, so
//           that a block step of a few hundred bodies still fills every SM).
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace nbody::direct {

struct AccJerkPolicy {
  static constexpr int kBlock = 64;            // targets per block = sources per shared tile
  static constexpr int kUnroll = 4;            // inner-loop unroll over a tile
  static constexpr int kMaxChunks = 256;       // chunks of the sources (at most)
  static constexpr int kChunksPerGroup = 16;   // chunks folded into one group
  static constexpr int kBlocksPerSm = 8;       // blocks per SM that keep every SM busy (and the
                                               // kernel's register bound: 8 x 64 threads an SM)
  static constexpr int kFoldBlock = 128;       // threads per block of the partials' fold (a warp an element)
  static constexpr std::size_t kPartialBytes = std::size_t(256) << 20;  // the most scratch a split may use
  static_assert(kBlock % 32 == 0 && kBlock <= 1024, "block must be whole warps");
  static_assert(kBlock % kUnroll == 0, "unroll must divide the tile");
  static_assert(kMaxChunks % kChunksPerGroup == 0, "groups must be whole");
};

// The pass for a count known only on the device (the block-step loop): a fixed grid of
// kItemBlocksPerSm blocks an SM visits the items (target tile, source part) of the shape
// acc_jerk_shape gives for that count (at ~500 targets among 65,536 on 132 SMs: 8 tiles x 256
// chunks = 2,048 items over 1,056 blocks, two rounds); the fold one warp a (target,
// component), at most kFoldBlocksPerSm blocks an SM (16 x 128 threads: an SM's 64 warps).
struct AccJerkCountedPolicy {
  static constexpr int kItemBlocksPerSm = AccJerkPolicy::kBlocksPerSm;
  static constexpr int kFoldBlocksPerSm = 16;
  [[nodiscard]] static constexpr int item_blocks(int sm_count) noexcept {
    return kItemBlocksPerSm * std::max(sm_count, 1);
  }
  [[nodiscard]] static constexpr int fold_blocks(int sm_count) noexcept {
    return kFoldBlocksPerSm * std::max(sm_count, 1);
  }
};

enum class AccJerkMode { whole, groups, chunks };

struct AccJerkShape {
  int chunk = AccJerkPolicy::kBlock;  // sources per chunk (a multiple of the tile)
  int chunks = 1;                     // ceil(sources / chunk)
  int groups = 1;                     // ceil(chunks / kChunksPerGroup)
  AccJerkMode mode = AccJerkMode::whole;
  int target_blocks = 0;              // ceil(targets / kBlock)

  // Partial sums per target component in the split modes (0: whole).
  [[nodiscard]] constexpr int parts() const noexcept {
    return mode == AccJerkMode::chunks ? chunks : mode == AccJerkMode::groups ? groups : 0;
  }
};

// The summation order for `sources` bodies (a function of `sources` alone).
[[nodiscard]] constexpr AccJerkShape acc_jerk_order(std::int64_t sources) noexcept {
  using P = AccJerkPolicy;
  AccJerkShape s;
  const std::int64_t n = std::max<std::int64_t>(sources, 1);
  const std::int64_t per = (n + P::kMaxChunks - 1) / P::kMaxChunks;
  const std::int64_t tiles = std::max<std::int64_t>(1, (per + P::kBlock - 1) / P::kBlock);
  s.chunk = static_cast<int>(tiles * P::kBlock);
  s.chunks = static_cast<int>((n + s.chunk - 1) / s.chunk);
  s.groups = (s.chunks + P::kChunksPerGroup - 1) / P::kChunksPerGroup;
  return s;
}

// The launch for `targets` active bodies among `sources` on a GPU of `sm_count` SMs, partials of
// `value_bytes` each: whole when the targets alone fill the SMs, else the finest split whose
// blocks fill them and whose partials fit kPartialBytes.
[[nodiscard]] constexpr AccJerkShape acc_jerk_shape(std::int64_t sources, std::int64_t targets, int sm_count,
                                                    std::size_t value_bytes) noexcept {
  using P = AccJerkPolicy;
  AccJerkShape s = acc_jerk_order(sources);
  const std::int64_t tb = (targets + P::kBlock - 1) / P::kBlock;
  s.target_blocks = static_cast<int>(tb);
  const std::int64_t full = std::int64_t(P::kBlocksPerSm) * std::max(sm_count, 1);
  auto fits = [&](int parts) {
    return std::size_t(targets) * std::size_t(parts) * 6 * value_bytes <= P::kPartialBytes;
  };
  if (tb >= full || s.chunks == 1) return s;
  if (tb * s.groups < full && s.groups < s.chunks && fits(s.chunks)) {
    s.mode = AccJerkMode::chunks;
  } else if (s.groups > 1 && fits(s.groups)) {
    s.mode = AccJerkMode::groups;
  }
  return s;
}

// The most partial values (targets x parts x 6) any split launch for `sources` bodies needs on
// `sm_count` SMs: a split runs only while the target blocks do not fill the SMs, so at most
// kBlock x kBlocksPerSm x sm_count targets, and at most kChunksPerGroup times as many parts per
// target as a chunk split's groups (or a group split's). Allocated once, before the first pass.
[[nodiscard]] constexpr std::size_t acc_jerk_partials(std::int64_t sources, int sm_count,
                                                      std::size_t value_bytes) noexcept {
  using P = AccJerkPolicy;
  const AccJerkShape s = acc_jerk_order(sources);
  const std::int64_t full = std::int64_t(P::kBlock) * P::kBlocksPerSm * std::max(sm_count, 1);
  const std::int64_t by_targets = std::max<std::int64_t>(sources, 1) * std::max(s.chunks, s.groups);
  const std::int64_t by_sms = full * P::kChunksPerGroup;
  const std::size_t values = std::size_t(std::min(by_targets, by_sms)) * 6;
  return std::min(values, P::kPartialBytes / value_bytes);
}

}  // namespace nbody::direct
