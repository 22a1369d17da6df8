#pragma once
// The reduced outputs' histograms on the device (reduced_output.hpp): each species' largest
// kinetic energy and u_x range, then its column profile, energy spectrum and x-u_x phase space,
// each particle's bins from the host's float64 expressions (the file is compiled without FMA
// contraction, as the host's: the same bins), the weights added with float64 atomics.
#include <cmath>
#include <cstddef>

#include "cuda/launch_policy.hpp"
#include "pic/cuda/common.cuh"
#include "pic/output/reduced_output.hpp"
#include "pic/output/spectrum.hpp"

namespace nbody::pic {
namespace {

// (gamma - 1) m c^2 in MeV, as kinetic_mev (spectrum.cpp).
__device__ __forceinline__ double kinetic_mev_of(const DevParticles& d, std::size_t p, double mass) {
  const double u2 = d.pux(p) * d.pux(p) + d.puy(p) * d.puy(p) + d.puz(p) * d.puz(p);
  return u2 / (sqrt(1.0 + u2) + 1.0) * mass * kElectronRestEnergyMeV;
}

// acc[0]: the largest kinetic energy, acc[1]: the largest u_x, acc[2]: the largest -u_x (live
// particles).
struct SpeciesExtremes {
  DevParticles d;
  double mass;
  __device__ void operator()(std::size_t p, double* acc) const {
    if (!d.alive[p]) return;
    acc[0] = fmax(acc[0], kinetic_mev_of(d, p, mass));
    acc[1] = fmax(acc[1], d.pux(p));
    acc[2] = fmax(acc[2], -d.pux(p));
  }
};

struct HistogramBins {
  double x0, dx, dxb;      // the grid's origin and cell width, the phase space's x bin
  int nx;
  double mass, top_mev;    // top_mev 0: no spectrum
  double u0, du;
  double *profile, *spectrum, *phase;
};

__global__ void __launch_bounds__(nbody::cuda::ElementwisePolicy::kBlock)
    species_histograms(DevParticles d, HistogramBins b) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t p = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; p < d.n; p += stride) {
    if (!d.alive[p]) continue;
    const double w = d.pw(p);
    const int i = static_cast<int>(floor((d.px(p) - b.x0) / b.dx));
    if (i >= 0 && i < b.nx) atomicAdd(b.profile + i, w);
    if (b.top_mev > 0) {
      const int e = min(kEnergyBins - 1, static_cast<int>(kinetic_mev_of(d, p, b.mass) / b.top_mev * kEnergyBins));
      atomicAdd(b.spectrum + e, w);
    }
    const int ix = max(0, min(kPhaseXBins - 1, static_cast<int>((d.px(p) - b.x0) / b.dxb)));
    const int ju = max(0, min(kPhaseUBins - 1, static_cast<int>((d.pux(p) - b.u0) / b.du)));
    atomicAdd(b.phase + std::size_t(ix) * kPhaseUBins + std::size_t(ju), w);
  }
}

}  // namespace
}  // namespace nbody::pic
