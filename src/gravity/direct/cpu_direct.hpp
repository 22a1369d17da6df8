#pragma once
// Direct-summation gravity on the host: the float64 oracle and the fast OpenMP + SIMD path.
#include <cstddef>

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

// The oracle: every pair in float64 whatever T is, the i = j term skipped by index, a fixed
// summation order per target (so the result does not depend on the thread count).
template <class T>
void reference_accelerations(const SourceArrays<T>& s, const AccelArrays<T>& a, const GravityParams& g);
template <class T>
[[nodiscard]] double reference_potential_energy(const SourceArrays<T>& s, const GravityParams& g);

// The fast CPU path: pairwise arithmetic in T, vectorised over sources, threaded over targets.
template <class T>
void simd_accelerations(const SourceArrays<T>& s, const AccelArrays<T>& a, const GravityParams& g);
// Mixed precision: each pair term in float32 from float32 copies of the positions and masses,
// summed in float32 over chunks of sources and the chunks in float64.
void simd_accelerations_mixed(const SourceArrays<double>& s, const AccelArrays<double>& a, const GravityParams& g);

// Pairwise terms in T, each target's sum in float64.
template <class T>
[[nodiscard]] double simd_potential_energy(const SourceArrays<T>& s, const GravityParams& g);

}  // namespace nbody::direct
