// The GPU path's diagnostics on the device (engine.hpp's Diagnostics): energies, live counts
// and the change of Gauss's law residual reduced with a fixed partition, rho deposited for it,
// and the Poynting flux through planes of constant x.
#include <algorithm>
#include <array>
#include <type_traits>
#include <vector>

#include "cuda/check.hpp"
#include "nbody/error.hpp"
#include "pic/cuda/diag/poynting.cuh"
#include "pic/cuda/diag/reduce.cuh"
#include "pic/cuda/diag/rho.cuh"
#include "pic/cuda/engine.hpp"

namespace nbody::pic {
namespace {

using nbody::cuda::ElementwisePolicy;

// Reduces f over n items on the device (see reduce_partials): V values, combined with Op.
template <int V, class Op, class F>
std::array<double, V> reduce(const Diagnostics& dg, const F& f, std::size_t n) {
  constexpr bool sum = std::is_same_v<Op, nbody::cuda::Sum>;
  std::array<double, V> out{};
  if (n == 0) return out;
  reduce_partials<V, Op><<<kReduceBlocks, kReduceBlock>>>(f, n, dg.partials);
  NBODY_CUDA_CHECK_LAUNCH();
  std::vector<double> h(std::size_t(V) * kReduceBlocks);
  NBODY_CUDA_CHECK(cudaMemcpy(h.data(), dg.partials, h.size() * sizeof(double), cudaMemcpyDeviceToHost));
  for (int v = 0; v < V; ++v)
    for (int b = 0; b < kReduceBlocks; ++b) {
      const double x = h[std::size_t(v) * kReduceBlocks + std::size_t(b)];
      out[std::size_t(v)] = sum ? out[std::size_t(v)] + x : std::max(out[std::size_t(v)], x);
    }
  return out;
}

// rho of every species from the present positions (float64 atomics), guards folded as the
// host's compute_rho.
template <class Shape>
void deposit_rho_all(PicGpu::Impl& m) {
  const GridGeometry& g = m.g;
  FieldState& fs = m.fields;
  NBODY_CUDA_CHECK(cudaMemset(fs.f[kRho], 0, g.size() * sizeof(double)));
  for (std::size_t k = 0; k < m.particles.sp.size(); ++k) {
    const DeviceSpecies& d = m.particles.sp[k];
    if (d.n == 0) continue;
    deposit_rho<Shape><<<blocks_for(d.n), ElementwisePolicy::kBlock>>>(DevParticles{d}, fs.view(kRho), g.x0, g.y0, g.dx,
                                                                        g.dy, m.particles.meta[k].charge);
    NBODY_CUDA_CHECK_LAUNCH();
  }
  const bool px = m.s.field_bc.x == FieldBoundary::periodic, py = m.s.field_bc.y == FieldBoundary::periodic;
  fs.fold_y(fs.rho_table, 1, py);
  fs.fold_x(fs.rho_table, 1, px);
}

}  // namespace

Diagnostics::~Diagnostics() {
  for (void* p : {static_cast<void*>(partials), static_cast<void*>(gauss_ref), static_cast<void*>(track),
                  static_cast<void*>(flux)})
    if (p) cudaFree(p);
}

void Diagnostics::setup() {
  partials = m.alloc<double>(2 * std::size_t(kReduceBlocks));
  track = m.alloc<double>(4);
  NBODY_CUDA_CHECK(cudaMemset(track, 0, 4 * sizeof(double)));
  if (m.slab) flux = m.alloc<double>(std::size_t(m.g.ny));
}

void Diagnostics::track_step() {
  const FieldState& fs = m.fields;
  poynting_step<<<2, kReduceBlock>>>(fs.view(kEy), fs.view(kEz), fs.view(kBy), fs.view(kBz), i_left, i_right, m.g.ny,
                                     m.g.dy, m.s.dt, track);
  NBODY_CUDA_CHECK_LAUNCH();
}

void PicGpu::track_poynting(int i_left, int i_right, double energy_in, double energy_out) {
  Impl& m = *impl_;
  if (m.slab) throw_runtime_error("pic: a block run's Poynting fluxes come from flux_rows (DomainPicGpu)");
  const int hi = m.g.nx - 2;
  if (i_left < 0 || i_right < 0 || i_left > hi || i_right > hi)
    throw_input_error("pic: the Poynting planes must lie inside the grid");
  m.diag.i_left = i_left, m.diag.i_right = i_right;
  m.diag.tracking = true;
  const double start[4] = {0, 0, energy_in, energy_out};
  NBODY_CUDA_CHECK(cudaMemcpy(m.diag.track, start, 4 * sizeof(double), cudaMemcpyHostToDevice));
}

void PicGpu::set_gauss_reference(const std::vector<double>& residual) {
  Impl& m = *impl_;
  if (residual.size() != m.g.size()) throw_runtime_error("pic: the Gauss reference has the wrong size");
  if (!m.diag.gauss_ref) m.diag.gauss_ref = m.alloc<double>(m.g.size());
  NBODY_CUDA_CHECK(cudaMemcpy(m.diag.gauss_ref, residual.data(), m.g.size() * sizeof(double), cudaMemcpyHostToDevice));
}

DeviceDiagnostics PicGpu::diagnostics() {
  using nbody::cuda::Max;
  using nbody::cuda::Sum;
  Impl& m = *impl_;
  if (m.slab) throw_runtime_error("pic: device diagnostics of one slab (gather the slabs and take the host's)");
  const GridGeometry& g = m.g;
  const FieldState& fs = m.fields;
  const Diagnostics& dg = m.diag;
  DeviceDiagnostics out;
  // Field energy over the host's node range.
  const int nxe = m.s.field_bc.x == FieldBoundary::periodic ? g.nx : g.nx + 1;
  const int nye = m.s.field_bc.y == FieldBoundary::periodic ? g.ny : g.ny + 1;
  const auto sq = reduce<2, Sum>(dg, FieldSquares{fs.view(kEx), fs.view(kEy), fs.view(kEz), fs.view(kBx), fs.view(kBy),
                                                  fs.view(kBz), nxe},
                                 std::size_t(nxe) * std::size_t(nye));
  out.energies.e_field = 0.5 * sq[0] * g.dx * g.dy;
  out.energies.b_field = 0.5 * sq[1] * g.dx * g.dy;
  out.energies.field = out.energies.e_field + out.energies.b_field;
  out.energies.total = out.energies.field;
  for (std::size_t k = 0; k < m.particles.sp.size(); ++k) {
    const DeviceSpecies& d = m.particles.sp[k];
    const auto kc = reduce<2, Sum>(dg, KineticSum{DevParticles{d}}, d.n);
    const double kinetic = kc[0] * m.particles.meta[k].mass;
    out.energies.kinetic.push_back(kinetic);
    out.energies.total += kinetic;
    out.counts.push_back(std::size_t(kc[1]));
  }
  // Gauss's law over the host's checked nodes (gauss_residual_field).
  if (m.s.shape == ShapeOrder::tsc) deposit_rho_all<ShapeTSC>(m);
  else deposit_rho_all<ShapeCIC>(m);
  auto range = [](FieldBoundary b, int n, int& lo, int& hi) {
    lo = b == FieldBoundary::periodic ? 0 : 3;
    hi = b == FieldBoundary::periodic ? n - 1 : n - 3;
  };
  int ilo, ihi, jlo, jhi;
  range(m.s.field_bc.x, g.nx, ilo, ihi);
  range(m.s.field_bc.y, g.ny, jlo, jhi);
  if (ihi >= ilo && jhi >= jlo) {
    const int w = ihi - ilo + 1;
    out.gauss_change_max = reduce<1, Max>(dg, GaussChange{fs.view(kEx), fs.view(kEy), fs.view(kRho), dg.gauss_ref,
                                                          g.stride(), ilo, jlo, w, g.dx, g.dy},
                                          std::size_t(w) * std::size_t(jhi - jlo + 1))[0];
  }
  const PoyntingTrack t = poynting();
  out.flux_left = t.flux_left, out.flux_right = t.flux_right;
  out.energy_in_left = t.energy_in_left, out.energy_out_right = t.energy_out_right;
  return out;
}

std::vector<double> PicGpu::flux_rows(int i) const {
  const Impl& m = *impl_;
  if (!m.slab) throw_runtime_error("pic: flux rows of a run without blocks (track_poynting)");
  if (i < 0 || i > m.g.nx - 1) throw_runtime_error("pic: a Poynting plane outside the block");
  const FieldState& fs = m.fields;
  std::vector<double> out(std::size_t(m.g.ny));
  poynting_rows<<<exact_blocks(std::size_t(m.g.ny)), ElementwisePolicy::kBlock>>>(
      fs.view(kEy), fs.view(kEz), fs.view(kBy), fs.view(kBz), i, m.g.ny, m.g.dy, m.diag.flux);
  NBODY_CUDA_CHECK_LAUNCH();
  NBODY_CUDA_CHECK(cudaMemcpy(out.data(), m.diag.flux, out.size() * sizeof(double), cudaMemcpyDeviceToHost));
  return out;
}

PoyntingTrack PicGpu::poynting() const {
  const Impl& m = *impl_;
  PoyntingTrack out;
  if (!m.diag.tracking) return out;
  double t[4];
  NBODY_CUDA_CHECK(cudaMemcpy(t, m.diag.track, sizeof t, cudaMemcpyDeviceToHost));
  out.flux_left = t[0], out.flux_right = t[1], out.energy_in_left = t[2], out.energy_out_right = t[3];
  return out;
}

}  // namespace nbody::pic
