#pragma once
// The processes of a run and what they say to each other: rank, size, barrier, gathers,
// broadcasts, reductions in a fixed order and point-to-point messages, on host memory. One
// interface, two implementations: NullCommunicator (one process: every collective is a copy or
// nothing) and MpiCommunicator (comm/mpi_communicator.hpp, NBODY_ENABLE_MPI). Device buffers go
// through comm/device_gather.hpp (NCCL, or MPI staged through the host), or straight to send /
// recv / isend / irecv where device_buffer_support() says the transport takes them (CUDA-aware
// MPI).
//
// Determinism: no collective here sums floating-point numbers in an order that depends on the
// transport. allreduce_sum gathers every rank's values to every rank and adds them in rank
// order, so the result has the same bits on every rank and in every run.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace nbody::comm {

// Element types of the collectives (what MPI and NCCL must know to move them).
enum class DataType { byte, i32, i64, u64, f32, f64 };

[[nodiscard]] constexpr std::size_t size_of(DataType t) noexcept {
  switch (t) {
    case DataType::byte: return 1;
    case DataType::i32:
    case DataType::f32: return 4;
    case DataType::i64:
    case DataType::u64:
    case DataType::f64: return 8;
  }
  return 1;
}

template <class T>
[[nodiscard]] constexpr DataType data_type_of() noexcept {
  if constexpr (std::is_same_v<T, float>) return DataType::f32;
  else if constexpr (std::is_same_v<T, double>) return DataType::f64;
  else if constexpr (std::is_same_v<T, std::int32_t>) return DataType::i32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return DataType::i64;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return DataType::u64;
  else {
    static_assert(std::is_trivially_copyable_v<T>, "collectives move trivially copyable values");
    return DataType::byte;
  }
}

// The contiguous block of n items that rank `rank` of `size` owns: the first n % size ranks
// hold one more than the others, so the blocks tile [0, n) in rank order.
struct Block {
  std::int64_t first = 0;
  std::int64_t count = 0;
};
[[nodiscard]] Block block_of(std::int64_t n, int size, int rank) noexcept;
// Every rank's count, in rank order.
[[nodiscard]] std::vector<std::int64_t> block_counts(std::int64_t n, int size);

// A collective or message started and not yet finished (non-blocking). wait() returns when it is
// done (a runtime error when it failed); the destructor of an unfinished request waits for it.
class Request {
 public:
  virtual ~Request() = default;
  virtual void wait() = 0;
};

// Whether point-to-point messages may be handed device (CUDA) pointers, and how that was decided
// (for messages to the user).
struct DeviceBufferSupport {
  bool supported = false;
  std::string how;
};

// The environment's word on CUDA-aware MPI: NBODY_MPI_CUDA_AWARE = "1" (the library takes device
// pointers though it does not report it), "0" (never hand it device pointers), unset or empty
// (ask the library). Any other value is an input error naming the variable.
[[nodiscard]] std::optional<bool> cuda_aware_override();

class Communicator;
// Whether every rank of `comm` may hand device pointers to its messages (collective: every rank
// asks together, so that none hands device buffers to a neighbour that stages through the host),
// and why not where one may not: this rank's reason, or that another rank's library reports no
// CUDA support.
[[nodiscard]] DeviceBufferSupport device_buffer_support_everywhere(Communicator& comm);

class Communicator {
 public:
  virtual ~Communicator() = default;

  [[nodiscard]] virtual int rank() const noexcept = 0;
  [[nodiscard]] virtual int size() const noexcept = 0;
  // The rank among the processes of this node, and their count (a GPU per local rank).
  [[nodiscard]] virtual int local_rank() const noexcept = 0;
  [[nodiscard]] virtual int local_size() const noexcept = 0;
  [[nodiscard]] virtual std::string name() const = 0;  // "null", "mpi"
  // For libraries that take the transport's own communicator (parallel HDF5's MPI-IO): the
  // address of the MPI_Comm of an MPI communicator, null for the others.
  [[nodiscard]] virtual const void* native_handle() const noexcept { return nullptr; }

  virtual void barrier() = 0;
  // A communicator of the ranks that pass member = true, ranked as here (collective: every rank
  // calls it); null on the others. For measuring 1..P ranks within one launch.
  [[nodiscard]] virtual std::shared_ptr<Communicator> split(bool member) = 0;
  // root's `count` items of `data` to every rank.
  virtual void broadcast(void* data, std::int64_t count, DataType type, int root) = 0;
  // The same, non-blocking: every rank starts the same broadcasts in the same order, and `data`
  // is not touched by the caller until the request is waited for.
  [[nodiscard]] virtual std::unique_ptr<Request> ibroadcast(void* data, std::int64_t count, DataType type,
                                                            int root) = 0;
  // Every rank's `send` (counts[rank] items) into `recv`, blocks in rank order (counts has
  // size() entries; recv holds their sum).
  virtual void allgatherv(const void* send, void* recv, std::span<const std::int64_t> counts, DataType type) = 0;
  // The same with rank r's block already in place in `data` at the sum of counts[0..r).
  virtual void allgatherv_in_place(void* data, std::span<const std::int64_t> counts, DataType type) = 0;
  // Non-blocking in-place gather of pieces at any place: rank r's counts[r] items at offset
  // displs[r] of `data` reach every rank (where `data` at the other ranks' pieces is overwritten).
  // Every rank starts the same requests in the same order; `data` is not touched by the caller
  // until the request is waited for. The counts are copied (the caller's spans may go).
  [[nodiscard]] virtual std::unique_ptr<Request> iallgatherv_in_place(void* data, std::span<const std::int64_t> counts,
                                                                      std::span<const std::int64_t> displs,
                                                                      DataType type) = 0;
  // Element-wise maximum over the ranks (exact: no rounding, so no order to fix).
  virtual void allreduce_max(double* data, std::int64_t count) = 0;
  // Personalised exchange (migration, redistribution): `send` holds send_counts[q] items for
  // rank q, in rank order; `recv` gets recv_counts[q] items from rank q, in rank order. Both count
  // arrays have size() entries and must match the peers' (alltoall_counts gives them).
  virtual void alltoallv(const void* send, std::span<const std::int64_t> send_counts, void* recv,
                         std::span<const std::int64_t> recv_counts, DataType type) = 0;
  // Point to point (halos, migration): blocking, matched by (peer, tag).
  virtual void send(const void* data, std::int64_t count, DataType type, int dest, int tag) = 0;
  virtual void recv(void* data, std::int64_t count, DataType type, int source, int tag) = 0;
  // The same, non-blocking: the message is under way until the request's wait() returns (`data`
  // untouched by the caller meanwhile), so a rank can post every receive and send of a step
  // before waiting for any (no order among the neighbours to keep).
  [[nodiscard]] virtual std::unique_ptr<Request> isend(const void* data, std::int64_t count, DataType type, int dest,
                                                       int tag) = 0;
  [[nodiscard]] virtual std::unique_ptr<Request> irecv(void* data, std::int64_t count, DataType type, int source,
                                                       int tag) = 0;
  // Whether send / recv / isend / irecv take device (CUDA) pointers: an MPI library that reports
  // CUDA support at run time (Open MPI's MPIX_Query_cuda_support, MPICH's MPIX_GPU_query_support),
  // or NBODY_MPI_CUDA_AWARE=1 for one that is CUDA-aware without saying so (=0: never). false for
  // one process, which sends nothing. Asked when needed (MPI must be running), not cached.
  [[nodiscard]] virtual DeviceBufferSupport device_buffer_support() const { return {false, "no transport for device buffers"}; }
  [[nodiscard]] bool device_buffers_supported() const { return device_buffer_support().supported; }

  // ---- typed helpers (written once over the virtual calls) ----
  template <class T>
  [[nodiscard]] std::unique_ptr<Request> ibroadcast(std::span<T> data, int root) {
    return ibroadcast(data.data(), static_cast<std::int64_t>(data.size()), data_type_of<T>(), root);
  }
  template <class T>
  void broadcast(std::span<T> data, int root) {
    broadcast(data.data(), static_cast<std::int64_t>(data.size()), data_type_of<T>(), root);
  }
  template <class T>
  [[nodiscard]] T broadcast_value(T value, int root) {
    broadcast(&value, 1, data_type_of<T>(), root);
    return value;
  }
  // root's bytes to every rank (the size first).
  [[nodiscard]] std::string broadcast_bytes(std::string bytes, int root);
  // One value from every rank, in rank order.
  template <class T>
  [[nodiscard]] std::vector<T> allgather_value(const T& value) {
    std::vector<T> all(static_cast<std::size_t>(size()));
    const std::vector<std::int64_t> ones(all.size(), std::int64_t{sizeof(T) / size_of(data_type_of<T>())});
    allgatherv(&value, all.data(), ones, data_type_of<T>());
    return all;
  }
  // Every rank's vector, concatenated in rank order.
  template <class T>
  [[nodiscard]] std::vector<T> allgatherv(std::span<const T> mine) {
    const auto counts = allgather_value<std::int64_t>(static_cast<std::int64_t>(mine.size()));
    std::int64_t total = 0;
    for (auto c : counts) total += c;
    std::vector<T> all(static_cast<std::size_t>(total));
    allgatherv(mine.data(), all.data(), counts, data_type_of<T>());
    return all;
  }
  // What every rank sends to this one, from what this one sends to every rank (send_counts has
  // size() entries).
  [[nodiscard]] std::vector<std::int64_t> alltoall_counts(std::span<const std::int64_t> send_counts);
  // Items of `send`, send_counts[q] of them for rank q (in rank order), to their ranks: what this
  // rank receives, in rank order (and its per-rank counts in `recv_counts` when not null).
  template <class T>
  [[nodiscard]] std::vector<T> alltoallv(std::span<const T> send, std::span<const std::int64_t> send_counts,
                                         std::vector<std::int64_t>* recv_counts = nullptr) {
    std::vector<std::int64_t> rc = alltoall_counts(send_counts);
    std::int64_t total = 0;
    for (auto c : rc) total += c;
    std::vector<T> recv(static_cast<std::size_t>(total));
    constexpr auto words = std::int64_t(sizeof(T) / size_of(data_type_of<T>()));
    if constexpr (words == 1) {
      alltoallv(send.data(), send_counts, recv.data(), rc, data_type_of<T>());
    } else {
      std::vector<std::int64_t> sw(send_counts.begin(), send_counts.end()), rw(rc);
      for (auto& c : sw) c *= words;
      for (auto& c : rw) c *= words;
      alltoallv(send.data(), sw, recv.data(), rw, data_type_of<T>());
    }
    if (recv_counts != nullptr) *recv_counts = std::move(rc);
    return recv;
  }
  // Element-wise sums over the ranks in rank order (the same bits on every rank, for any
  // transport): every rank's values are gathered, then added rank 0 first.
  [[nodiscard]] std::vector<double> allreduce_sum(std::span<const double> mine);
  [[nodiscard]] double allreduce_sum(double mine) { return allreduce_sum(std::span<const double>(&mine, 1))[0]; }
  [[nodiscard]] double allreduce_max(double mine) {
    allreduce_max(&mine, 1);
    return mine;
  }
};

// One process: rank 0 of 1; collectives copy or do nothing.
class NullCommunicator final : public Communicator {
 public:
  int rank() const noexcept override { return 0; }
  int size() const noexcept override { return 1; }
  int local_rank() const noexcept override { return 0; }
  int local_size() const noexcept override { return 1; }
  std::string name() const override { return "null"; }
  void barrier() override {}
  std::shared_ptr<Communicator> split(bool member) override;
  void broadcast(void*, std::int64_t, DataType, int root) override;
  std::unique_ptr<Request> ibroadcast(void*, std::int64_t, DataType, int root) override;
  void allgatherv(const void* send, void* recv, std::span<const std::int64_t> counts, DataType type) override;
  void allgatherv_in_place(void*, std::span<const std::int64_t> counts, DataType) override;
  std::unique_ptr<Request> iallgatherv_in_place(void*, std::span<const std::int64_t> counts,
                                                std::span<const std::int64_t> displs, DataType) override;
  void allreduce_max(double*, std::int64_t) override {}
  void alltoallv(const void* send, std::span<const std::int64_t> send_counts, void* recv,
                 std::span<const std::int64_t> recv_counts, DataType type) override;
  void send(const void*, std::int64_t, DataType, int dest, int tag) override;
  void recv(void*, std::int64_t, DataType, int source, int tag) override;
  std::unique_ptr<Request> isend(const void*, std::int64_t, DataType, int dest, int tag) override;
  std::unique_ptr<Request> irecv(void*, std::int64_t, DataType, int source, int tag) override;
  // (NBODY_MPI_CUDA_AWARE does not apply: one process has no neighbour to send to)
  DeviceBufferSupport device_buffer_support() const override {
    return {false, "there is no MPI (one process, not started by an MPI launcher)"};
  }
};

// ---- the process's communicator ----------------------------------------------------------
// The run's ranks are a property of the process (MPI_COMM_WORLD is), so the engine asks here
// which it is: a NullCommunicator unless a WorldScope (the program's MpiSession) installed one.
[[nodiscard]] Communicator& world();
[[nodiscard]] std::shared_ptr<Communicator> world_shared();

// Installs `c` as the process's communicator for the scope's life (the previous one after).
class WorldScope {
 public:
  explicit WorldScope(std::shared_ptr<Communicator> c);
  ~WorldScope();
  WorldScope(const WorldScope&) = delete;
  WorldScope& operator=(const WorldScope&) = delete;

 private:
  std::shared_ptr<Communicator> previous_;
};

}  // namespace nbody::comm
