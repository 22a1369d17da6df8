#include "comm/block_gather.hpp"

#include <vector>

#include "nbody/error.hpp"

namespace nbody::comm {
namespace {

class HostPending final : public PendingGather {
 public:
  explicit HostPending(std::vector<std::unique_ptr<Request>> requests) : requests_(std::move(requests)) {}
  void wait() override {
    for (auto& r : requests_) r->wait();
  }

 private:
  std::vector<std::unique_ptr<Request>> requests_;
};

class HostGather final : public BlockGather {
 public:
  explicit HostGather(std::shared_ptr<Communicator> c) : comm_(std::move(c)) {}
  std::string name() const override { return comm_->name(); }
  void gather_in_place(std::span<void* const> arrays, std::span<const std::int64_t> counts, DataType type) override {
    for (void* a : arrays) comm_->allgatherv_in_place(a, counts, type);
  }
  std::unique_ptr<PendingGather> start_gather(std::span<void* const> arrays, std::span<const std::int64_t> counts,
                                              std::span<const std::int64_t> displs, DataType type) override {
    std::vector<std::unique_ptr<Request>> requests;
    for (void* a : arrays) requests.push_back(comm_->iallgatherv_in_place(a, counts, displs, type));
    return std::make_unique<HostPending>(std::move(requests));
  }

 private:
  std::shared_ptr<Communicator> comm_;
};

}  // namespace

std::unique_ptr<BlockGather> make_host_gather(std::shared_ptr<Communicator> c) {
  if (!c) throw_runtime_error("make_host_gather: no communicator");
  return std::make_unique<HostGather>(std::move(c));
}

bool nccl_available() noexcept { return NBODY_HAVE_NCCL != 0; }

#if !NBODY_HAVE_CUDA
int device_ordinal_of_rank(const Communicator&) { return 0; }

std::unique_ptr<BlockGather> make_device_gather(std::shared_ptr<Communicator>, std::shared_ptr<DeviceContext>,
                                                std::string_view) {
  throw_input_error("device: this build of nbody has no CUDA support: no device buffers to gather");
}
#endif

}  // namespace nbody::comm
