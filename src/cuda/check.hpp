#pragma once
// Every CUDA call and every launch is checked; a failure becomes an nbody::Error (runtime kind,
// exit status 1) carrying the CUDA error string and where it happened. Include from .cu only.
#include <cuda_runtime.h>

namespace nbody::cuda {
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line);
}  // namespace nbody::cuda

#define NBODY_CUDA_CHECK(expr)                                                   \
  do {                                                                           \
    const cudaError_t nbody_cuda_err_ = (expr);                                  \
    if (nbody_cuda_err_ != cudaSuccess)                                          \
      ::nbody::cuda::throw_cuda_error(nbody_cuda_err_, #expr, __FILE__, __LINE__); \
  } while (0)

// After a <<<...>>> launch: a bad launch configuration is reported here, not later.
#define NBODY_CUDA_CHECK_LAUNCH() NBODY_CUDA_CHECK(cudaGetLastError())
