#pragma once
// The warp-reduced deposition kernel (DepositKernel::warp).

#include <climits>
#include <cstddef>
#include <cstdint>

#include "cuda/block_reduce.cuh"
#include "pic/cuda/common.cuh"
#include "pic/physics/particle_step.hpp"

namespace nbody::pic {
namespace {

// ---- Warp-reduced deposition ----------------------------------------------------------------
//
// Particles stored cell by cell (as loaded, or after a sort) put the 32 lanes of a warp into one
// or two cells, so their Esirkepov stencils overlap: with plain atomics the L2 serialises up to
// 32 adds to each grid point. Here the lanes whose old stencils start within one point of the
// warp's lowest (a window of W = K + 1 points a side) write their currents at the window's
// points into the warp's slice of shared memory (value by lane), each lane then sums one value
// over the 32 lanes in a fixed order and adds the sum with one float64 atomic: one atomic a
// window point for the warp instead of one a lane. Lanes outside the window (or a warp with
// fewer than kWarpShareMin lanes inside) add their own currents with atomics. Each lane's
// contributions are the atomic kernel's numbers; only the order of the sums differs.
constexpr unsigned kFullWarp = 0xffffffffu;
constexpr int kWarpShareMin = 4;
constexpr int kWarpBlock = 128;  // threads a block of the warp kernel (4 warps)
constexpr int kWarpLanesPadded = 33;  // a value's 32 lanes, padded against bank conflicts

__device__ int warp_min(int v) {
  for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(kFullWarp, v, o));
  return v;
}

// The warp's NV values (written at buf[v][lane] by every lane) summed over the lanes, lane l
// adding the sums of values l, l + 32, ... at ptr(v).
template <int NV, class Ptr>
__device__ void flush_window(double (*buf)[kWarpLanesPadded], int lane, Ptr&& ptr) {
  __syncwarp();
  for (int v = lane; v < NV; v += 32) {
    double sum = 0;
    PIC_UNROLL
    for (int k = 0; k < 32; ++k) sum += buf[v][k];
    if (sum != 0.0) atomicAdd(ptr(v), sum);
  }
  __syncwarp();
}

// Esirkepov's current along axis a in the window: for each point l across (b), the running sum
// along a of c ds_a[k] (s_b[l] + ds_b[l] / 2), written as value l (W - 1) + k. The atomic kernel
// writes the first K - 1 points of a run only (the last one's sum is zero up to rounding): window
// points oa .. oa + K - 2, the lane's stencil starting at oa.
// (R: the arithmetic of the lane's values, double, or float with PicGpuOptions::float32_currents;
// the buffer and the sums over the lanes stay double.)
template <int K, int W, class R>
__device__ void running_sums(R c, const R (&dsa)[W], const R (&sb)[W], const R (&dsb)[W], int oa, int lane,
                             double (*buf)[kWarpLanesPadded]) {
  PIC_UNROLL
  for (int l = 0; l < W; ++l) {
    const R across = sb[l] + R(0.5) * dsb[l];
    R run = 0;
    PIC_UNROLL
    for (int k = 0; k < W - 1; ++k) {
      run += c * dsa[k] * across;
      buf[l * (W - 1) + k][lane] = k - oa <= K - 2 ? double(run) : 0.0;
    }
  }
}

// Esirkepov's deposit (interpolation.hpp) of one lane's move at the points of the window that
// starts at (wx, wy), summed over the warp (every lane takes part; a lane outside the window
// passes qw = 0). The old stencil (K points) starts at offset ox = fx0 - 1 - wx (0 or 1) in the
// window. buf: the warp's W*W x 33 doubles of shared memory. R: the arithmetic of the weights, their
// differences and the lane's contributions (double; float for the float32 currents: each
// contribution then within a few 2^-24 of itself, the sums over the lanes and into J double).
template <class Shape, class R>
__device__ void deposit_window(const FieldViews& f, const ParticleMove& mv, double qw, const PushParams& s, int wx,
                               int wy, int lane, double (*buf)[kWarpLanesPadded]) {
  constexpr int S = Shape::support, K = S + 2, W = K + 1;
  const double x0 = mv.xi0, y0 = mv.yi0;
  const double x1 = (mv.x1 - s.x0) * (1.0 / s.dx), y1 = (mv.y1 - s.y0) * (1.0 / s.dy);
  const double vz = mv.u.z * (1.0 / lorentz_gamma(mv.u));
  const int fx0 = Shape::first(x0), fy0 = Shape::first(y0);
  const int fx1 = Shape::first(x1), fy1 = Shape::first(y1);
  const int ox = fx0 - 1 - wx, oy = fy0 - 1 - wy;  // the lane's stencil in the window
  R w0x[S], w0y[S], w1x[S], w1y[S];
  Shape::weights_as(x0, fx0, w0x);
  Shape::weights_as(y0, fy0, w0y);
  Shape::weights_as(x1, fx1, w1x);
  Shape::weights_as(y1, fy1, w1y);
  // Placed by selects with constant indices, so that the arrays stay in registers.
  R sx0[W] = {}, sx1[W] = {}, sy0[W] = {}, sy1[W] = {};
  const int o0x = ox + 1, o0y = oy + 1, o1x = fx1 - wx, o1y = fy1 - wy;
  PIC_UNROLL
  for (int k = 0; k < W; ++k) {
    PIC_UNROLL
    for (int q = 0; q < S; ++q) {
      if (k - q == o0x) sx0[k] = w0x[q];
      if (k - q == o0y) sy0[k] = w0y[q];
      if (k - q == o1x) sx1[k] = w1x[q];
      if (k - q == o1y) sy1[k] = w1y[q];
    }
  }
  R dsx[W], dsy[W];
  PIC_UNROLL
  for (int k = 0; k < W; ++k) {
    dsx[k] = sx1[k] - sx0[k];
    dsy[k] = sy1[k] - sy0[k];
  }
  const double inv_area = 1.0 / (s.dx * s.dy);
  const R cx = R(-qw * s.dx / s.dt * inv_area);
  const R cy = R(-qw * s.dy / s.dt * inv_area);
  const R cz = R(qw * vz * inv_area);
  // Jx: value n (W - 1) + m at (wx + m, wy + n); Jy: value m (W - 1) + n at (wx + m, wy + n).
  running_sums<K, W>(cx, dsx, sy0, dsy, ox, lane, buf);
  flush_window<W*(W - 1)>(buf, lane, [&](int v) { return &f.j[0](wx + v % (W - 1), wy + v / (W - 1)); });
  running_sums<K, W>(cy, dsy, sx0, dsx, oy, lane, buf);
  flush_window<W*(W - 1)>(buf, lane, [&](int v) { return &f.j[1](wx + v / (W - 1), wy + v % (W - 1)); });
  // Jz. Value n W + m.
  PIC_UNROLL
  for (int n = 0; n < W; ++n) {
    PIC_UNROLL
    for (int m = 0; m < W; ++m) {
      const R w = sx0[m] * sy0[n] + R(0.5) * dsx[m] * sy0[n] + R(0.5) * sx0[m] * dsy[n] + R(1.0 / 3.0) * dsx[m] * dsy[n];
      buf[n * W + m][lane] = double(cz * w);
    }
  }
  flush_window<W * W>(buf, lane, [&](int v) { return &f.j[2](wx + v % W, wy + v / W); });
}

// The fused particle kernel with the warp-reduced deposit: the warps walk the slots 32 at a time
// (every lane of a warp in the same iteration, for the shuffles). Each block takes one contiguous
// range of slots (the grid is what the SMs hold at once), so that with particles sorted by cell
// its warps gather from neighbouring cells, whose field rows stay in the SM's L1.
// counters[0] += live particles that added their own currents (outside their warp's window),
// counters[1] += particles absorbed. F32: the species' float32 store (DevParticles::load_as); R:
// the window's arithmetic (deposit_window).
template <class Shape, bool F32, class R>
__global__ void __launch_bounds__(kWarpBlock, 4)
    particles_warp(DevParticles d, FieldViews v, PushParams pp, unsigned long long* counters, EmptiedList emptied) {
  constexpr int W = Shape::support + 3;
  __shared__ double window[kWarpBlock / 32][W * W][kWarpLanesPadded];
  __shared__ unsigned long long scratch[kWarpBlock / 32];
  unsigned long long alone = 0, absorbed = 0;
  const int lane = int(threadIdx.x & 31u);
  const std::size_t per_block = ((d.n + gridDim.x - 1) / gridDim.x + 31) / 32 * 32;
  const std::size_t begin = std::size_t(blockIdx.x) * per_block, end = min(d.n, begin + per_block);
  for (std::size_t base = begin + (threadIdx.x & ~31u); base < end; base += blockDim.x) {
    const std::size_t i = base + std::size_t(lane);
    const bool live = i < end && d.alive[i];
    ParticleRef r{0, 0, 0, 0, 0, 0};
    ParticleMove mv{};
    int bx = 0, by = 0;
    if (live) {
      r = d.load_as<F32>(i);
      Vec3d E, B;
      gather_at<Shape>(r, v, pp, E, B);
      mv = push_and_move(r, d.id ? d.id[i] : std::uint64_t(i), E, B, pp);
      bx = Shape::first(mv.xi0) - 1;
      by = Shape::first(mv.yi0) - 1;
    }
    const unsigned live_mask = __ballot_sync(kFullWarp, live);
    if (live_mask == 0) continue;
    if (pp.deposit) {
      // The window: at the lowest stencil start among the lanes within one point of the first
      // live lane's.
      const int ref = __ffs(live_mask) - 1;
      const int rx = __shfl_sync(kFullWarp, bx, ref), ry = __shfl_sync(kFullWarp, by, ref);
      const bool near = live && abs(bx - rx) <= 1 && abs(by - ry) <= 1;
      const int wx = warp_min(near ? bx : INT_MAX), wy = warp_min(near ? by : INT_MAX);
      const bool in = near && bx - wx <= 1 && by - wy <= 1;
      const bool share = __popc(__ballot_sync(kFullWarp, in)) >= kWarpShareMin;
      alone += live && !(share && in);
      if (live && !(share && in)) deposit_move<Shape>(mv, r.w, v, pp, AtomicAccumulate{});
      if (share) deposit_window<Shape, R>(v, mv, in ? pp.charge * r.w : 0.0, pp, wx, wy, lane, window[threadIdx.x >> 5]);
    }
    if (!live) continue;
    if (finish_move(r, mv, pp)) {
      d.store_moved_as<F32>(i, r, mv);
      if (emptied.slots) {
        const double2 q = d.stored_pos_moved_as<F32>(r, mv);
        if (emptied.leaves(q.x, q.y)) emptied.note(i);
      }
    } else {
      d.alive[i] = 0;
      ++absorbed;
      if (emptied.slots) emptied.note(i);
    }
  }
  alone = nbody::cuda::block_reduce<kWarpBlock>(alone, scratch, nbody::cuda::Sum{});
  absorbed = nbody::cuda::block_reduce<kWarpBlock>(absorbed, scratch, nbody::cuda::Sum{});
  if (threadIdx.x == 0) {
    if (alone) atomicAdd(counters, alone);
    if (absorbed) atomicAdd(counters + 1, absorbed);
  }
}

}  // namespace
}  // namespace nbody::pic
