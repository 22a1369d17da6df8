#pragma once
// Direct-summation gravity on the host: the float64 oracle and the fast OpenMP + SIMD path, as
// loops over target and source views.
#include <cstddef>
#include <cstdint>

#include "gravity/params.hpp"
#include "particles/views.hpp"

namespace nbody::direct {

// The oracle: every pair in float64 whatever T is, the target's own term skipped by index
// (targets.self), a fixed summation order per target (the result does not depend on the thread
// count).
template <class T>
void reference_accelerations(const TargetView<T>& t, const SourceView<T>& s, Vec3Span<T> a, const GravityParams& g);
template <class T>
[[nodiscard]] double reference_potential_energy(const SourceView<T>& s, const GravityParams& g);
template <class T>
void reference_acc_jerk(const IndexView& t, const MotionView<T>& s, Vec3Span<T> acc, Vec3Span<T> jerk,
                        const GravityParams& g);

// The fast CPU path: pairwise arithmetic in T, vectorised over sources, threaded over targets.
template <class T>
void simd_accelerations(const TargetView<T>& t, const SourceView<T>& s, Vec3Span<T> a, const GravityParams& g);
// Mixed precision: each pair term in float32 from float32 copies of the positions and masses,
// summed in float32 over chunks of sources and the chunks in float64.
void simd_accelerations_mixed(const TargetView<double>& t, const SourceView<double>& s, Vec3Span<double> a,
                              const GravityParams& g);
// Pairwise terms in T, each body's sum in float64.
template <class T>
[[nodiscard]] double simd_potential_energy(const SourceView<T>& s, const GravityParams& g);
template <class T>
void simd_acc_jerk(const IndexView& t, const MotionView<T>& s, Vec3Span<T> acc, Vec3Span<T> jerk,
                   const GravityParams& g);

}  // namespace nbody::direct
