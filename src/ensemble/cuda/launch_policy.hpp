#pragma once
// Launch shapes of the ensemble kernels (plain C++): one warp a system, several warps a block; a
// system of at most kSharedBodies bodies is staged in the block's shared memory (its bodies and
// work arrays), a larger one works in global memory (through L1); a system of kBlockBodies
// bodies or more gets a block of kLargeBlock threads of its own. kBlockBodies is a first choice,
// to be set from `nbody bench --suite ensemble` on the device (sizes 64 ... 1024).
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
  static constexpr int kBlockBodies = 128;
  static constexpr int kLargeBlock = 256;
  static_assert(kLargeBlock % kWarp == 0 && kLargeBlock <= 1024, "block must be whole warps");
  static_assert(kBlockBodies > kSharedBodies, "a block's system is never staged");
};

}  // namespace nbody::ensemble::cuda
