#pragma once
// system_step.hpp's Exec for a group of G lanes of one warp (G = 4 ... 32, a power of two), one
// system a group: lane i takes the bodies i, i + G, ...; sync() is the group's __syncwarp.
namespace nbody::ensemble::cuda {

template <int G>
struct GroupExec {
  static_assert(G >= 2 && G <= 32 && (G & (G - 1)) == 0, "a group is a power of two within a warp");
  int lane;
  unsigned mask;
  template <class F>
  __device__ void for_bodies(int n, F&& f) {
    for (int i = lane; i < n; i += G) f(i);
  }
  __device__ void sync() { __syncwarp(mask); }
};

// The lanes of thread t's group in its warp.
template <int G>
__device__ unsigned group_mask(int t) {
  return (G == 32 ? 0xffffffffu : ((1u << G) - 1u)) << (t % 32 / G * G);
}

}  // namespace nbody::ensemble::cuda
