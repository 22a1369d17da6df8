#pragma once
// Launch shapes of the production direct-sum kernel and the policy that picks one per N and
// per GPU. Plain C++ (no CUDA types): the benchmark's tuner and the tests read it too.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nbody {

enum class KernelArithmetic { fp32, fp64, mixed };

// Two kernels: tiled (a block's threads own block x R targets and share one source tile) and
// warp-sliced (a block's W = block / 32 warps share 32 R targets and split the sources).
struct DirectShape {
  int block = 128;     // threads per block
  int targets = 1;     // targets per thread (R)
  int slices = 1;      // source slices (S): blocks that share one target group's sources
  bool warps = false;  // the warp-sliced kernel
  int lanes = 1;       // warp-sliced: lanes that share a target (each takes every lanes-th source)

  [[nodiscard]] int group() const noexcept { return warps ? 32 / lanes * targets : block * targets; }
  // The smallest source slice that keeps every thread busy: one tile, or 32 sources per warp.
  [[nodiscard]] int min_slice() const noexcept { return block; }
  [[nodiscard]] std::string text() const;  // "128x4/s8" (tiled), "w32x1/s2", "w32x1l2/s1" (warp-sliced)
  bool operator==(const DirectShape&) const = default;
};

// The (block, targets, warps, lanes) instances compiled for each arithmetic; slices are chosen at
// run time. The one list: the CUDA dispatch (direct_launch.cuh) instantiates exactly these.
inline constexpr DirectShape kCompiledFp32[] = {
    {128, 1, 1},          {128, 2, 1},          {128, 4, 1},          {128, 8, 1},
    {256, 2, 1},          {256, 4, 1},          {256, 8, 1},          {1024, 1, 1, true},
    {512, 2, 1, true},    {256, 4, 1, true},    {1024, 1, 1, true, 2}, {512, 1, 1, true, 4},
    {512, 2, 1, true, 2}, {512, 2, 1, true, 4}, {1024, 2, 1, true, 2}};
inline constexpr DirectShape kCompiledFp64[] = {{128, 1, 1},       {128, 2, 1},       {128, 4, 1},
                                                {512, 1, 1, true}, {256, 2, 1, true}, {512, 1, 1, true, 2}};
inline constexpr DirectShape kCompiledMixed[] = {{128, 1, 1},        {128, 2, 1},       {128, 4, 1},
                                                 {1024, 1, 1, true}, {512, 2, 1, true}, {1024, 1, 1, true, 2}};

// The same lists as vectors.
[[nodiscard]] const std::vector<DirectShape>& compiled_shapes(KernelArithmetic a);

// The shape that text() writes ("256x2/s4", "w16x2/s1", "w16x2l2/s1"; "/sS" may be left out:
// one slice), or nothing when the text is not one.
[[nodiscard]] std::optional<DirectShape> parse_direct_shape(std::string_view text);

// True when (block, targets, warps, lanes) is compiled for the arithmetic and the slice count
// is a power of two; the slice count is otherwise free (at most max_slices() are used).
[[nodiscard]] bool is_compiled(const DirectShape& s, KernelArithmetic a);

// What the policy needs to know about the GPU.
struct DeviceSlots {
  int sm_count = 0;
};

// The largest slice count that keeps every slice at least min_slice() sources: rounded down to a
// power of two (1 when N < 2 min_slice()).
[[nodiscard]] int max_slices(std::int64_t n, const DirectShape& shape) noexcept;

// The policy (a measured table; derivation in direct_shape.cpp). Deterministic in
// (n, arithmetic, device); always one of compiled_shapes() with slices <= max_slices().
[[nodiscard]] DirectShape choose_shape(std::int64_t n, KernelArithmetic a, const DeviceSlots& device);

}  // namespace nbody
