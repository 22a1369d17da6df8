#include "comm/communicator.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>

#include "nbody/error.hpp"

namespace nbody::comm {

Block block_of(std::int64_t n, int size, int rank) noexcept {
  const std::int64_t base = n / size, extra = n % size;
  const std::int64_t r = rank;
  return {r * base + std::min(r, extra), base + (r < extra ? 1 : 0)};
}

std::vector<std::int64_t> block_counts(std::int64_t n, int size) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) counts[std::size_t(r)] = block_of(n, size, r).count;
  return counts;
}

std::string Communicator::broadcast_bytes(std::string bytes, int root) {
  const auto length = broadcast_value<std::int64_t>(static_cast<std::int64_t>(bytes.size()), root);
  bytes.resize(static_cast<std::size_t>(length));
  if (length > 0) broadcast(bytes.data(), length, DataType::byte, root);
  return bytes;
}

std::vector<double> Communicator::allreduce_sum(std::span<const double> mine) {
  const std::size_t n = mine.size();
  const std::vector<std::int64_t> counts(static_cast<std::size_t>(size()), static_cast<std::int64_t>(n));
  std::vector<double> all(n * counts.size());
  allgatherv(mine.data(), all.data(), counts, DataType::f64);
  std::vector<double> sum(all.begin(), all.begin() + std::ptrdiff_t(n));
  for (std::size_t r = 1; r < counts.size(); ++r) {
    for (std::size_t i = 0; i < n; ++i) sum[i] += all[r * n + i];
  }
  return sum;
}

std::vector<std::int64_t> Communicator::alltoall_counts(std::span<const std::int64_t> send_counts) {
  if (send_counts.size() != std::size_t(size())) {
    throw_runtime_error("alltoall_counts: " + std::to_string(send_counts.size()) + " counts for " +
                        std::to_string(size()) + " ranks");
  }
  std::vector<std::int64_t> recv(send_counts.size());
  const std::vector<std::int64_t> ones(send_counts.size(), 1);
  alltoallv(send_counts.data(), ones, recv.data(), ones, DataType::i64);
  return recv;
}

// ---- one process ----

std::shared_ptr<Communicator> NullCommunicator::split(bool member) {
  return member ? std::make_shared<NullCommunicator>() : nullptr;
}

void NullCommunicator::broadcast(void*, std::int64_t, DataType, int root) {
  if (root != 0) throw_runtime_error("broadcast: root " + std::to_string(root) + " is not a rank of 1");
}

void NullCommunicator::allgatherv(const void* send, void* recv, std::span<const std::int64_t> counts, DataType type) {
  if (counts.size() != 1) throw_runtime_error("allgatherv: " + std::to_string(counts.size()) + " counts for 1 rank");
  if (counts[0] > 0 && send != recv) std::memmove(recv, send, std::size_t(counts[0]) * size_of(type));
}

void NullCommunicator::allgatherv_in_place(void*, std::span<const std::int64_t> counts, DataType) {
  if (counts.size() != 1) throw_runtime_error("allgatherv: " + std::to_string(counts.size()) + " counts for 1 rank");
}

namespace {
class DoneRequest final : public Request {
 public:
  void wait() override {}
};
}  // namespace

std::unique_ptr<Request> NullCommunicator::ibroadcast(void* data, std::int64_t count, DataType type, int root) {
  broadcast(data, count, type, root);
  return std::make_unique<DoneRequest>();
}

std::unique_ptr<Request> NullCommunicator::iallgatherv_in_place(void*, std::span<const std::int64_t> counts,
                                                                std::span<const std::int64_t> displs, DataType) {
  if (counts.size() != 1 || displs.size() != 1) {
    throw_runtime_error("iallgatherv: " + std::to_string(counts.size()) + " counts for 1 rank");
  }
  return std::make_unique<DoneRequest>();  // one rank: its piece is already in place
}

void NullCommunicator::alltoallv(const void* send, std::span<const std::int64_t> send_counts, void* recv,
                                 std::span<const std::int64_t> recv_counts, DataType type) {
  if (send_counts.size() != 1 || recv_counts.size() != 1 || send_counts[0] != recv_counts[0]) {
    throw_runtime_error("alltoallv: counts for " + std::to_string(send_counts.size()) + " ranks, or unequal, for 1 rank");
  }
  if (send_counts[0] > 0 && send != recv) std::memmove(recv, send, std::size_t(send_counts[0]) * size_of(type));
}

void NullCommunicator::send(const void*, std::int64_t, DataType, int dest, int) {
  throw_runtime_error("send: rank " + std::to_string(dest) + " does not exist in a run of one process");
}

void NullCommunicator::recv(void*, std::int64_t, DataType, int source, int) {
  throw_runtime_error("recv: rank " + std::to_string(source) + " does not exist in a run of one process");
}

std::unique_ptr<Request> NullCommunicator::isend(const void*, std::int64_t, DataType, int dest, int) {
  throw_runtime_error("isend: rank " + std::to_string(dest) + " does not exist in a run of one process");
}

std::unique_ptr<Request> NullCommunicator::irecv(void*, std::int64_t, DataType, int source, int) {
  throw_runtime_error("irecv: rank " + std::to_string(source) + " does not exist in a run of one process");
}

std::optional<bool> cuda_aware_override() {
  const char* v = std::getenv("NBODY_MPI_CUDA_AWARE");
  if (v == nullptr || *v == '\0') return std::nullopt;
  const std::string s(v);
  if (s == "1") return true;
  if (s == "0") return false;
  throw_input_error("NBODY_MPI_CUDA_AWARE: '" + s + "' is neither 1 (the MPI library takes GPU buffers) nor 0 (it does "
                    "not); unset it to ask the library");
}

DeviceBufferSupport device_buffer_support_everywhere(Communicator& comm) {
  DeviceBufferSupport mine = comm.device_buffer_support();
  const bool everywhere = comm.allreduce_max(mine.supported ? 0.0 : 1.0) == 0.0;
  if (mine.supported && !everywhere) return {false, "another rank's MPI library reports no CUDA support"};
  return mine;
}

// ---- the process's communicator ----

namespace {
std::mutex g_world_mutex;
std::shared_ptr<Communicator>& world_slot() {
  static std::shared_ptr<Communicator> slot = std::make_shared<NullCommunicator>();
  return slot;
}
}  // namespace

Communicator& world() { return *world_shared(); }

std::shared_ptr<Communicator> world_shared() {
  std::lock_guard lock(g_world_mutex);
  return world_slot();
}

WorldScope::WorldScope(std::shared_ptr<Communicator> c) {
  if (!c) throw_runtime_error("WorldScope: no communicator");
  std::lock_guard lock(g_world_mutex);
  previous_ = std::exchange(world_slot(), std::move(c));
}

WorldScope::~WorldScope() {
  std::lock_guard lock(g_world_mutex);
  world_slot() = std::move(previous_);
}

}  // namespace nbody::comm
