#pragma once
// The deterministic deposition of a block among several (DepositKernel::deterministic with
// blocks): the contributions summed cell by cell into the cell classes' arrays of DomainPic.

#include <cstddef>
#include <cstdint>

#include "pic/cuda/common.cuh"
#include "pic/parallel/slab_index.hpp"
#include "pic/physics/particle_step.hpp"

namespace nbody::pic {
namespace {

// ---- Blocks (pic/gpu_slabs.hpp) -------------------------------------------------------------
// The deterministic deposition of a block: the key is the particle's cell (its column and row as
// the owners' arithmetic computes them, local padded indices), offs its stencil's first point
// relative to that cell, so that the reduction can keep the contributions of every cell apart.
template <class Shape>
__global__ void particles_classed(DevParticles d, FieldViews v, PushParams pp, LocalAccumulate<Shape::support + 2> acc,
                                  SlabOwner own, SlabOwner row_own, int ioff, int joff, int rows, unsigned* keys,
                                  unsigned* order, signed char* offs, unsigned sentinel) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < d.n; i += stride) {
    order[i] = unsigned(i);
    if (!d.alive[i]) {
      keys[i] = sentinel;
      offs[2 * i] = 0, offs[2 * i + 1] = 0;
      continue;
    }
    const double xi0 = (d.px(i) - pp.x0) / pp.dx, yi0 = (d.py(i) - pp.y0) / pp.dy;
    LocalAccumulate<Shape::support + 2> a = acc;
    a.bxg = Shape::first(xi0) - 1 + kGuard - ioff;
    a.byg = Shape::first(yi0) - 1 + kGuard - joff;
    a.p = i;
    int cx = own.column(d.px(i)) - ioff + kGuard;
    int cy = row_own.column(d.py(i)) - joff + kGuard;
    cx = cx < 0 ? 0 : (cx > acc.sx - 1 ? acc.sx - 1 : cx);
    cy = cy < 0 ? 0 : (cy > rows - 1 ? rows - 1 : cy);
    keys[i] = unsigned(cy) * unsigned(acc.sx) + unsigned(cx);
    offs[2 * i] = static_cast<signed char>(cx - a.bxg);
    offs[2 * i + 1] = static_cast<signed char>(cy - a.byg);
    ParticleRef r = d.load(i);
    if (advance_particle<Shape>(r, d.id ? d.id[i] : std::uint64_t(i), v, pp, a)) {
      d.store(i, r);
    } else {
      d.alive[i] = 0;
    }
  }
}

// One thread per grid point: the contributions of the cells around it, column by column
// (ascending), row by row (ascending), each cell's particles in sorted order (the slots' id
// order) summed and added into the array of the cell's class: (global column mod M) x M + global
// row mod M, acc[(r * 3 + c) * size] (pic/domain.hpp's classes). A value of an array so comes
// from one cell, which one rank owns: the same bits on any decomposition.
template <int K>
__global__ void reduce_classes(double* acc, int M, int ioff, int joff, int sx, int rows, std::size_t size,
                               const unsigned* start, const unsigned* end, const unsigned* order, const signed char* offs,
                               const double* contrib, std::size_t stride) {
  const std::size_t gs = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t g = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; g < size; g += gs) {
    const int ip = int(g % std::size_t(sx)), jp = int(g / std::size_t(sx));
    // The cells whose stencils reach the point: offs is 0 to 3 along each axis (the owner's
    // column or row may round the other way than the stencil's).
    for (int cc = ip - K; cc <= ip + 3; ++cc) {
      if (cc < 0 || cc >= sx) continue;
      const int col = cc - kGuard + ioff;
      const int rc = ((col % M) + M) % M;
      for (int row = jp - K; row <= jp + 3; ++row) {
        if (row < 0 || row >= rows) continue;
        const std::size_t cell = std::size_t(row) * std::size_t(sx) + std::size_t(cc);
        if (start[cell] == end[cell]) continue;
        double sum[3] = {0, 0, 0};
        bool any = false;
        for (unsigned s = start[cell]; s < end[cell]; ++s) {
          const std::size_t p = order[s];
          const int m = ip - (cc - int(offs[2 * p])), n = jp - (row - int(offs[2 * p + 1]));
          if (m < 0 || m >= K || n < 0 || n >= K) continue;
          any = true;
          for (int c = 0; c < 3; ++c) sum[c] += contrib[std::size_t((c * K + n) * K + m) * stride + p];
        }
        if (!any) continue;
        const int grow = row - kGuard + joff;
        const int r = rc * M + ((grow % M) + M) % M;
        for (int c = 0; c < 3; ++c) acc[std::size_t(r * 3 + c) * size + g] += sum[c];
      }
    }
  }
}

// J = A_0 + A_1 + ... + A_{M-1} at every point, in this order (DomainPic's).
__global__ void sum_classes(double* jx, double* jy, double* jz, const double* acc, int classes, std::size_t size) {
  const std::size_t gs = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t g = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; g < size; g += gs) {
    double* out[3] = {jx, jy, jz};
    for (int c = 0; c < 3; ++c) {
      double v = acc[std::size_t(c) * size + g];
      for (int r = 1; r < classes; ++r) v += acc[std::size_t(r * 3 + c) * size + g];
      out[c][g] = v;
    }
  }
}

}  // namespace
}  // namespace nbody::pic
