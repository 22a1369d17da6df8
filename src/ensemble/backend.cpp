#include "ensemble/backend.hpp"
#include "ensemble/cuda/gpu_backend.hpp"

namespace nbody::ensemble {

std::unique_ptr<Backend> make_gpu_backend() { return cuda::make_backend(); }
bool gpu_backend_available() { return cuda::available(); }

}  // namespace nbody::ensemble
