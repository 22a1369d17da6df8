// A build without CUDA: the GPU backend is refused with one line.
#include "ensemble/cuda/gpu_backend.hpp"
#include "nbody/error.hpp"

namespace nbody::ensemble::cuda {

std::unique_ptr<Backend> make_backend(const GpuShape& /*shape*/) {
  throw_input_error("ensemble: run.device = \"cuda\": this build has no CUDA (configure with NBODY_ENABLE_CUDA=ON)");
}
bool available() { return false; }

}  // namespace nbody::ensemble::cuda
