#pragma once
// Launch shapes of the element-wise and reduction kernels (plain C++; the .cu files use them).
#include <algorithm>
#include <cstddef>

namespace nbody::cuda {

// Grid-stride element-wise kernels: 256 threads a block, at most 65535 blocks.
struct ElementwisePolicy {
  static constexpr int kBlock = 256;
  static constexpr int kMaxBlocks = 65535;
  static_assert(kBlock % 32 == 0 && kBlock <= 1024, "block must be whole warps");

  [[nodiscard]] static int blocks(std::size_t n) {
    const std::size_t b = (n + kBlock - 1) / kBlock;
    return static_cast<int>(std::clamp<std::size_t>(b, 1, kMaxBlocks));
  }
};

// Reductions for diagnostics: a fixed grid, so the partial sums and their order depend on
// nothing but n (the same bits on every run).
struct ReductionPolicy {
  static constexpr int kBlock = 256;
  static constexpr int kBlocks = 264;
  static_assert(kBlock % 32 == 0 && kBlock <= 1024, "block must be whole warps");
};

}  // namespace nbody::cuda
