#pragma once
// The fused particle kernel with one thread a slot and its accumulator as a parameter: the atomic
// (AtomicAccumulate), cas and float32 (deposit/float32.cuh) deposition kernels.

#include <cstddef>
#include <cstdint>

#include "pic/cuda/common.cuh"
#include "pic/physics/particle_step.hpp"

namespace nbody::pic {
namespace {

// Float64 atomics as GPUs before Pascal had to do them: a compare-and-swap loop on the bits.
struct CasAccumulate {
  __device__ void operator()(double* p, double v) const {
    auto* a = reinterpret_cast<unsigned long long*>(p);
    unsigned long long old = *a, assumed;
    do {
      assumed = old;
      old = atomicCAS(a, assumed, __double_as_longlong(__longlong_as_double(assumed) + v));
    } while (assumed != old);
  }
};

// The particle kernel with one thread per slot (empty slots skipped) and the accumulator Acc.
template <class Shape, class Acc>
__global__ void particles_with(DevParticles d, FieldViews v, PushParams pp, Acc acc, EmptiedList emptied = {}) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < d.n; i += stride) {
    if (!d.alive[i]) continue;
    ParticleRef r = d.load(i);
    if (advance_particle<Shape>(r, d.id ? d.id[i] : std::uint64_t(i), v, pp, acc)) {
      d.store(i, r);
      if (emptied.slots) {
        const double2 q = d.f32() ? d.stored_pos_as<true>(r) : make_double2(r.x, r.y);
        if (emptied.leaves(q.x, q.y)) emptied.note(i);
      }
    } else {
      d.alive[i] = 0;
      if (emptied.slots) emptied.note(i);
    }
  }
}

}  // namespace
}  // namespace nbody::pic
