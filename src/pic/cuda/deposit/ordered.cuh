#pragma once
// The deterministic deposition on one GPU (DepositKernel::deterministic): every particle's
// contributions into its own slots, then one thread a grid point sums them in a fixed order.

#include <cstddef>
#include <cstdint>

#include "pic/cuda/common.cuh"
#include "pic/physics/particle_step.hpp"

namespace nbody::pic {
namespace {

template <class Shape>
__global__ void particles_ordered(DevParticles d, FieldViews v, PushParams pp, LocalAccumulate<Shape::support + 2> acc,
                                  unsigned* keys, unsigned* order, unsigned sentinel) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < d.n; i += stride) {
    order[i] = unsigned(i);
    if (!d.alive[i]) {
      keys[i] = sentinel;
      continue;
    }
    const double xi0 = (d.px(i) - pp.x0) / pp.dx, yi0 = (d.py(i) - pp.y0) / pp.dy;
    LocalAccumulate<Shape::support + 2> a = acc;
    a.bxg = Shape::first(xi0) - 1 + kGuard;
    a.byg = Shape::first(yi0) - 1 + kGuard;
    a.p = i;
    keys[i] = unsigned(a.byg) * unsigned(acc.sx) + unsigned(a.bxg);
    ParticleRef r = d.load(i);
    if (advance_particle<Shape>(r, d.id ? d.id[i] : std::uint64_t(i), v, pp, a)) {
      d.store(i, r);
    } else {
      d.alive[i] = 0;
    }
  }
}

// One thread per grid point: the contributions of the K x K stencil cells that reach it, cell by
// cell in a fixed order, particles in sorted (stable) order.
template <int K>
__global__ void reduce_ordered(double* jx, double* jy, double* jz, int sx, std::size_t size, const unsigned* start,
                               const unsigned* end, const unsigned* order, const double* contrib, std::size_t stride) {
  const std::size_t gs = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t g = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; g < size; g += gs) {
    const int ip = int(g % std::size_t(sx)), jp = int(g / std::size_t(sx));
    double sum[3] = {0, 0, 0};
    for (int n = 0; n < K; ++n) {
      const int cj = jp - n;
      if (cj < 0) continue;
      for (int m = 0; m < K; ++m) {
        const int ci = ip - m;
        if (ci < 0) continue;
        const std::size_t cell = std::size_t(cj) * std::size_t(sx) + std::size_t(ci);
        for (unsigned s = start[cell]; s < end[cell]; ++s) {
          const std::size_t p = order[s];
          for (int c = 0; c < 3; ++c) sum[c] += contrib[std::size_t((c * K + n) * K + m) * stride + p];
        }
      }
    }
    jx[g] += sum[0];
    jy[g] += sum[1];
    jz[g] += sum[2];
  }
}

}  // namespace
}  // namespace nbody::pic
