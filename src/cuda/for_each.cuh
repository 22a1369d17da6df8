#pragma once
// f(i) for every i < n in a grid-stride kernel (ElementwisePolicy's shape) on a stream. Include
// from .cu files only.
#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "cuda/launch_policy.hpp"

namespace nbody::cuda {

template <class F>
__global__ void __launch_bounds__(ElementwisePolicy::kBlock) for_each_kernel(int n, F f) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) f(i);
}

template <class F>
void launch_for_each(int n, const F& f, cudaStream_t stream) {
  if (n <= 0) return;
  for_each_kernel<<<ElementwisePolicy::blocks(std::size_t(n)), ElementwisePolicy::kBlock, 0, stream>>>(n, f);
  NBODY_CUDA_CHECK_LAUNCH();
}

}  // namespace nbody::cuda
