#pragma once
// The block-time-step rules of the Hermite integrator for one body, written once for the host
// loops and the CUDA kernels. One interval dt is cut into 2^kMaxLevel ticks; a body on level l
// steps dt / 2^l = ticks_of(l) ticks, so times and their alignment are exact integers.
//
// After a correction at tick `now` the level is the finest whose step does not exceed Aarseth's
// criterion, deepened as far as needed at once; it is made one level coarser (the step doubled)
// only when the criterion allows twice the present step and `now` is a multiple of the doubled
// step, so that every body's time stays a multiple of its step and all bodies meet again at the
// end of the interval (e.g. Aarseth 2003, "Gravitational N-body simulations", ch. 2).
#include <cmath>
#include <cstdint>

#include "core/hd.hpp"

namespace nbody::hermite {

inline constexpr int kMaxLevel = 40;  // the shortest step is dt / 2^40
// The coarsest first level: the first step is at most dt / 4 whatever the start's criterion says
// (Aarseth's from the snap and crackle of the pairs, or eta |a| / |j| where the solver has no snap,
// which knows no snap at all; Nitadori's Hermite codes cap their start the same way).
inline constexpr int kStartLevel = 2;
inline constexpr std::int64_t kTicks = std::int64_t(1) << kMaxLevel;

NBODY_HD constexpr std::int64_t ticks_of(int level) { return std::int64_t(1) << (kMaxLevel - level); }

// dt / 2^level, exactly.
NBODY_HD double step_of(double dt, int level) {
#if defined(__CUDA_ARCH__)
  return ::ldexp(dt, -level);
#else
  return std::ldexp(dt, -level);
#endif
}

// The coarsest level whose step dt / 2^level does not exceed `step` (NaN or +inf: level 0).
NBODY_HD int level_for(double step, double dt) {
  int level = 0;
  while (level < kMaxLevel && step_of(dt, level) > step) ++level;
  return level;
}

// The level after a correction at tick `now` with Aarseth's criterion (NaN: a body that feels no
// force, no constraint).
NBODY_HD int next_level(int level, double criterion, std::int64_t now, double dt) {
  const bool unconstrained = !(criterion == criterion);  // NaN
  const double step = step_of(dt, level);
  if (!unconstrained && criterion < step) {
    const int finer = level_for(criterion, dt);
    return finer > level ? finer : level;
  }
  const bool may_double = unconstrained || criterion >= 2.0 * step;
  if (level > 0 && may_double && now % ticks_of(level - 1) == 0) return level - 1;
  return level;
}

}  // namespace nbody::hermite
