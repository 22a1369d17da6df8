#pragma once
// A counter-based random number generator: the value is a pure function of (seed, stream,
// counter), so a particle's draws do not depend on the order or the thread that makes them, and
// the same seed loads the same plasma on the CPU and the GPU. The mixing is SplitMix64's
// finaliser applied twice (Steele, Lea & Flood 2014), good enough for loading plasmas.
#include <cmath>
#include <cstdint>

#include "core/hd.hpp"

namespace nbody::pic {

PIC_HD std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

struct CounterRng {
  std::uint64_t key = 0;

  PIC_HD CounterRng(std::uint64_t seed, std::uint64_t stream)
      : key(mix64(mix64(seed + 0x9e3779b97f4a7c15ULL) ^ (stream * 0xd1b54a32d192ed03ULL + 1))) {}
  PIC_HD std::uint64_t bits(std::uint64_t counter) const {
    return mix64(key ^ mix64(counter * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL));
  }
  // Uniform in [0, 1).
  PIC_HD double uniform(std::uint64_t counter) const { return double(bits(counter) >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1].
  PIC_HD double uniform_open(std::uint64_t counter) const {
    return (double(bits(counter) >> 11) + 1.0) * 0x1.0p-53;
  }
  // A standard normal deviate from the counters 2c and 2c+1 (Box-Muller).
  PIC_HD double normal(std::uint64_t counter) const {
    const double u = uniform_open(2 * counter);
    const double v = uniform(2 * counter + 1);
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586476925286766559 * v);
  }
};

}  // namespace nbody::pic
