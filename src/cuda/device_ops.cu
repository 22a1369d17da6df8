// The CUDA executor of ParticleOps: grid-stride kernels over the shared functors, reductions over
// a fixed grid, on one device's stream. Also the gather behind ParticleStore::permute.
#include <array>
#include <vector>

#include "cuda/block_reduce.cuh"
#include "cuda/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/for_each.cuh"
#include "cuda/launch_policy.hpp"
#include "nbody/error.hpp"
#include "particles/ops_impl.hpp"
#include "particles/store.hpp"

namespace nbody {
namespace {

// block_sums[q * kBlocks + block] for each of the Q terms.
template <int Q, class F>
__global__ void __launch_bounds__(cuda::ReductionPolicy::kBlock) sum_kernel(int n, F f, double* block_sums) {
  using P = cuda::ReductionPolicy;
  __shared__ double scratch[P::kBlock / 32];
  double q[Q] = {};
  for (int i = blockIdx.x * P::kBlock + threadIdx.x; i < n; i += P::kBlocks * P::kBlock) f(i, q);
#pragma unroll
  for (int k = 0; k < Q; ++k) {
    const double total = cuda::block_reduce<P::kBlock, cuda::Sum>(q[k], scratch);
    if (threadIdx.x == 0) block_sums[k * P::kBlocks + blockIdx.x] = total;
  }
}

template <class F>
__global__ void __launch_bounds__(cuda::ReductionPolicy::kBlock) max_kernel(int n, F f, double* block_max) {
  using P = cuda::ReductionPolicy;
  __shared__ double scratch[P::kBlock / 32];
  double worst = 0;
  for (int i = blockIdx.x * P::kBlock + threadIdx.x; i < n; i += P::kBlocks * P::kBlock) {
    const double v = f(i);
    worst = v > worst ? v : worst;
  }
  const double best = cuda::block_reduce<P::kBlock, cuda::Max>(worst, scratch);
  if (threadIdx.x == 0) block_max[blockIdx.x] = best;
}

class CudaExecutor {
 public:
  CudaExecutor(int ordinal, StreamHandle stream)
      : ordinal_(ordinal), stream_(static_cast<cudaStream_t>(stream)) {}
  CudaExecutor(const CudaExecutor&) = delete;
  CudaExecutor& operator=(const CudaExecutor&) = delete;

  [[nodiscard]] Location location() const { return Location::cuda(ordinal_); }

  template <class F>
  void for_each(int n, const F& f) {
    cuda::launch_for_each(n, f, stream_);
  }

  // The kBlocks partial sums of each term, added on the host in block order.
  template <int Q, class F>
  std::array<double, Q> sum(int n, const F& f) {
    using P = cuda::ReductionPolicy;
    sum_kernel<Q><<<P::kBlocks, P::kBlock, 0, stream_>>>(n, f, partials(std::size_t(Q) * P::kBlocks));
    NBODY_CUDA_CHECK_LAUNCH();
    const auto& sums = fetch(std::size_t(Q) * P::kBlocks);
    std::array<double, Q> q{};
    for (int k = 0; k < Q; ++k) {
      for (int b = 0; b < P::kBlocks; ++b) q[k] += sums[std::size_t(k) * P::kBlocks + b];
    }
    return q;
  }

  template <class F>
  double max(int n, const F& f) {
    using P = cuda::ReductionPolicy;
    max_kernel<<<P::kBlocks, P::kBlock, 0, stream_>>>(n, f, partials(P::kBlocks));
    NBODY_CUDA_CHECK_LAUNCH();
    double worst = 0;
    for (double b : fetch(P::kBlocks)) worst = b > worst ? b : worst;
    return worst;
  }

  void synchronize() { NBODY_CUDA_CHECK(cudaStreamSynchronize(stream_)); }
  double measure_seconds(const std::function<void()>& work) {
    cuda::Event start, stop;
    start.record(stream_);
    work();
    stop.record(stream_);
    return stop.seconds_since(start);
  }

 private:
  double* partials(std::size_t count) {
    if (partials_.size() < count) partials_ = cuda::DeviceBuffer<double>(count);
    return partials_.data();
  }
  const std::vector<double>& fetch(std::size_t count) {
    host_.resize(count);
    partials_.download(host_.data(), count, stream_);
    NBODY_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return host_;
  }

  int ordinal_;
  cudaStream_t stream_;
  cuda::DeviceBuffer<double> partials_;
  std::vector<double> host_;
};

template <class Word>
struct Gather {
  Word* __restrict__ dst;
  const Word* __restrict__ src;
  const std::int32_t* __restrict__ order;
  __device__ void operator()(int k) const { dst[k] = src[order[k]]; }
};

}  // namespace

template <class T>
std::unique_ptr<ParticleOps<T>> make_device_ops(int ordinal, StreamHandle stream) {
  return std::make_unique<particles::OpsImpl<T, CudaExecutor>>(ordinal, stream);
}

template std::unique_ptr<ParticleOps<float>> make_device_ops<float>(int, StreamHandle);
template std::unique_ptr<ParticleOps<double>> make_device_ops<double>(int, StreamHandle);

void device_gather(void* dst, const void* src, const std::int32_t* order, std::size_t n, std::size_t width,
                   int ordinal, StreamHandle stream) {
  NBODY_CUDA_CHECK(cudaSetDevice(ordinal));
  const auto s = static_cast<cudaStream_t>(stream);
  const int count = static_cast<int>(n);
  if (width == 1) {  // the component tags
    using Byte = unsigned char;
    cuda::launch_for_each(count, Gather<Byte>{static_cast<Byte*>(dst), static_cast<const Byte*>(src), order}, s);
  } else if (width == 2) {
    using Half = unsigned short;
    cuda::launch_for_each(count, Gather<Half>{static_cast<Half*>(dst), static_cast<const Half*>(src), order}, s);
  } else if (width == 4) {
    cuda::launch_for_each(count, Gather<unsigned>{static_cast<unsigned*>(dst), static_cast<const unsigned*>(src), order},
                          s);
  } else if (width == 8) {
    using Word = unsigned long long;
    cuda::launch_for_each(count, Gather<Word>{static_cast<Word*>(dst), static_cast<const Word*>(src), order}, s);
  } else {
    throw_runtime_error("permute: fields of " + std::to_string(width) + " bytes are not supported on the GPU");
  }
}

void device_synchronize(int ordinal, StreamHandle stream) {
  NBODY_CUDA_CHECK(cudaSetDevice(ordinal));
  NBODY_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
}

}  // namespace nbody
