#pragma once
// Philox-4x32-10, the counter-based generator of Salmon, Moraes, Dror & Shaw (2011, "Parallel
// random numbers: as easy as 1, 2, 3", SC'11): a bijection of a 128-bit counter under a 64-bit
// key, ten rounds of two 32x32->64 multiplications mixed with the key, which is bumped by the
// Weyl constants between rounds. The output is a pure function of (counter, key), so any draw
// can be made by any thread or rank in any order. Written from the paper's description; the
// known-answer vectors of the authors' Random123 distribution are checked in
// tests/test_initial_conditions.cpp (Philox.KnownAnswers).
#include <array>
#include <cstdint>

#include "core/hd.hpp"

namespace nbody {

struct Philox4x32 {
  using Counter = std::array<std::uint32_t, 4>;
  using Key = std::array<std::uint32_t, 2>;

  static constexpr std::uint32_t kMultiplier0 = 0xD2511F53u;
  static constexpr std::uint32_t kMultiplier1 = 0xCD9E8D57u;
  static constexpr std::uint32_t kWeyl0 = 0x9E3779B9u;  // golden ratio
  static constexpr std::uint32_t kWeyl1 = 0xBB67AE85u;  // sqrt(3) - 1
  static constexpr int kRounds = 10;

  NBODY_HD_INLINE static Counter round(const Counter& c, const Key& k) {
    const std::uint64_t p0 = std::uint64_t(kMultiplier0) * c[0];
    const std::uint64_t p1 = std::uint64_t(kMultiplier1) * c[2];
    const auto hi0 = std::uint32_t(p0 >> 32), lo0 = std::uint32_t(p0);
    const auto hi1 = std::uint32_t(p1 >> 32), lo1 = std::uint32_t(p1);
    return {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
  }

  // The ten-round bijection of `counter` under `key`.
  NBODY_HD_INLINE static Counter apply(Counter counter, Key key) {
    for (int r = 0; r < kRounds; ++r) {
      if (r > 0) {
        key[0] += kWeyl0;
        key[1] += kWeyl1;
      }
      counter = round(counter, key);
    }
    return counter;
  }
};

}  // namespace nbody
