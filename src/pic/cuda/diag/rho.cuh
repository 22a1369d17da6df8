#pragma once
// The charge density of a species deposited on the device (the Gauss diagnostic's rho).

#include <cstddef>

#include "pic/cuda/common.cuh"
#include "pic/physics/interpolation.hpp"

namespace nbody::pic {
namespace {

// The host's compute_rho per particle (the same arithmetic), added with float64 atomics.
template <class Shape>
__global__ void deposit_rho(DevParticles d, FieldView rho, double x0, double y0, double dx, double dy, double charge) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < d.n; i += stride) {
    if (!d.alive[i]) continue;
    deposit_charge<Shape>(rho, (d.px(i) - x0) / dx, (d.py(i) - y0) / dy, charge * d.pw(i) / (dx * dy), AtomicAccumulate{});
  }
}

}  // namespace
}  // namespace nbody::pic
