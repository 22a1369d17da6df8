#pragma once
// Gather, push and deposit as three kernels (DepositKernel::separate).

#include <cstddef>

#include "pic/cuda/common.cuh"
#include "pic/physics/particle_step.hpp"

namespace nbody::pic {
namespace {

// The separate kernels: gather (E, B into eb[6][n]), push and move (the moves kept; `active` marks
// the particles alive at the start of the step), deposit (every active particle's move).
template <class Shape>
__global__ void gather_kernel(DevParticles d, FieldViews v, PushParams pp, double* eb) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < d.n; i += stride) {
    if (!d.alive[i]) continue;
    const ParticleRef r = d.load(i);
    Vec3d E, B;
    gather_at<Shape>(r, v, pp, E, B);
    eb[i] = E.x, eb[d.n + i] = E.y, eb[2 * d.n + i] = E.z;
    eb[3 * d.n + i] = B.x, eb[4 * d.n + i] = B.y, eb[5 * d.n + i] = B.z;
  }
}

__global__ void push_kernel(DevParticles d, PushParams pp, const double* eb, ParticleMove* moves, unsigned char* active) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < d.n; i += stride) {
    active[i] = d.alive[i];
    if (!d.alive[i]) continue;
    ParticleRef r = d.load(i);
    const Vec3d E{eb[i], eb[d.n + i], eb[2 * d.n + i]}, B{eb[3 * d.n + i], eb[4 * d.n + i], eb[5 * d.n + i]};
    const ParticleMove m = push_and_move(r, i, E, B, pp);
    moves[i] = m;
    if (finish_move(r, m, pp)) {
      d.store(i, r);
    } else {
      d.alive[i] = 0;
    }
  }
}

template <class Shape>
__global__ void deposit_kernel(DevParticles d, FieldViews v, PushParams pp, const ParticleMove* moves,
                               const unsigned char* active) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < d.n; i += stride)
    if (active[i]) deposit_move<Shape>(moves[i], d.pw(i), v, pp, AtomicAccumulate{});
}

}  // namespace
}  // namespace nbody::pic
