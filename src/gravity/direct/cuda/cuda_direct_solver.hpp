#pragma once
// The CUDA direct-sum solver. Host-callable declarations only: no CUDA types, so the registry
// and the tests include this without the CUDA headers.
#include <cstddef>
#include <memory>
#include <string_view>

#include "cuda/device.hpp"
#include "gravity/direct/cuda/direct_shape.hpp"
#include "gravity/solver.hpp"

namespace nbody {

class DeviceContext;

// The production direct-sum kernels on `device` (its stream orders the work). Throws an input
// error when its scratch and `other_bytes` (the store) do not fit in the device's free memory.
// `mixed` (T = double): float32 pair terms summed in float64. `kernel_shape`: the force kernel's
// launch shape as DirectShape::text() writes it, for measuring shapes against each other;
// empty: the launch policy's choice (choose_shape()).
template <class T>
[[nodiscard]] std::unique_ptr<ForceSolver<T>> make_cuda_direct_solver(const std::shared_ptr<DeviceContext>& device,
                                                                      std::size_t n, const GravityParams& gravity,
                                                                      bool mixed, std::string_view kernel_shape,
                                                                      std::size_t other_bytes);

// What choose_shape() needs to know about a GPU.
[[nodiscard]] DeviceSlots device_slots(const cuda::DeviceInfo& dev);

}  // namespace nbody
