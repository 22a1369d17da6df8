#pragma once
// Blocks of arrays gathered in place across ranks: rank r's block of each array (at the sum of
// the counts before r) reaches every rank, where the other blocks are overwritten with the
// owners' values. What the distributed direct sum needs after each rank computed its own
// targets. Host arrays go through the Communicator; device arrays (CUDA builds) through NCCL, or
// staged through host memory and MPI where NCCL is not built or not asked for. Plain C++: no CUDA
// or NCCL types.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "comm/communicator.hpp"

namespace nbody {
class DeviceContext;
}

namespace nbody::comm {

// A gather started by BlockGather::start_gather. wait() returns when the arrays may be used
// (host arrays: arrived; device arrays: later work on the device's stream is ordered after the
// gather); the destructor of an unfinished one waits for it.
class PendingGather {
 public:
  virtual ~PendingGather() = default;
  virtual void wait() = 0;
};

class BlockGather {
 public:
  virtual ~BlockGather() = default;
  [[nodiscard]] virtual std::string name() const = 0;  // "mpi", "nccl", "mpi via host"
  // Each of `arrays` (same layout: counts[r] items of `type` per rank, in rank order).
  virtual void gather_in_place(std::span<void* const> arrays, std::span<const std::int64_t> counts, DataType type) = 0;
  // Starts gathering, in each of `arrays`, rank r's piece of counts[r] items at displs[r], so
  // that the work that follows (the next piece's forces) overlaps it: host arrays through
  // non-blocking MPI collectives, device arrays through NCCL on a second stream that waits for
  // the pieces' kernels (an event) and is waited for by wait(). Through the host (no NCCL) the
  // gather is done before it returns. Every rank starts the same gathers in the same order.
  [[nodiscard]] virtual std::unique_ptr<PendingGather> start_gather(std::span<void* const> arrays,
                                                                    std::span<const std::int64_t> counts,
                                                                    std::span<const std::int64_t> displs,
                                                                    DataType type) = 0;
};

// Host arrays through `c`.
[[nodiscard]] std::unique_ptr<BlockGather> make_host_gather(std::shared_ptr<Communicator> c);

// The CUDA device a rank drives (one GPU per rank): its local rank (among the ranks of its node)
// modulo the devices visible to it (CUDA_VISIBLE_DEVICES applies); 0 in a build without CUDA or
// on a node without devices (where opening it reports why).
[[nodiscard]] int device_ordinal_of_rank(const Communicator& c);

// Whether this build has NCCL.
[[nodiscard]] bool nccl_available() noexcept;

// Device arrays of `device`, ordered on its stream. transport: "nccl" (an input error without
// NCCL, or with more ranks on a node than GPUs), "host" (staged through host memory and `c`), or
// "auto" (NCCL when built and every rank of the node has a GPU of its own, else host).
[[nodiscard]] std::unique_ptr<BlockGather> make_device_gather(std::shared_ptr<Communicator> c,
                                                              std::shared_ptr<DeviceContext> device,
                                                              std::string_view transport = "auto");

}  // namespace nbody::comm
