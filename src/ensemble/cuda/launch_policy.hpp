#pragma once
// Launch shapes of the ensemble kernels (plain C++): one warp a system, several warps a block; a
// system of at most kSharedBodies bodies is staged in the block's shared memory (its bodies and
// work arrays), a larger one works in global memory (through L1); a system of the threshold's
// bodies or more gets a block of kLargeBlock threads of its own (the default threshold, measured:
// GpuShape::block_bodies, ensemble/backend.hpp).
// A system of at most kGroupMaxBodies bodies with a fixed-step integrator may instead take a
// group of G lanes (the smallest of 4, 8, 16, 32 that holds it; one lane a body), its state in
// registers for the whole interval (group_kernel.cu); `nbody bench --suite ensemble
// --ensemble-shape` compares the shapes.
namespace nbody::ensemble::cuda {

struct EnsemblePolicy {
  static constexpr int kWarp = 32;
  static constexpr int kWarpsPerBlock = 4;
  static constexpr int kBlock = kWarp * kWarpsPerBlock;
  static constexpr int kSharedBodies = 32;
  // Per staged body: x, v (6), m, and the work arrays (kScratchArrays, store.hpp).
  static constexpr int kDoublesPerBody = 7 + 25;
  static constexpr int kSharedBytes = kWarpsPerBlock * kSharedBodies * kDoublesPerBody * 8;
  static_assert(kBlock <= 1024 && kSharedBytes <= 48 * 1024, "the static shared memory of a block");
  static constexpr int kLargeBlock = 256;
  static_assert(kLargeBlock % kWarp == 0 && kLargeBlock <= 1024, "block must be whole warps");
  static constexpr int kGroupMaxBodies = 32;
  static constexpr int kGroupBlock = 128;
  static_assert(kGroupMaxBodies <= kWarp && kGroupBlock % kWarp == 0, "a group lies within one warp");
  // The group of lanes for a system of n bodies (n <= kGroupMaxBodies).
  static constexpr int group_for(int n) { return n <= 4 ? 4 : n <= 8 ? 8 : n <= 16 ? 16 : 32; }
};

}  // namespace nbody::ensemble::cuda
