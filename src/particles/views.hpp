#pragma once
// Views of particle fields: plain structs of pointers into a store (or any arrays), passed by
// value to host loops and CUDA kernels alike. One family for every solver, integrator and kernel.
// Kernels index bodies with 32-bit integers (the schema caps N below 2^31).
#include <cstdint>

#include "core/hd.hpp"

namespace nbody {

// Three component arrays (a position, velocity, acceleration or jerk of every body).
template <class T>
struct Vec3Span {
  T* __restrict__ x;
  T* __restrict__ y;
  T* __restrict__ z;
};

template <class T>
struct ConstVec3Span {
  const T* __restrict__ x;
  const T* __restrict__ y;
  const T* __restrict__ z;
};

template <class T>
NBODY_HD ConstVec3Span<T> as_const(Vec3Span<T> v) {
  return {v.x, v.y, v.z};
}

// The sources of a force pass: positions and masses of n bodies.
template <class T>
struct SourceView {
  const T* __restrict__ x;
  const T* __restrict__ y;
  const T* __restrict__ z;
  const T* __restrict__ m;
  int n;
};

// The targets of a force pass: the positions of n bodies. `self` is the index in the sources of
// target 0 when the targets are sources too (target i is source self + i; its own term is left
// out where it is not zero by itself, as in the potential), or -1 when they are not.
template <class T>
struct TargetView {
  const T* __restrict__ x;
  const T* __restrict__ y;
  const T* __restrict__ z;
  int n;
  int self = -1;
};

// Sources with velocities (the Hermite integrator's jerk needs them).
template <class T>
struct MotionView {
  ConstVec3Span<T> x;
  ConstVec3Span<T> v;
  const T* __restrict__ m;
  int n;
};

// A subset of bodies by index, ascending, no repeats (an active block of the Hermite integrator).
struct IndexView {
  const std::int32_t* __restrict__ index;
  int count;
};

// Every core field of the bodies [0, n) of a store.
template <class T>
struct ParticleView {
  Vec3Span<T> x;
  Vec3Span<T> v;
  T* __restrict__ m;
  std::uint64_t* __restrict__ id;
  int n;

  [[nodiscard]] NBODY_HD SourceView<T> sources() const { return {x.x, x.y, x.z, m, n}; }
  [[nodiscard]] NBODY_HD TargetView<T> targets() const { return {x.x, x.y, x.z, n, 0}; }
  [[nodiscard]] NBODY_HD MotionView<T> motion() const { return {as_const(x), as_const(v), m, n}; }
  // Bodies [first, first + count) as a view of their own.
  [[nodiscard]] NBODY_HD ParticleView slice(int first, int count) const {
    return {{x.x + first, x.y + first, x.z + first}, {v.x + first, v.y + first, v.z + first}, m + first, id + first,
            count};
  }
};

}  // namespace nbody
