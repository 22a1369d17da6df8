#pragma once
// Direct-summation gravity on the host: the float64 oracle and the fast OpenMP + SIMD path.
#include <cstddef>
#include <cstdint>

#include "gravity/params.hpp"

namespace nbody::direct {

template <class T>
struct SourceArrays {
  const T* x;
  const T* y;
  const T* z;
  const T* m;
  std::size_t n;
};

template <class T>
struct AccelArrays {
  T* ax;
  T* ay;
  T* az;
};

// Positions, velocities and masses of every source (the Hermite integrator's predicted state).
template <class T>
struct MotionArrays {
  const T* x;
  const T* y;
  const T* z;
  const T* vx;
  const T* vy;
  const T* vz;
  const T* m;
  std::size_t n;
};

// The targets of a force pass: indices into the sources, ascending.
struct Targets {
  const std::int32_t* index;
  std::size_t count;
};

// Accelerations and jerks of the targets, compact: entry k belongs to target index[k].
template <class T>
struct AccJerkArrays {
  T* ax;
  T* ay;
  T* az;
  T* jx;
  T* jy;
  T* jz;
};

// The oracle: every pair in float64 whatever T is, the i = j term skipped by index, a fixed
// summation order per target (so the result does not depend on the thread count).
template <class T>
void reference_accelerations(const SourceArrays<T>& s, const AccelArrays<T>& a, const GravityParams& g);
template <class T>
[[nodiscard]] double reference_potential_energy(const SourceArrays<T>& s, const GravityParams& g);
// Acceleration and jerk of each target from every other source, in float64.
template <class T>
void reference_acc_jerk(const MotionArrays<T>& s, const Targets& t, const AccJerkArrays<T>& out,
                        const GravityParams& g);

// The fast CPU path: pairwise arithmetic in T, vectorised over sources, threaded over targets.
template <class T>
void simd_accelerations(const SourceArrays<T>& s, const AccelArrays<T>& a, const GravityParams& g);
// Mixed precision: each pair term in float32 from float32 copies of the positions and masses,
// summed in float32 over chunks of sources and the chunks in float64.
void simd_accelerations_mixed(const SourceArrays<double>& s, const AccelArrays<double>& a, const GravityParams& g);

// Pairwise terms in T, each target's sum in float64.
template <class T>
[[nodiscard]] double simd_potential_energy(const SourceArrays<T>& s, const GravityParams& g);
// Acceleration and jerk of each target, pairwise arithmetic in T, vectorised over sources,
// threaded over targets (one thread per target: the result does not depend on the thread count).
template <class T>
void simd_acc_jerk(const MotionArrays<T>& s, const Targets& t, const AccJerkArrays<T>& out, const GravityParams& g);

}  // namespace nbody::direct
