#pragma once
// Reductions on the device with a fixed partition, and the diagnostics' terms they sum: field
// energy, kinetic energy and live count, the change of Gauss's law residual.

#include <cstddef>

#include "cuda/block_reduce.cuh"
#include "pic/cuda/common.cuh"
#include "pic/physics/grid.hpp"

namespace nbody::pic {
namespace {

// ---- Diagnostics on the device -------------------------------------------------------------
// A fixed partition: kReduceBlocks blocks of kReduceBlock threads whatever the device, each
// thread its items t, t + B T, ... in order, the fixed tree of block_reduce, then the blocks'
// partial results combined on the host in block order: the same bits on every run.
constexpr int kReduceBlock = 256;
constexpr int kReduceBlocks = 240;

// f(item, acc) adds item's V values into acc; Op combines (Sum, or Max for values >= 0).
template <int V, class Op, class F>
__global__ void __launch_bounds__(kReduceBlock) reduce_partials(F f, std::size_t n, double* partials) {
  __shared__ double scratch[kReduceBlock / 32];
  double acc[V];
  for (int v = 0; v < V; ++v) acc[v] = Op::template identity<double>();
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride) f(t, acc);
  for (int v = 0; v < V; ++v) {
    const double r = nbody::cuda::block_reduce<kReduceBlock>(acc[v], scratch, Op{});
    if (threadIdx.x == 0) partials[std::size_t(v) * gridDim.x + blockIdx.x] = r;
  }
}

// E^2 and B^2 summed over the nodes the host's energies() counts (nxe x nye from the origin).
struct FieldSquares {
  FieldView ex, ey, ez, bx, by, bz;
  int nxe;
  __device__ void operator()(std::size_t t, double* acc) const {
    const int i = int(t % std::size_t(nxe)), j = int(t / std::size_t(nxe));
    acc[0] += ex(i, j) * ex(i, j) + ey(i, j) * ey(i, j) + ez(i, j) * ez(i, j);
    acc[1] += bx(i, j) * bx(i, j) + by(i, j) * by(i, j) + bz(i, j) * bz(i, j);
  }
};

// Per species: sum of w (gamma - 1) (the host's cancellation-free form), and the live count.
struct KineticSum {
  DevParticles d;
  __device__ void operator()(std::size_t p, double* acc) const {
    if (!d.alive[p]) return;
    const double u2 = d.pux(p) * d.pux(p) + d.puy(p) * d.puy(p) + d.puz(p) * d.puz(p);
    acc[0] += d.pw(p) * u2 / (sqrt(1.0 + u2) + 1.0);
    acc[1] += 1.0;
  }
};

// max |(div E - rho) - reference| over the checked nodes [ilo, ihi] x [jlo, jhi].
struct GaussChange {
  FieldView ex, ey, rho;
  const double* reference;  // padded layout, or null
  int sx, ilo, jlo, w;
  double dx, dy;
  __device__ void operator()(std::size_t t, double* acc) const {
    const int i = ilo + int(t % std::size_t(w)), j = jlo + int(t / std::size_t(w));
    const double div = (ex(i, j) - ex(i - 1, j)) / dx + (ey(i, j) - ey(i, j - 1)) / dy;
    double r = div - rho(i, j);
    if (reference) r -= reference[std::size_t(j + kGuard) * std::size_t(sx) + std::size_t(i + kGuard)];
    acc[0] = fmax(acc[0], fabs(r));
  }
};

}  // namespace
}  // namespace nbody::pic
