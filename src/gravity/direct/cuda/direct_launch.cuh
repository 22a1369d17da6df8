#pragma once
// Launching the production direct-sum kernel for a run-time shape: the dispatch from a
// DirectShape to the compiled (block, targets) instance, and the scratch split launches need.
// Include from .cu files only.
#include <algorithm>
#include <atomic>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>

#include "cuda/check.hpp"
#include "cuda/device_buffer.hpp"
#include "gravity/direct/cuda/direct_kernels.cuh"
#include "gravity/direct/cuda/direct_shape.hpp"
#include "nbody/error.hpp"

namespace nbody::direct::cuda {

// Partial sums and tickets for split launches. Sized on first use for a shape and n; the
// tickets are zeroed once and every launch leaves them zero.
template <class Acc>
class SplitBuffers {
 public:
  SplitScratch<Acc> prepare(const DirectShape& s, int n, cudaStream_t stream) {
    const int groups = (n + s.group() - 1) / s.group();
    const std::size_t stride = std::size_t(groups) * s.group();
    const std::size_t need = stride * std::size_t(s.slices);
    if (need > px_.size()) {
      px_ = nbody::cuda::DeviceBuffer<Acc>(need);
      py_ = nbody::cuda::DeviceBuffer<Acc>(need);
      pz_ = nbody::cuda::DeviceBuffer<Acc>(need);
    }
    if (std::size_t(groups) > tickets_.size()) {
      tickets_ = nbody::cuda::DeviceBuffer<unsigned>(std::size_t(groups));
      NBODY_CUDA_CHECK(cudaMemsetAsync(tickets_.data(), 0, std::size_t(groups) * sizeof(unsigned), stream));
    }
    return {px_.data(), py_.data(), pz_.data(), tickets_.data(), static_cast<int>(stride)};
  }

  // Bytes a shape needs for n bodies (for memory checks before allocating anything).
  static std::size_t bytes(const DirectShape& s, std::size_t n) {
    if (s.slices <= 1) return 0;
    const std::size_t groups = (n + s.group() - 1) / s.group();
    return groups * s.group() * (3 * sizeof(Acc) * std::size_t(s.slices) + sizeof(unsigned));
  }

 private:
  nbody::cuda::DeviceBuffer<Acc> px_, py_, pz_;
  nbody::cuda::DeviceBuffer<unsigned> tickets_;
};

// The longest slice a float32 target sums one source at a time. Longer slices take the kernel
// that sums each tile apart first (8 more registers a thread: 5 blocks of 256 threads an SM
// instead of 6; about 3% slower, measured across two machines of one kind). Measured with one thread a target over 2^21 sources (N = 2^22, 2 slices) the
// plain sum's worst error was 0.15 of the bench's bound; over 2^23 (one slice) 29 times it.
inline constexpr int kPlainSumMaxSources = 1 << 21;

// Sources per slice: n / S rounded up to whole multiples of the shape's minimum slice; the
// launch then uses just enough slices.
inline int slice_length(const DirectShape& s, int n) {
  const int unit = s.min_slice();
  const int per = (n + s.slices - 1) / s.slices;
  return std::max(unit, (per + unit - 1) / unit * unit);
}

// True when the current device can overlap a kernel's launch with the end of the previous one
// (programmatic dependent launch, compute capability 9.0 and later). Asked once per device.
inline bool programmatic_launch_supported() {
  static std::atomic<int> known[64];  // 0: not asked yet, 1: no, 2: yes
  int dev = 0;
  NBODY_CUDA_CHECK(cudaGetDevice(&dev));
  if (dev < 0 || dev >= 64) return false;
  if (known[dev].load(std::memory_order_relaxed) == 0) {
    int major = 0;
    NBODY_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    known[dev].store(major >= 9 ? 2 : 1, std::memory_order_relaxed);
  }
  return known[dev].load(std::memory_order_relaxed) == 2;
}

// Launches a kernel that begins with wait_for_previous_grid() as a programmatic dependent of the
// work before it in the stream: its blocks may be scheduled while that work finishes (they wait
// for it, and for its memory, before reading anything), which removes the launch gap between
// consecutive steps. The stream order is otherwise unchanged; captured into a CUDA graph this
// becomes a programmatic edge.
template <class... Params, class... Args>
void launch_programmatic(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  config.attrs = attribute;
  config.numAttrs = programmatic_launch_supported() ? 1 : 0;
  NBODY_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

template <int Block, int R, bool Warps = false, int Lanes = 1>
struct CompiledShape {
  static constexpr int kBlock = Block;
  static constexpr int kTargets = R;
  static constexpr bool kWarps = Warps;
  static constexpr int kLanes = Lanes;
};

// Targets t from sources b: one target group per grid column, the sources split into slices.
template <class T, class Acc, class Pair, class Epilogue, class Shape>
void launch_instance(const DirectShape& s, const TargetView<T>& t, const SourceView<T>& b, const Pair& pair,
                     const Epilogue& finish, SplitBuffers<Acc>& buffers, cudaStream_t stream) {
  const int groups = (t.n + s.group() - 1) / s.group();
  const int len = slice_length(s, b.n);
  const int slices = (b.n + len - 1) / len;
  DirectShape used = s;
  used.slices = slices;
  const SplitScratch<Acc> scratch = slices > 1 ? buffers.prepare(used, t.n, stream) : SplitScratch<Acc>{};
  const dim3 grid(groups, slices);
  if constexpr (Shape::kWarps) {
    launch_programmatic(direct_sum_warps<T, Acc, Shape::kBlock / 32, Shape::kTargets, Shape::kLanes, Pair, Epilogue>,
                        grid, Shape::kBlock, stream, t, b, len, pair, finish, scratch);
  } else {
    auto* kernel = direct_sum<T, Acc, Shape::kBlock, Shape::kTargets, Pair, Epilogue>;
    // (only float32 has the tile-sum instance)
    if constexpr (std::is_same_v<Acc, float>)
      if (len > kPlainSumMaxSources) kernel = direct_sum<T, Acc, Shape::kBlock, Shape::kTargets, Pair, Epilogue, true>;
    launch_programmatic(kernel, grid, Shape::kBlock, stream, t, b, len, pair, finish, scratch);
  }
  NBODY_CUDA_CHECK_LAUNCH();
}

template <class... Shapes>
struct ShapeList {};

// The instances of one table of direct_shape.hpp (kCompiledFp32, ...).
template <const auto& Table, std::size_t... I>
ShapeList<CompiledShape<Table[I].block, Table[I].targets, Table[I].warps, Table[I].lanes>...> shapes_of(
    std::index_sequence<I...>);
template <const auto& Table>
using TableShapes = decltype(shapes_of<Table>(std::make_index_sequence<std::size(Table)>{}));

// The compiled instances per arithmetic: the tables of direct_shape.hpp.
template <class T, class Acc>
using CompiledShapes = std::conditional_t<
    std::is_same_v<T, float> && std::is_same_v<Acc, float>, TableShapes<kCompiledFp32>,
    std::conditional_t<std::is_same_v<T, double>, TableShapes<kCompiledFp64>, TableShapes<kCompiledMixed>>>;

// Calls visit.template operator()<Shape>() for the compiled Shape matching s; false if none does.
template <class Visit, class... Shapes>
bool visit_shape(const DirectShape& s, Visit&& visit, ShapeList<Shapes...>) {
  return ((s.block == Shapes::kBlock && s.targets == Shapes::kTargets && s.warps == Shapes::kWarps &&
                   s.lanes == Shapes::kLanes
               ? (visit.template operator()<Shapes>(), true)
               : false) ||
          ...);
}

template <class T, class Acc, class Pair, class Epilogue>
void launch_direct_sum(const DirectShape& s, const TargetView<T>& t, const SourceView<T>& b, const Pair& pair,
                       const Epilogue& finish, SplitBuffers<Acc>& buffers, cudaStream_t stream) {
  const bool launched = visit_shape(
      s, [&]<class Shape>() { launch_instance<T, Acc, Pair, Epilogue, Shape>(s, t, b, pair, finish, buffers, stream); },
      CompiledShapes<T, Acc>{});
  if (!launched) throw_runtime_error("direct-sum shape " + s.text() + " is not compiled");
}

}  // namespace nbody::direct::cuda
