// The CUDA executor of ParticleOps: grid-stride kernels over the shared functors, reductions over
// a fixed grid, on one device's stream. Also the gather behind ParticleStore::permute.
#include <array>
#include <memory>
#include <climits>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <vector>

#include "cuda/block_reduce.cuh"
#include "cuda/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/for_each.cuh"
#include "cuda/launch_policy.hpp"
#include "cuda/while_graph.hpp"
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

// (least, count) pairs combined: the lesser value, or the counts added where the values tie.
struct MinCount {
  long long least;
  int count;
  __device__ __forceinline__ void add(long long v, int c) {
    if (v < least) {
      least = v;
      count = c;
    } else if (v == least) {
      count += c;
    }
  }
  // Over the block (the shuffle tree of cuda::warp_reduce, then the warps in order); valid in
  // thread 0. Every thread of the block calls it.
  template <int Block>
  __device__ __forceinline__ void block_reduce(long long* warp_min, int* warp_count) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
      const long long other = __shfl_down_sync(0xffffffffu, least, offset);
      const int other_count = __shfl_down_sync(0xffffffffu, count, offset);
      add(other, other_count);  // lane 0 only ever combines lanes in range
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) {
      warp_min[warp] = least;
      warp_count[warp] = count;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int w = 1; w < Block / 32; ++w) add(warp_min[w], warp_count[w]);
    }
    __syncthreads();
  }
};

// The least of the integers f(i) and how many i give it: per block into block_min/block_count,
// and the last block to finish combines the blocks' into result[0] (least) and result[1]
// (count). Integers: the result is exact whatever the order. `done` is zero on entry and left zero.
template <class F>
__global__ void __launch_bounds__(cuda::ReductionPolicy::kBlock)
    min_count_kernel(int n, F f, long long* block_min, int* block_count, unsigned* done, long long* result) {
  using P = cuda::ReductionPolicy;
  __shared__ long long warp_min[P::kBlock / 32];
  __shared__ int warp_count[P::kBlock / 32];
  __shared__ bool last;
  MinCount mc{LLONG_MAX, 0};
  for (int i = blockIdx.x * P::kBlock + threadIdx.x; i < n; i += P::kBlocks * P::kBlock) mc.add(f(i), 1);
  mc.block_reduce<P::kBlock>(warp_min, warp_count);
  if (threadIdx.x == 0) {
    block_min[blockIdx.x] = mc.least;
    block_count[blockIdx.x] = mc.count;
    __threadfence();
    last = atomicAdd(done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  MinCount all{LLONG_MAX, 0};
  const volatile long long* bm = block_min;
  const volatile int* bc = block_count;
  for (int b = threadIdx.x; b < int(gridDim.x); b += P::kBlock) all.add(bm[b], bc[b]);
  all.block_reduce<P::kBlock>(warp_min, warp_count);
  if (threadIdx.x == 0) {
    result[0] = all.least;
    result[1] = all.count;
    *done = 0;
  }
}

// *top := max over v[0, n), by one block.
__global__ void __launch_bounds__(cuda::ReductionPolicy::kBlock) max_int_kernel(const std::int32_t* v, int n,
                                                                                std::int32_t* top) {
  using P = cuda::ReductionPolicy;
  __shared__ int scratch[P::kBlock / 32];
  int best = INT_MIN;
  for (int i = threadIdx.x; i < n; i += P::kBlock) best = v[i] > best ? v[i] : best;
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    const int other = __shfl_down_sync(0xffffffffu, best, offset);
    best = other > best ? other : best;
  }
  if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = best;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 0; w < P::kBlock / 32; ++w) best = scratch[w] > best ? scratch[w] : best;
    *top = best;
  }
}

// f(i) for i < *count: a fixed grid (ElementwisePolicy's for `most` elements), the count read on
// the device.
template <class F>
__global__ void __launch_bounds__(cuda::ElementwisePolicy::kBlock) for_each_counted_kernel(const int* count, F f) {
  const int n = *count;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) f(i);
}

// f(i) for every i < n, and i appended to out where pred(i) after f(i) (*count counts them; zero
// on entry). The order of the appended indices is not fixed (one atomic a warp): for callers whose
// per-index work does not depend on where an index lands (the block step's active set).
template <class F, class Pred>
__global__ void __launch_bounds__(cuda::ElementwisePolicy::kBlock)
    for_each_select_kernel(int n, F f, Pred pred, std::int32_t* out, int* count) {
  const int lane = int(threadIdx.x) & 31;
  const int stride = int(gridDim.x * blockDim.x);
  // the loop's bound is the warp's, so that every lane takes part in the ballot
  for (int first = int(blockIdx.x * blockDim.x + threadIdx.x) - lane; first < n; first += stride) {
    const int i = first + lane;
    bool take = false;
    if (i < n) {
      f(i);
      take = pred(i);
    }
    const unsigned mask = __ballot_sync(0xffffffffu, take);
    if (mask == 0u) continue;
    const int leader = __ffs(mask) - 1;
    int base = 0;
    if (lane == leader) base = atomicAdd(count, __popc(mask));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (take) out[base + __popc(mask & ((1u << lane) - 1u))] = i;
  }
}

#if NBODY_HAVE_WHILE_GRAPHS
// The end of a block step in the device's loop: its count into the statistics (as the host
// counts them), and the loop goes on while the block time is before the interval's end.
// The count is left zero for the next block step's selection.
__global__ void block_loop_tail(cudaGraphConditionalHandle handle, const long long* next, int* count,
                                unsigned long long* counts) {
  const auto active = static_cast<unsigned long long>(*count);
  *count = 0;
  counts[0] += 1;
  counts[1] += active;
  counts[2 + particles::block_bin(active)] += 1;
  cudaGraphSetConditional(handle, *next < hermite::kTicks ? 1u : 0u);
}
#endif

struct FillFrom {
  std::int32_t* v;
  const std::int32_t* value;
  __device__ void operator()(int i) const { v[i] = *value; }
};

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

  // The blocks' partials combined by the last block; one 16-byte copy to pinned memory and one
  // wait per call.
  template <class F>
  particles::BlockTime min_count(int n, const F& f) {
    min_count_start(n, f);
    return min_count_finish();
  }

  // Queues the reduction and the copy of its result to pinned memory, and an event after them;
  // returns the device's copy of the least value, for kernels queued next (the next block time:
  // the prediction and the selection need not wait for the host).
  template <class F>
  const long long* min_count_start(int n, const F& f) {
    using P = cuda::ReductionPolicy;
    ensure_min_count();
    min_count_kernel<<<P::kBlocks, P::kBlock, 0, stream_>>>(n, f, block_min_.data(), block_count_.data(), done_.data(),
                                                           min_count_.data());
    NBODY_CUDA_CHECK_LAUNCH();
    NBODY_CUDA_CHECK(cudaMemcpyAsync(min_count_host_.data(), min_count_.data(), 2 * sizeof(long long),
                                     cudaMemcpyDeviceToHost, stream_));
    min_count_ready_->record(stream_);
    return min_count_.data();
  }

  // Waits for the last min_count_start's value (not for the work queued after it).
  particles::BlockTime min_count_finish() {
    min_count_ready_->synchronize();
    particles::BlockTime b;
    if (min_count_host_.data()[1] > 0) {
      b.next = min_count_host_.data()[0];
      b.count = static_cast<int>(min_count_host_.data()[1]);
    }
    return b;
  }

  // Stream compaction of the indices (CUB keeps their order); the scratch is kept between calls.
  template <class F>
  void select(int n, const F& pred, std::int32_t* out, int count) {
    (void)count;  // counted by min_count; CUB counts again into selected_
    if (selected_.size() == 0) selected_ = cuda::DeviceBuffer<int>(1);
    const thrust::counting_iterator<int> first(0);
    std::size_t need = 0;
    NBODY_CUDA_CHECK(cub::DeviceSelect::If(nullptr, need, first, out, selected_.data(), n, pred, stream_));
    if (select_temp_.size() < need) select_temp_ = cuda::DeviceBuffer<unsigned char>(need);
    NBODY_CUDA_CHECK(
        cub::DeviceSelect::If(select_temp_.data(), need, first, out, selected_.data(), n, pred, stream_));
  }

  // f(i) for every i < n, then the i where pred(i) appended to out in no fixed order, counted into
  // the selection's count on the device (select's), which must be zero on entry: the
  // prediction and the selection of a block step of the device's loop in one pass.
  template <class F, class Pred>
  void for_each_select(int n, const F& f, const Pred& pred, std::int32_t* out) {
    if (n <= 0) return;
    if (selected_.size() == 0) selected_ = cuda::DeviceBuffer<int>(1);
    using P = cuda::ElementwisePolicy;
    for_each_select_kernel<<<P::blocks(std::size_t(n)), P::kBlock, 0, stream_>>>(n, f, pred, out, selected_.data());
    NBODY_CUDA_CHECK_LAUNCH();
  }

  void share_max(std::int32_t* v, int n) {
    if (n == 0) return;
    if (top_.size() == 0) top_ = cuda::DeviceBuffer<std::int32_t>(1);
    max_int_kernel<<<1, cuda::ReductionPolicy::kBlock, 0, stream_>>>(v, n, top_.data());
    NBODY_CUDA_CHECK_LAUNCH();
    cuda::launch_for_each(n, FillFrom{v, top_.data()}, stream_);
  }

  static constexpr bool kLoopsWithoutHost = NBODY_HAVE_WHILE_GRAPHS != 0;

  template <class F>
  void for_each_counted(const int* count, int most, const F& f) {
    if (most <= 0) return;
    using P = cuda::ElementwisePolicy;
    for_each_counted_kernel<<<P::blocks(std::size_t(most)), P::kBlock, 0, stream_>>>(count, f);
    NBODY_CUDA_CHECK_LAUNCH();
  }

#if NBODY_HAVE_WHILE_GRAPHS
  // The loop of make_loop's contract (ops_impl.hpp): a WhileGraph whose body is the least end,
  // the body's work and the tail (statistics, condition).
  template <class End, class Body>
  std::unique_ptr<particles::BlockLoop> make_loop(int n, const End& end, const Body& body) {
    ensure_min_count();
    if (selected_.size() == 0) selected_ = cuda::DeviceBuffer<int>(1);
    auto loop = std::make_unique<Loop>(stream_);
    int* count = selected_.data();
    loop->selected_ = count;
    unsigned long long* counts = loop->counts_.data();
    loop->graph_ = std::make_unique<cuda::WhileGraph>(stream_, [&](cudaGraphConditionalHandle handle) {
      using P = cuda::ReductionPolicy;
      min_count_kernel<<<P::kBlocks, P::kBlock, 0, stream_>>>(n, end, block_min_.data(), block_count_.data(),
                                                             done_.data(), min_count_.data());
      NBODY_CUDA_CHECK_LAUNCH();
      body(static_cast<const long long*>(min_count_.data()), count);
      block_loop_tail<<<1, 1, 0, stream_>>>(handle, min_count_.data(), count, counts);
      NBODY_CUDA_CHECK_LAUNCH();
    });
    return loop;
  }
#endif

  void synchronize() { NBODY_CUDA_CHECK(cudaStreamSynchronize(stream_)); }
  double measure_seconds(const std::function<void()>& work) {
    cuda::Event start, stop;
    start.record(stream_);
    work();
    stop.record(stream_);
    return stop.seconds_since(start);
  }

 private:
#if NBODY_HAVE_WHILE_GRAPHS
  // The block steps of an interval: one launch of the graph, then one copy of the statistics.
  class Loop final : public particles::BlockLoop {
   public:
    explicit Loop(cudaStream_t stream) : stream_(stream), counts_(kCounts), host_(kCounts) {}
    particles::BlockCounts run() override {
      NBODY_CUDA_CHECK(cudaMemsetAsync(counts_.data(), 0, kCounts * sizeof(unsigned long long), stream_));
      NBODY_CUDA_CHECK(cudaMemsetAsync(selected_, 0, sizeof(int), stream_));  // the first step's selection
      graph_->launch();
      NBODY_CUDA_CHECK(cudaMemcpyAsync(host_.data(), counts_.data(), kCounts * sizeof(unsigned long long),
                                       cudaMemcpyDeviceToHost, stream_));
      NBODY_CUDA_CHECK(cudaStreamSynchronize(stream_));
      particles::BlockCounts c;
      c.block_steps = host_.data()[0];
      c.active = host_.data()[1];
      for (int b = 0; b < particles::BlockCounts::kBins; ++b) c.histogram[b] = host_.data()[2 + b];
      return c;
    }

   private:
    friend class CudaExecutor;
    static constexpr std::size_t kCounts = 2 + particles::BlockCounts::kBins;
    cudaStream_t stream_;
    cuda::DeviceBuffer<unsigned long long> counts_;  // steps, active, histogram
    cuda::PinnedBuffer<unsigned long long> host_;
    std::unique_ptr<cuda::WhileGraph> graph_;
    int* selected_ = nullptr;  // the executor's selection count, zero between block steps
  };
#endif

  void ensure_min_count() {
    using P = cuda::ReductionPolicy;
    if (block_min_.size() != 0) return;
    block_min_ = cuda::DeviceBuffer<long long>(P::kBlocks);
    block_count_ = cuda::DeviceBuffer<int>(P::kBlocks);
    done_ = cuda::DeviceBuffer<unsigned>(1);
    NBODY_CUDA_CHECK(cudaMemsetAsync(done_.data(), 0, sizeof(unsigned), stream_));
    min_count_ = cuda::DeviceBuffer<long long>(2);
    min_count_host_ = cuda::PinnedBuffer<long long>(2);
    min_count_ready_ = std::make_unique<cuda::Event>(cudaEventDisableTiming);
  }

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
  cuda::DeviceBuffer<long long> block_min_;
  cuda::DeviceBuffer<int> block_count_;
  cuda::DeviceBuffer<unsigned> done_;
  cuda::DeviceBuffer<long long> min_count_;
  cuda::PinnedBuffer<long long> min_count_host_;
  std::unique_ptr<cuda::Event> min_count_ready_;
  cuda::DeviceBuffer<int> selected_;
  cuda::DeviceBuffer<unsigned char> select_temp_;
  cuda::DeviceBuffer<std::int32_t> top_;
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
