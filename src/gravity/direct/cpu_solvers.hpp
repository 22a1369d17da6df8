#pragma once
// The CPU direct-sum solvers: the float64 oracle ("reference") and the OpenMP + SIMD path.
#include <memory>

#include "gravity/solver.hpp"

namespace nbody {

// The float64 oracle: every pair in double whatever T is. Accelerations, potentials, jerks.
template <class T>
[[nodiscard]] std::unique_ptr<ForceSolver<T>> make_reference_solver(const GravityParams& g);
// Pair arithmetic in T (mixed, T = double only: float32 pair terms summed in float64).
template <class T>
[[nodiscard]] std::unique_ptr<ForceSolver<T>> make_cpu_direct_solver(const GravityParams& g, bool mixed);

}  // namespace nbody
