#pragma once
// The GPU backend's factory (host declarations only: no CUDA headers).
#include <memory>

#include "ensemble/backend.hpp"

namespace nbody::ensemble::cuda {

std::unique_ptr<Backend> make_backend(const GpuShape& shape);
bool available();

}  // namespace nbody::ensemble::cuda
