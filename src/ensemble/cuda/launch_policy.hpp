#pragma once
// Launch shape of the ensemble kernel (plain C++): one warp a system, several warps a block; a
// system of at most kSharedBodies bodies is staged in the block's shared memory (its bodies and
// work arrays), a larger one works in global memory (through L1).
namespace nbody::ensemble::cuda {

struct EnsemblePolicy {
  static constexpr int kWarp = 32;
  static constexpr int kWarpsPerBlock = 4;
  static constexpr int kBlock = kWarp * kWarpsPerBlock;
  static constexpr int kSharedBodies = 32;
  // Per staged body: x, v (6), m, and the work arrays (19).
  static constexpr int kDoublesPerBody = 26;
  static constexpr int kSharedBytes = kWarpsPerBlock * kSharedBodies * kDoublesPerBody * 8;
  static_assert(kBlock <= 1024 && kSharedBytes <= 48 * 1024, "the static shared memory of a block");
};

}  // namespace nbody::ensemble::cuda
