#pragma once
// The CUDA direct-sum backend. Host-callable declarations only: no CUDA types, so the CLI and
// the tests include this without the CUDA headers.
#include <cstddef>
#include <memory>
#include <string_view>

#include "cuda/device.hpp"
#include "gravity/backend.hpp"
#include "gravity/direct/cuda/direct_shape.hpp"

namespace nbody {

// Throws an input error when no CUDA device is usable or the state of n bodies does not fit in
// the device's free memory. `mixed` (T = double): float32 pair terms summed in float64.
// `kernel_shape`: the force kernel's launch shape as DirectShape::text() writes it, for
// measuring shapes against each other; empty: the launch policy's choice (choose_shape()).
template <class T>
[[nodiscard]] std::unique_ptr<Backend<T>> make_cuda_backend(std::size_t n, const GravityParams& gravity,
                                                            bool mixed = false, std::string_view kernel_shape = {});

// Bytes of GPU memory the backend allocates for n bodies with a given force-kernel shape.
template <class T>
[[nodiscard]] std::size_t cuda_backend_bytes(std::size_t n, bool mixed, const DirectShape& shape) noexcept;

// What choose_shape() needs to know about a GPU.
[[nodiscard]] DeviceSlots device_slots(const cuda::DeviceInfo& dev);

}  // namespace nbody
