#pragma once
#include <memory>

#include "gravity/backend.hpp"

namespace nbody {

// simd_mixed: float32 pair terms summed in float64 (T = double only).
enum class CpuMethod { reference, simd, simd_mixed };

// The host backends: `cpu-reference` (the float64 oracle) and `cpu` (OpenMP + SIMD).
template <class T>
[[nodiscard]] std::unique_ptr<Backend<T>> make_cpu_backend(CpuMethod method, std::size_t n,
                                                           const GravityParams& gravity);

// Bytes of host memory a backend of n particles of type T uses (state, accelerations, scratch).
template <class T>
[[nodiscard]] std::size_t cpu_backend_bytes(std::size_t n) noexcept;

}  // namespace nbody
