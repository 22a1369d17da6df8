#pragma once
// The deposition kernels of the PIC GPU path (solver.deposit, PicGpuOptions::deposit): one row a
// kernel in NBODY_PIC_DEPOSIT_KERNELS, which makes its DepositKernel value, its name in the
// configuration, its help text and its properties. The configuration's names, the blocks' checks
// (GpuSlabOptions, DomainPicGpu), the benchmark's rungs and the tests all go by these rows, in a
// build without CUDA too. The CUDA half of row `k` is its own file, src/pic/cuda/deposit/k.cu,
// which defines `k_deposit` (deposit/deposit.hpp: its device buffers and their bytes, prepare,
// launch, finish).
#include <span>
#include <string>
#include <string_view>

namespace nbody::pic {

// A row's properties (its flags):
//   kOverBlocks   runs on a block among several (the GPU slabs and 2D blocks, under mpirun)
//   kFloat32Sums  sums the currents in float32: its fields agree with the float64 kernels' to
//                 float32's rounding, not float64's
//   kSorted       sorts the particles under the sort_every / empty_ratio policy (PicGpuOptions)
inline constexpr unsigned kOverBlocks = 1u, kFloat32Sums = 2u, kSorted = 4u;

// ROW(name, flags, help), in the order of the optimisation study (`nbody bench --suite pic`,
// docs/pic_optimization.md): document 004's baseline first, then what today's GPUs and its
// techniques give. All are charge conserving in exact arithmetic.
#define NBODY_PIC_DEPOSIT_KERNELS(ROW)                                                                                 \
  ROW(cas, 0u,                                                                                                         \
      "float64 atomics emulated by a compare-and-swap loop (the fused kernel as document 004's GPUs ran it)")          \
  ROW(separate, 0u,                                                                                                    \
      "float64 atomicAdd, but gather, push and deposit as three kernels (E and B, and each particle's move, kept in "  \
      "device arrays between them)")                                                                                   \
  ROW(atomic, kOverBlocks,                                                                                             \
      "the default (DepositMode::atomic): the fused particle kernel adds each particle's Esirkepov current to the "    \
      "grid with float64 atomicAdd; the summation order, and so the last bits, varies from run to run")               \
  ROW(redundant, 0u,                                                                                                   \
      "document 004's dynamic redundancy: each of the K x K stencil positions writes to its own copy of the current "  \
      "grids (particles of neighbouring cells no longer collide), and in the densest tiles (re-chosen every 50 "       \
      "steps, at most a quarter of the tiles) each copy is split four ways again by the particle's quadrant of its "   \
      "cell; the copies are added into the grid after the particle kernel")                                           \
  ROW(float32, kFloat32Sums,                                                                                           \
      "document 004's mixed precision: float32 atomicAdd into float32 current grids, added to the float64 ones after " \
      "the particle kernel")                                                                                           \
  ROW(tiled, kSorted,                                                                                                  \
      "particles sorted by tile (16 x 16 cells); one block a tile adds its particles' currents into shared memory "    \
      "(the tile and a 3-cell halo), then the tile into the grid; a particle that left its tile's halo since the "     \
      "last sort adds to the grid directly (PIConGPU / WarpX / Smilei's privatisation)")                              \
  ROW(warp, kOverBlocks | kSorted,                                                                                     \
      "particles sorted by cell; the lanes of a warp whose stencils lie in one window of K + 1 points a side write "   \
      "their currents into shared memory, each lane sums one window point over the warp in a fixed order and adds "   \
      "it with one float64 atomic, the other lanes add theirs with atomics; each block walks one contiguous range "   \
      "of slots (neighbouring cells)")                                                                                 \
  ROW(deterministic, kOverBlocks,                                                                                      \
      "DepositMode::deterministic: each particle writes its K x K stencil of contributions to a buffer (3 K^2 "       \
      "doubles a particle), the particles are stably sorted by stencil cell, and one thread a grid point sums the "    \
      "contributions that reach it in a fixed order: the same bits on every run, across a restart, and on any "       \
      "number and shape of blocks")

#define NBODY_PIC_DEPOSIT_ENUMERATOR(name, flags, help) name,
enum class DepositKernel { NBODY_PIC_DEPOSIT_KERNELS(NBODY_PIC_DEPOSIT_ENUMERATOR) };
#undef NBODY_PIC_DEPOSIT_ENUMERATOR

struct DepositKernelInfo {
  DepositKernel kind;
  std::string_view name;  // solver.deposit
  std::string_view help;
  unsigned flags;
  [[nodiscard]] bool over_blocks() const { return (flags & kOverBlocks) != 0; }
  [[nodiscard]] bool float32_sums() const { return (flags & kFloat32Sums) != 0; }
  [[nodiscard]] bool sorted() const { return (flags & kSorted) != 0; }
};

// Every row, in the table's order.
[[nodiscard]] std::span<const DepositKernelInfo> deposit_kernels();
[[nodiscard]] const DepositKernelInfo& deposit_kernel_info(DepositKernel k);
// The kernel of a configuration's solver.deposit name; an input error listing the names for any
// other.
[[nodiscard]] DepositKernel deposit_kernel(const std::string& name);
// Every row's name, "a, b, c" (the configuration's error text).
[[nodiscard]] std::string deposit_kernel_names();
// The rows that run over blocks, for a message: "\"a\", \"b\" or \"c\"".
[[nodiscard]] std::string deposit_kernels_over_blocks();

}  // namespace nbody::pic
