// The reduced outputs' histograms of the GPU path's particles, made on the device
// (diag/histograms.cuh): only the histograms and the middle row of Ey and Ez cross to the host.
#include <algorithm>
#include <cmath>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/device_buffer.hpp"
#include "nbody/error.hpp"
#include "pic/cuda/diag/histograms.cuh"
#include "pic/cuda/diag/reduce.cuh"
#include "pic/cuda/engine.hpp"

namespace nbody::pic {

ReducedData PicGpu::reduced() const {
  const Impl& m = *impl_;
  if (m.slab) throw_runtime_error("pic: reduced outputs of one slab (gather the slabs and reduce on the host)");
  const GridGeometry& g = m.g;
  ReducedData out;
  nbody::cuda::DeviceBuffer<double> partials(3 * std::size_t(kReduceBlocks));
  const std::size_t phase_bins = std::size_t(kPhaseXBins) * kPhaseUBins;
  nbody::cuda::DeviceBuffer<double> bins(std::size_t(g.nx) + kEnergyBins + phase_bins);
  for (std::size_t k = 0; k < m.particles.sp.size(); ++k) {
    const DeviceSpecies& d = m.particles.sp[k];
    const double mass = m.particles.meta[k].mass;
    SpeciesReduction r;
    double extremes[3] = {-INFINITY, -INFINITY, -INFINITY};
    if (d.n > 0) {
      reduce_partials<3, nbody::cuda::MaxSigned><<<kReduceBlocks, kReduceBlock>>>(SpeciesExtremes{DevParticles{d}, mass}, d.n,
                                                                   partials.data());
      NBODY_CUDA_CHECK_LAUNCH();
      std::vector<double> h(3 * std::size_t(kReduceBlocks));
      NBODY_CUDA_CHECK(cudaMemcpy(h.data(), partials.data(), h.size() * sizeof(double), cudaMemcpyDeviceToHost));
      for (int v = 0; v < 3; ++v)
        for (int b = 0; b < kReduceBlocks; ++b)
          extremes[v] = std::max(extremes[v], h[std::size_t(v) * kReduceBlocks + std::size_t(b)]);
    }
    // No live particle: the extremes stay -infinity (as a host species with no particle).
    r.live = std::isfinite(extremes[1]);
    r.top_mev = extremes[0] > 0 ? extremes[0] : 0;
    if (r.live) set_phase_range(r, -extremes[2], extremes[1]);
    NBODY_CUDA_CHECK(cudaMemset(bins.data(), 0, bins.size() * sizeof(double)));
    HistogramBins hb{g.x0, g.dx, g.lx() / kPhaseXBins, g.nx, mass, r.top_mev, r.u0, r.du,
                     bins.data(), bins.data() + g.nx, bins.data() + g.nx + kEnergyBins};
    if (d.n > 0) {
      species_histograms<<<blocks_for(d.n), nbody::cuda::ElementwisePolicy::kBlock>>>(DevParticles{d}, hb);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    std::vector<double> h(bins.size());
    NBODY_CUDA_CHECK(cudaMemcpy(h.data(), bins.data(), h.size() * sizeof(double), cudaMemcpyDeviceToHost));
    r.profile.assign(h.begin(), h.begin() + g.nx);
    if (r.top_mev > 0) r.spectrum.assign(h.begin() + g.nx, h.begin() + g.nx + kEnergyBins);
    if (r.live) r.phase.assign(h.begin() + g.nx + kEnergyBins, h.end());
    out.species.push_back(std::move(r));
  }
  // Ey and Ez on the middle row.
  const std::size_t row = std::size_t(g.ny / 2 + kGuard) * std::size_t(g.stride()) + kGuard;
  out.ey_mid.resize(std::size_t(g.nx));
  out.ez_mid.resize(std::size_t(g.nx));
  NBODY_CUDA_CHECK(cudaMemcpy(out.ey_mid.data(), m.fields.f[kEy] + row, out.ey_mid.size() * sizeof(double),
                              cudaMemcpyDeviceToHost));
  NBODY_CUDA_CHECK(cudaMemcpy(out.ez_mid.data(), m.fields.f[kEz] + row, out.ez_mid.size() * sizeof(double),
                              cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace nbody::pic
