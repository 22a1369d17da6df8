#pragma once
// The direct sum over rank-owned bodies (comm/owned_bodies.hpp): no rank holds the whole state.
// Each rank sends the positions and masses of its bodies to the ranks of their id blocks
// (comm::id_block: contiguous ids, each block starting at a multiple of direct::kStreamAlign), so
// that rank r holds the sources of block r in id order. The blocks are then streamed: rank 0's
// block is broadcast to every rank, then rank 1's, ..., and every rank adds each block's pulls to
// the running sums of its own targets. Every target thus sums the sources in global id order in
// the pieces of the single-process loop, whatever rank owns it and however many ranks there are:
// the float32, mixed and float64-oracle kernels give the single-process solver's bits, and the
// float64 SIMD kernel the same bits on any number of ranks (summed in chunks of 256; see
// gravity/direct/cpu_direct.hpp).
//
// Cost per pass (N bodies, P ranks): one alltoallv of 4 values (+ an id) per body to the id
// blocks, then P broadcasts of one block each (4 N / P values): every rank receives 4 N values,
// as an allgather of the positions and masses would bring, in P messages. Memory per rank: its
// own block and one block in flight (8 N / P values) and three float64 running sums per owned
// target; never the whole state. Why broadcasts in turn and not a ring: a ring hands rank q the
// blocks q, q + 1, ..., so its targets would sum the sources in an order that depends on q; a
// broadcast in rank order is the id order on every rank.
//
// The seam for GPU ranks: SourceStream delivers the blocks (here host buffers over MPI
// broadcasts); a device stream over NCCL broadcasts into device buffers, with the CUDA kernel
// continuing its running sums per block, is the GPU version. Until it is written a GPU rank keeps
// the replicated gather path (gravity/direct/distributed.hpp).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "comm/owned_bodies.hpp"
#include "gravity/params.hpp"
#include "particles/views.hpp"

namespace nbody {

// The CPU kernels a pass can run (as the single-process solvers: reference = the float64 oracle,
// simd = pair terms in T, mixed = float32 terms summed in float64, T = double only).
enum class OwnedKernel { reference, simd, mixed };

// Delivers every id block of sources, in rank (= id) order, to a callback: the piece and the id
// of its first body.
template <class T>
class SourceStream {
 public:
  virtual ~SourceStream() = default;
  using Visit = std::function<void(const SourceView<T>& piece, std::int64_t first)>;
  // `mine`: this rank's block (x, y, z, m in id order, starting at id `first`).
  virtual void stream(const std::vector<std::vector<T>>& mine, std::int64_t first, std::int64_t n, const Visit& visit) = 0;
  [[nodiscard]] virtual std::string name() const = 0;
};

// Host buffers: each block broadcast by its rank in turn (MPI_Bcast through the Communicator).
template <class T>
[[nodiscard]] std::unique_ptr<SourceStream<T>> make_broadcast_stream(std::shared_ptr<comm::Communicator> c);

template <class T>
class OwnedDirectSum {
 public:
  OwnedDirectSum(std::shared_ptr<comm::Communicator> c, const GravityParams& g, OwnedKernel kernel);

  // The accelerations of this rank's bodies (in their order) from every body of the run; sets
  // each body's work to the pairs it summed (n_total - 1). Collective.
  void accelerations(comm::OwnedBodies<T>& b, Vec3Span<T> out);
  // W = 1/2 G sum_i m_i phi_i over every body, the same value on every rank: phi streamed like the
  // accelerations, the terms m_i phi_i added in id order (comm::chained_sum). Collective.
  [[nodiscard]] double potential_energy(const comm::OwnedBodies<T>& b);

  // Per pass: values received by this rank (the id-block exchange and the broadcasts) and messages.
  struct Traffic {
    std::int64_t values_received = 0;
    std::int64_t broadcasts = 0;
  };
  [[nodiscard]] const Traffic& last_traffic() const noexcept { return traffic_; }

 private:
  std::shared_ptr<comm::Communicator> comm_;
  GravityParams g_;
  OwnedKernel kernel_;
  std::unique_ptr<SourceStream<T>> stream_;
  Traffic traffic_;

  // This rank's id block of x, y, z, m and its first id.
  std::pair<std::vector<std::vector<T>>, std::int64_t> sources_by_id(const comm::OwnedBodies<T>& b);
};

extern template class OwnedDirectSum<float>;
extern template class OwnedDirectSum<double>;

}  // namespace nbody
