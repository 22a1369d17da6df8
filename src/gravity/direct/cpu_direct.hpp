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
// Snap and crackle of the bodies [first, first + count) of s (targets among the sources, own term
// left out) from every body's acceleration a and jerk j (a pass's results), into those entries:
// Plummer softening, float64 pair terms in source order (gravity/snap_crackle.hpp). Hermite's
// first step.
template <class T>
void reference_snap_crackle(const MotionView<T>& s, ConstVec3Span<T> a, ConstVec3Span<T> j, int first, int count,
                            Vec3Span<T> snap, Vec3Span<T> crackle, const GravityParams& g);

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

// ---- streamed sums (the direct sum over rank-owned bodies: gravity/direct/owned_direct.hpp) ----
// The sources arrive in pieces in global index order; each call adds one piece's pulls to every
// target's running sums (float64 arrays: a float32 running sum is held in them exactly). A piece
// starts at a multiple of kStreamAlign of the global order, so the float32 paths' chunks of 256
// sources fall where they fall in one pass over every source, and the running sums are the
// single-process solver's, term for term. The float64 SIMD path sums each chunk of 256 apart and
// adds the chunk to the running sum (its single-process loop is one reduction over every source,
// which no piecewise order reproduces).
inline constexpr std::int64_t kStreamAlign = 1024;

// Pair arithmetic in T (float: float32 chunks added to a float32 running sum, as
// simd_accelerations; double: chunks of 256 in float64).
template <class T>
void simd_accumulate_pulls(const TargetView<T>& t, const SourceView<T>& piece, Vec3Span<double> sums,
                           const GravityParams& g);
// Mixed precision: float32 pair terms from float32 copies of the piece, chunks summed in float64.
void simd_accumulate_pulls_mixed(const TargetView<double>& t, const SourceView<double>& piece, Vec3Span<double> sums,
                                 const GravityParams& g);
// The float64 oracle: each pair in float64 in global index order, the target's own term skipped
// (target k is body target_index[k]; the piece holds bodies [first, first + piece.n)).
template <class T>
void reference_accumulate_pulls(const TargetView<T>& t, const std::uint64_t* target_index, const SourceView<T>& piece,
                                std::int64_t first, Vec3Span<double> sums, const GravityParams& g);
// Each target's potential (without G): the oracle's sum in global index order, streamed.
template <class T>
void reference_accumulate_potential(const TargetView<T>& t, const std::uint64_t* target_index,
                                    const SourceView<T>& piece, std::int64_t first, double* phi,
                                    const GravityParams& g);
// The same with pair terms in T summed over chunks of 1024 sources aligned on the global order
// (the target's own term left out), each chunk added to the float64 running sum. (The
// single-process simd_potential_energy aligns a target's chunks after its own index instead: the
// two agree to rounding, not bit for bit.)
template <class T>
void simd_accumulate_potential(const TargetView<T>& t, const std::uint64_t* target_index, const SourceView<T>& piece,
                               std::int64_t first, double* phi, const GravityParams& g);

}  // namespace nbody::direct
