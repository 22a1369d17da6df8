#pragma once
// The documents' GPU kernels as ladder rungs. Plain C++: implemented in gpu_rungs.cu when the
// build has CUDA.
#include <memory>
#include <string>

#include "ladder/rung.hpp"

namespace nbody::bench {

// gpu-naive, gpu-shared, gpu-split, gpu-split-unrolled. Throws an input error for other names or
// a block size the split kernel was not compiled for.
std::unique_ptr<Rung> make_documents_gpu_rung(const std::string& name, Precision precision, std::size_t n,
                                              const GpuRungOptions& options);

// Defaults (the documents' choices): naive 32 threads; shared 128; split 128 x 32.
inline constexpr int kNaiveBlock = 32;
inline constexpr int kSharedBlock = 128;
inline constexpr int kSplitBlock = 128;
inline constexpr int kSplitStride = 32;
// The inner-loop unroll of gpu-split-unrolled (document 003 found 64 best).
inline constexpr int kSplitUnroll = 64;

}  // namespace nbody::bench
