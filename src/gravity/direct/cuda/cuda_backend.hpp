#pragma once
// The CUDA direct-sum backend. Host-callable declarations only: no CUDA types, so the CLI and
// the tests include this without the CUDA headers.
#include <cstddef>
#include <memory>

#include "gravity/backend.hpp"

namespace nbody {

// Throws an input error when no CUDA device is usable or the state of n bodies does not fit in
// the device's free memory.
template <class T>
[[nodiscard]] std::unique_ptr<Backend<T>> make_cuda_backend(std::size_t n, const GravityParams& gravity);

// Bytes of GPU memory the backend allocates for n bodies.
template <class T>
[[nodiscard]] std::size_t cuda_backend_bytes(std::size_t n) noexcept;

}  // namespace nbody
