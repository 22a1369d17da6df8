// Device arrays gathered in place across ranks: NCCL (one group of collectives on the device's
// stream), or staged through host memory and the Communicator (MPI that is not CUDA-aware).
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "comm/block_gather.hpp"
#include "cuda/check.hpp"
#include "cuda/context.hpp"
#include "nbody/error.hpp"

#if NBODY_HAVE_NCCL
#include <nccl.h>
#endif

namespace nbody::comm {
namespace {

std::vector<std::int64_t> offsets_of(std::span<const std::int64_t> counts) {
  std::vector<std::int64_t> at(counts.size() + 1, 0);
  for (std::size_t r = 0; r < counts.size(); ++r) at[r + 1] = at[r] + counts[r];
  return at;
}

class DonePending final : public PendingGather {
 public:
  void wait() override {}
};

// Own block down to the host, gathered there by the Communicator, everything back up.
class StagedGather final : public BlockGather {
 public:
  StagedGather(std::shared_ptr<Communicator> c, std::shared_ptr<DeviceContext> device)
      : comm_(std::move(c)), device_(std::move(device)), stream_(static_cast<cudaStream_t>(device_->stream())) {}
  std::string name() const override { return comm_->name() + " via host"; }

  void gather_in_place(std::span<void* const> arrays, std::span<const std::int64_t> counts, DataType type) override {
    const auto at = offsets_of(counts);
    const std::size_t item = size_of(type), rank = std::size_t(comm_->rank());
    staging_.resize(arrays.size());
    device_->make_current();
    for (std::size_t k = 0; k < arrays.size(); ++k) {
      staging_[k].resize(std::size_t(at.back()) * item);
      auto* dev = static_cast<char*>(arrays[k]);
      const std::size_t first = std::size_t(at[rank]) * item, bytes = std::size_t(counts[rank]) * item;
      if (bytes > 0) {
        NBODY_CUDA_CHECK(cudaMemcpyAsync(staging_[k].data() + first, dev + first, bytes, cudaMemcpyDeviceToHost, stream_));
      }
    }
    NBODY_CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (auto& host : staging_) comm_->allgatherv_in_place(host.data(), counts, type);
    for (std::size_t k = 0; k < arrays.size(); ++k) {
      NBODY_CUDA_CHECK(cudaMemcpyAsync(arrays[k], staging_[k].data(), staging_[k].size(), cudaMemcpyHostToDevice, stream_));
    }
    NBODY_CUDA_CHECK(cudaStreamSynchronize(stream_));  // before the staging buffers are reused
  }

  // Through the host there is nothing to overlap with: the pieces are gathered before it returns.
  std::unique_ptr<PendingGather> start_gather(std::span<void* const> arrays, std::span<const std::int64_t> counts,
                                              std::span<const std::int64_t> displs, DataType type) override {
    const std::size_t item = size_of(type), rank = std::size_t(comm_->rank());
    std::int64_t end = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) end = std::max(end, displs[r] + counts[r]);
    staging_.resize(arrays.size());
    device_->make_current();
    for (std::size_t k = 0; k < arrays.size(); ++k) {
      staging_[k].resize(std::size_t(end) * item);
      const std::size_t first = std::size_t(displs[rank]) * item, bytes = std::size_t(counts[rank]) * item;
      if (bytes > 0) {
        NBODY_CUDA_CHECK(cudaMemcpyAsync(staging_[k].data() + first, static_cast<char*>(arrays[k]) + first, bytes,
                                         cudaMemcpyDeviceToHost, stream_));
      }
    }
    NBODY_CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (auto& host : staging_) comm_->iallgatherv_in_place(host.data(), counts, displs, type)->wait();
    for (std::size_t k = 0; k < arrays.size(); ++k) {
      for (std::size_t r = 0; r < counts.size(); ++r) {
        if (r == rank || counts[r] == 0) continue;
        const std::size_t first = std::size_t(displs[r]) * item, bytes = std::size_t(counts[r]) * item;
        NBODY_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(arrays[k]) + first, staging_[k].data() + first, bytes,
                                         cudaMemcpyHostToDevice, stream_));
      }
    }
    NBODY_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return std::make_unique<DonePending>();
  }

 private:
  std::shared_ptr<Communicator> comm_;
  std::shared_ptr<DeviceContext> device_;
  cudaStream_t stream_;
  std::vector<std::vector<char>> staging_;
};

#if NBODY_HAVE_NCCL
void check_nccl(ncclResult_t r, const char* call) {
  if (r != ncclSuccess) throw_runtime_error(std::string("NCCL: ") + call + " failed: " + ncclGetErrorString(r));
}
#define NBODY_NCCL_CHECK(call) check_nccl((call), #call)

ncclDataType_t nccl_type(DataType t) {
  switch (t) {
    case DataType::byte: return ncclUint8;
    case DataType::i32: return ncclInt32;
    case DataType::i64: return ncclInt64;
    case DataType::u64: return ncclUint64;
    case DataType::f32: return ncclFloat32;
    case DataType::f64: return ncclFloat64;
  }
  return ncclUint8;
}

// One NCCL communicator over the ranks of `c`, each on its own device. Equal blocks: an in-place
// ncclAllGather per array; unequal ones: a broadcast from each owner (NCCL has no allgatherv),
// all of them in one group. NCCL's own environment (NCCL_NVLS_ENABLE and the others) is left as
// the user set it.
class NcclGather final : public BlockGather {
 public:
  NcclGather(std::shared_ptr<Communicator> c, std::shared_ptr<DeviceContext> device)
      : comm_(std::move(c)), device_(std::move(device)), stream_(static_cast<cudaStream_t>(device_->stream())) {
    device_->make_current();
    ncclUniqueId id{};
    if (comm_->rank() == 0) NBODY_NCCL_CHECK(ncclGetUniqueId(&id));
    comm_->broadcast(&id, sizeof id, DataType::byte, 0);
    NBODY_NCCL_CHECK(ncclCommInitRank(&nccl_, comm_->size(), id, comm_->rank()));
  }
  ~NcclGather() override {
    if (nccl_ != nullptr) ncclCommDestroy(nccl_);  // nothing to report to in a destructor
    if (comm_stream_ != nullptr) cudaStreamDestroy(comm_stream_);
  }
  NcclGather(const NcclGather&) = delete;
  NcclGather& operator=(const NcclGather&) = delete;

  std::string name() const override { return "nccl"; }

  void gather_in_place(std::span<void* const> arrays, std::span<const std::int64_t> counts, DataType type) override {
    if (counts.size() != std::size_t(comm_->size())) throw_runtime_error("NCCL: gather: one count per rank expected");
    const auto at = offsets_of(counts);
    const std::size_t item = size_of(type);
    bool equal = true;
    for (auto n : counts) equal = equal && n == counts[0];
    device_->make_current();
    // Every call of the group is checked; the group is closed whatever happened inside it.
    ncclResult_t first_error = ncclSuccess;
    const char* failed = nullptr;
    auto note = [&](ncclResult_t r, const char* call) {
      if (r != ncclSuccess && first_error == ncclSuccess) first_error = r, failed = call;
    };
    NBODY_NCCL_CHECK(ncclGroupStart());
    for (void* a : arrays) {
      auto* base = static_cast<char*>(a);
      if (equal) {
        const std::size_t n = std::size_t(counts[0]);
        if (n == 0) continue;
        note(ncclAllGather(base + std::size_t(at[std::size_t(comm_->rank())]) * item, base, n, nccl_type(type), nccl_,
                           stream_),
             "ncclAllGather");
      } else {
        for (std::size_t r = 0; r < counts.size(); ++r) {
          if (counts[r] == 0) continue;
          char* block = base + std::size_t(at[r]) * item;
          note(ncclBroadcast(block, block, std::size_t(counts[r]), nccl_type(type), int(r), nccl_, stream_),
               "ncclBroadcast");
        }
      }
    }
    NBODY_NCCL_CHECK(ncclGroupEnd());
    if (first_error != ncclSuccess) check_nccl(first_error, failed);
  }

  // The pieces' broadcasts in one group on a second stream, which first waits for the work
  // enqueued so far on the device's stream (the pieces' kernels); wait() orders the device's
  // stream after the group. The host never blocks: the next piece's kernel runs beside it.
  std::unique_ptr<PendingGather> start_gather(std::span<void* const> arrays, std::span<const std::int64_t> counts,
                                              std::span<const std::int64_t> displs, DataType type) override {
    if (counts.size() != std::size_t(comm_->size()) || displs.size() != counts.size()) {
      throw_runtime_error("NCCL: gather: one count and one displacement per rank expected");
    }
    device_->make_current();
    if (comm_stream_ == nullptr) NBODY_CUDA_CHECK(cudaStreamCreateWithFlags(&comm_stream_, cudaStreamNonBlocking));
    auto pending = std::make_unique<NcclPending>(stream_);
    NBODY_CUDA_CHECK(cudaEventCreateWithFlags(&pending->ready, cudaEventDisableTiming));
    NBODY_CUDA_CHECK(cudaEventCreateWithFlags(&pending->done, cudaEventDisableTiming));
    NBODY_CUDA_CHECK(cudaEventRecord(pending->ready, stream_));
    NBODY_CUDA_CHECK(cudaStreamWaitEvent(comm_stream_, pending->ready, 0));
    const std::size_t item = size_of(type);
    ncclResult_t first_error = ncclSuccess;
    const char* failed = nullptr;
    NBODY_NCCL_CHECK(ncclGroupStart());
    for (void* a : arrays) {
      for (std::size_t r = 0; r < counts.size(); ++r) {
        if (counts[r] == 0) continue;
        char* piece = static_cast<char*>(a) + std::size_t(displs[r]) * item;
        const ncclResult_t res =
            ncclBroadcast(piece, piece, std::size_t(counts[r]), nccl_type(type), int(r), nccl_, comm_stream_);
        if (res != ncclSuccess && first_error == ncclSuccess) first_error = res, failed = "ncclBroadcast";
      }
    }
    NBODY_NCCL_CHECK(ncclGroupEnd());
    if (first_error != ncclSuccess) check_nccl(first_error, failed);
    NBODY_CUDA_CHECK(cudaEventRecord(pending->done, comm_stream_));
    return pending;
  }

 private:
  struct NcclPending final : public PendingGather {
    explicit NcclPending(cudaStream_t s) : stream(s) {}
    ~NcclPending() override {
      if (!waited && done != nullptr) cudaStreamWaitEvent(stream, done, 0);  // nothing to report to here
      if (ready != nullptr) cudaEventDestroy(ready);
      if (done != nullptr) cudaEventDestroy(done);
    }
    void wait() override {
      NBODY_CUDA_CHECK(cudaStreamWaitEvent(stream, done, 0));
      waited = true;
    }
    cudaStream_t stream;
    cudaEvent_t ready = nullptr, done = nullptr;
    bool waited = false;
  };

  std::shared_ptr<Communicator> comm_;
  std::shared_ptr<DeviceContext> device_;
  cudaStream_t stream_;
  cudaStream_t comm_stream_ = nullptr;
  ncclComm_t nccl_ = nullptr;
};
#endif

}  // namespace

int device_ordinal_of_rank(const Communicator& c) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) {
    (void)cudaGetLastError();  // no device: DeviceContext::open reports it with its reason
    return 0;
  }
  return c.local_rank() % count;
}

std::unique_ptr<BlockGather> make_device_gather(std::shared_ptr<Communicator> c, std::shared_ptr<DeviceContext> device,
                                                std::string_view transport) {
  if (!c || !device) throw_runtime_error("make_device_gather: needs a communicator and a device");
  if (transport == "nccl" && !nccl_available()) {
    throw_input_error("transport: nccl is not in this build of nbody (configure with -DNBODY_ENABLE_NCCL=ON on a "
                      "machine with NCCL)");
  }
  if (transport != "auto" && transport != "nccl" && transport != "host") {
    throw_input_error("transport: unknown '" + std::string(transport) + "' (choose auto, nccl or host)");
  }
  // NCCL needs one device per rank: with more ranks on a node than devices (ranks sharing a GPU,
  // as in tests with more ranks than GPUs), `auto` stages through the host instead.
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) {
    (void)cudaGetLastError();
    devices = 0;
  }
  const bool shared = c->local_size() > devices;
  if (transport == "nccl" && shared) {
    throw_input_error("transport: nccl needs one GPU per rank (" + std::to_string(c->local_size()) +
                      " ranks on this node, " + std::to_string(devices) + " GPUs)");
  }
#if NBODY_HAVE_NCCL
  if (transport != "host" && !shared) return std::make_unique<NcclGather>(std::move(c), std::move(device));
#endif
  return std::make_unique<StagedGather>(std::move(c), std::move(device));
}

}  // namespace nbody::comm
