// The group kernel: one group of G lanes a system (each lane one body), for the fixed-step
// integrators of small systems. The bodies stay in registers across the interval's steps; the
// force loop reads the group's positions and masses from shared memory (a broadcast); the
// state goes back to global memory once, at the interval's end, where the end-of-interval checks
// run as on every other path (system_step.hpp's finish_interval). Compiled with -fmad=false,
// each operation is the one system_step.hpp performs, in the same order: a system has the CPU
// path's bits (and the warp kernel's).
#include <cuda_runtime.h>

#include <string>

#include "cuda/check.hpp"
#include "ensemble/cuda/group_exec.cuh"
#include "ensemble/cuda/group_kernel.cuh"
#include "ensemble/cuda/launch_policy.hpp"
#include "nbody/error.hpp"

namespace nbody::ensemble::cuda {
namespace {

using Policy = EnsemblePolicy;

// The smallest value over the group's lanes (NaN as +inf: as min_w skips NaN).
template <int G>
__device__ double group_min(double v, unsigned mask) {
  v = v < INFINITY ? v : INFINITY;
  for (int off = G / 2; off > 0; off /= 2) {
    const double o = __shfl_xor_sync(mask, v, off);
    v = o < v ? o : v;
  }
  return v;
}

// A body as the group reads it in the force loop (two 16-byte loads).
struct alignas(16) Source {
  double x, y, z, m;
};

// One lane's body and its acceleration.
struct Body {
  double x, y, z, vx, vy, vz, m, ax, ay, az;
};

// system_step.hpp's evaluate for lane i: the others' positions from `group` (x, y, z, m), j in
// order; returns the smallest squared separation (the collision check's w[i]; with kMin only,
// else +inf).
template <bool kMin>
__device__ double evaluate(Body& b, Source* group, int i, int n, double eps2, unsigned mask) {
  if (i < n) group[i] = Source{b.x, b.y, b.z, b.m};
  __syncwarp(mask);
  double ax = 0, ay = 0, az = 0, rmin2 = INFINITY;
  if (i < n) {
    for (int j = 0; j < n; ++j) {
      if (j == i) continue;
      const Source o = group[j];
      const double dx = o.x - b.x, dy = o.y - b.y, dz = o.z - b.z;
      const double d2 = dx * dx + dy * dy + dz * dz;
      if constexpr (kMin) rmin2 = d2 < rmin2 ? d2 : rmin2;
      const double r2 = d2 + eps2;
      const double inv = inv_root(r2);
      const double mr3 = o.m * inv * inv * inv;
      ax += mr3 * dx, ay += mr3 * dy, az += mr3 * dz;
    }
  }
  b.ax = ax, b.ay = ay, b.az = az;
  __syncwarp(mask);  // (every lane has read the group before the next write)
  return rmin2;
}

// system_step.hpp's leapfrog_kdk for one body; the smallest separation at the end.
template <bool kMin>
__device__ double kdk(Body& b, Source* group, int i, int n, double h, double eps2, unsigned mask) {
  const double half = 0.5 * h;
  b.vx += half * b.ax, b.vy += half * b.ay, b.vz += half * b.az;
  b.x += h * b.vx, b.y += h * b.vy, b.z += h * b.vz;
  const double rmin2 = evaluate<kMin>(b, group, i, n, eps2, mask);
  b.vx += half * b.ax, b.vy += half * b.ay, b.vz += half * b.az;
  return rmin2;
}

// kMin: the collision check is on (the smallest separation is kept after every step).
template <int G, bool kMin>
__global__ void __launch_bounds__(Policy::kGroupBlock) ensemble_group_kernel(DeviceView v, Params p, double t_target) {
  static_assert(G >= 2 && G <= Policy::kWarp && (G & (G - 1)) == 0, "a group is a power of two within a warp");
  constexpr int kGroups = Policy::kGroupBlock / G;
  __shared__ Source bodies[Policy::kGroupBlock];
  __shared__ double work[Policy::kGroupBlock];
  const int g = int(threadIdx.x) / G, i = int(threadIdx.x) % G;
  const unsigned mask = group_mask<G>(int(threadIdx.x));
  const long long q = (long long)blockIdx.x * kGroups + g;
  if (q >= v.count) return;  // (the whole group)
  const long long k = v.work[q];
  SystemState st = v.state[k];
  if (st.status != int(Outcome::running)) return;
  const long long base = v.offset[k];
  const int n = int(v.offset[k + 1] - base);
  const long long at = base + (i < n ? i : 0);
  Body b{v.x[at], v.y[at], v.z[at], v.vx[at], v.vy[at], v.vz[at], v.m[at], 0, 0, 0};
  Source* group = bodies + g * G;
  const double coll2 = p.collision_radius * p.collision_radius;
  double rmin2 = group_min<G>(evaluate<kMin>(b, group, i, n, p.eps2, mask), mask);
  const FixedSteps steps = fixed_steps(t_target - st.t, p.dt);
  const double h = steps.h;
  const bool yoshida = p.integrator == Integrator::yoshida4;
  for (std::int64_t s = 0; s < steps.k; ++s) {
    if (coll2 > 0 && rmin2 < coll2) {
      st.t += double(s) * h;
      break;
    }
    double r;
    if (yoshida) {
      (void)kdk<kMin>(b, group, i, n, kYoshidaW1 * h, p.eps2, mask);
      (void)kdk<kMin>(b, group, i, n, kYoshidaW0 * h, p.eps2, mask);
      r = kdk<kMin>(b, group, i, n, kYoshidaW1 * h, p.eps2, mask);
    } else {
      r = kdk<kMin>(b, group, i, n, h, p.eps2, mask);
    }
    if constexpr (kMin) rmin2 = group_min<G>(r, mask);
    ++st.steps;
    if (s + 1 == steps.k) st.t = t_target;
  }
  if (i < n) v.x[at] = b.x, v.y[at] = b.y, v.z[at] = b.z, v.vx[at] = b.vx, v.vy[at] = b.vy, v.vz[at] = b.vz;
  const double sum = b.x + b.y + b.z + b.vx + b.vy + b.vz;
  const bool finite = i >= n || sum - sum == 0;
  __syncwarp(mask);  // (the bodies in global memory are every lane's to read)
  if ((__ballot_sync(mask, !finite) & mask) != 0) {
    st.status = int(Outcome::diverged), st.stop_time = st.t;
  } else {
    SystemRef s{};
    s.n = n;
    s.x = v.x + base, s.y = v.y + base, s.z = v.z + base, s.vx = v.vx + base, s.vy = v.vy + base, s.vz = v.vz + base;
    s.m = v.m + base;
    s.w = work + g * G;
    GroupExec<G> ex{i, mask};
    finish_interval(s, p, st, rmin2, ex);
  }
  if (i == 0) v.state[k] = st;
}

template <int G>
void launch(const DeviceView& v, const Params& p, double t_target, cudaStream_t stream) {
  constexpr int kGroups = Policy::kGroupBlock / G;
  const long long blocks = (v.count + kGroups - 1) / kGroups;
  if (blocks > 2147483647LL) throw_input_error("ensemble: too many systems for one launch");
  if (p.collision_radius * p.collision_radius > 0)  // (as finish_interval's coll2)
    ensemble_group_kernel<G, true><<<unsigned(blocks), Policy::kGroupBlock, 0, stream>>>(v, p, t_target);
  else
    ensemble_group_kernel<G, false><<<unsigned(blocks), Policy::kGroupBlock, 0, stream>>>(v, p, t_target);
  NBODY_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_group_kernel(const DeviceView& v, const Params& p, double t_target, int group, cudaStream_t stream) {
  if (v.count <= 0) return;
  switch (group) {
    case 4: launch<4>(v, p, t_target, stream); break;
    case 8: launch<8>(v, p, t_target, stream); break;
    case 16: launch<16>(v, p, t_target, stream); break;
    case 32: launch<32>(v, p, t_target, stream); break;
    default: throw_input_error("ensemble: no group kernel of " + std::to_string(group) + " lanes");
  }
}

}  // namespace nbody::ensemble::cuda
