#include "gravity/direct/distributed.hpp"

#include <array>
#include <string>

#include "nbody/error.hpp"

namespace nbody {

std::vector<std::string> exchange_names() { return {"gather", "pipelined"}; }

Exchange parse_exchange(std::string_view name) {
  if (name == "gather") return Exchange::gather;
  if (name == "pipelined") return Exchange::pipelined;
  throw_input_error("distribution_exchange: unknown '" + std::string(name) + "' (choose gather or pipelined)");
}

template <class T>
DistributedSolver<T>::DistributedSolver(std::unique_ptr<ForceSolver<T>> local, std::shared_ptr<comm::Communicator> comm,
                                        std::unique_ptr<comm::BlockGather> gather, Exchange exchange, int chunks)
    : ForceSolver<T>(local ? local->gravity() : GravityParams{}),
      local_(std::move(local)),
      comm_(std::move(comm)),
      gather_(std::move(gather)) {
  if (!local_ || !comm_ || !gather_) throw_runtime_error("DistributedSolver: needs a solver, a communicator and a gather");
  terms_summed_ = !local_->counts_pairs();
  set_exchange(exchange, chunks);
}

template <class T>
void DistributedSolver<T>::set_exchange(Exchange e, int chunks) {
  if (chunks < 1) throw_input_error("distribution_chunks: must be at least 1 (got " + std::to_string(chunks) + ")");
  exchange_ = e;
  chunks_ = chunks;
}

template <class T>
std::string DistributedSolver<T>::kernel() const {
  return local_->kernel() + " over " + std::to_string(comm_->size()) + " ranks (" + gather_->name() + ")";
}

template <class T>
std::string DistributedSolver<T>::device() const {
  return local_->device() + ", rank " + std::to_string(comm_->rank()) + " of " + std::to_string(comm_->size());
}

template <class T>
void DistributedSolver<T>::local_accelerations(const TargetView<T>& t, const SourceView<T>& s, Vec3Span<T> out) {
  const comm::Block b = comm::block_of(t.n, comm_->size(), comm_->rank());
  if (b.count == 0) return;
  const auto first = static_cast<int>(b.first);
  const TargetView<T> mine{t.x + first, t.y + first, t.z + first, static_cast<int>(b.count),
                           t.self >= 0 ? t.self + first : -1};
  local_->accelerations(mine, s, {out.x + first, out.y + first, out.z + first});
}

template <class T>
void DistributedSolver<T>::gather(Vec3Span<T> out, int n) {
  const auto counts = comm::block_counts(n, comm_->size());
  const std::array<void*, 3> arrays{out.x, out.y, out.z};
  gather_->gather_in_place(arrays, counts, comm::data_type_of<T>());
}

template <class T>
void DistributedSolver<T>::do_accelerations(const TargetView<T>& t, const SourceView<T>& s, Vec3Span<T> out) {
  const std::uint64_t before = local_->interactions();
  if (exchange_ == Exchange::pipelined) {
    pipelined_accelerations(t, s, out);
  } else {
    local_accelerations(t, s, out);
    gather(out, t.n);
    local_->gathered(t, s, out);
  }
  // The terms of the whole pass: every rank's (integers, exact in a double below 2^53). A solver
  // that counts pairs (the direct sums) needs no message: targets x sources.
  if (terms_summed_) last_terms_ = std::uint64_t(comm_->allreduce_sum(double(local_->interactions() - before)));
}

// Piece k of every rank's block is the k-th of `chunks_` sub-blocks of it (comm::block_of again),
// so every rank knows every piece's place and size: the k-th gather moves the k-th pieces of all
// blocks. A piece's targets are summed over all sources exactly as in the whole block.
template <class T>
void DistributedSolver<T>::pipelined_accelerations(const TargetView<T>& t, const SourceView<T>& s, Vec3Span<T> out) {
  const int size = comm_->size(), me = comm_->rank();
  std::vector<comm::Block> blocks(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) blocks[std::size_t(r)] = comm::block_of(t.n, size, r);
  const std::array<void*, 3> arrays{out.x, out.y, out.z};
  std::vector<std::int64_t> counts(blocks.size()), displs(blocks.size());
  std::vector<std::unique_ptr<comm::PendingGather>> pending;
  for (int k = 0; k < chunks_; ++k) {
    std::int64_t total = 0;
    for (std::size_t r = 0; r < blocks.size(); ++r) {
      const comm::Block piece = comm::block_of(blocks[r].count, chunks_, k);
      counts[r] = piece.count;
      displs[r] = blocks[r].first + piece.first;
      total += piece.count;
    }
    if (total == 0) continue;  // the same on every rank: fewer targets than pieces
    const auto first = static_cast<int>(displs[std::size_t(me)]);
    const auto count = static_cast<int>(counts[std::size_t(me)]);
    if (count > 0) {
      const TargetView<T> mine{t.x + first, t.y + first, t.z + first, count, t.self >= 0 ? t.self + first : -1};
      local_->accelerations(mine, s, {out.x + first, out.y + first, out.z + first});
    }
    pending.push_back(gather_->start_gather(arrays, counts, displs, comm::data_type_of<T>()));
  }
  for (auto& p : pending) p->wait();
  local_->gathered(t, s, out);
}

template <class T>
void DistributedSolver<T>::do_acc_jerk(const IndexView& t, const MotionView<T>& s, Vec3Span<T> acc, Vec3Span<T> jerk) {
  // The active targets (compact: entry k is body index[k]) split into blocks like any targets.
  const comm::Block b = comm::block_of(t.count, comm_->size(), comm_->rank());
  if (b.count > 0) {
    const auto k = static_cast<int>(b.first);
    local_->acc_jerk({t.index + k, static_cast<int>(b.count)}, s, {acc.x + k, acc.y + k, acc.z + k},
                     {jerk.x + k, jerk.y + k, jerk.z + k});
  }
  const auto counts = comm::block_counts(t.count, comm_->size());
  const std::array<void*, 6> arrays{acc.x, acc.y, acc.z, jerk.x, jerk.y, jerk.z};
  gather_->gather_in_place(arrays, counts, comm::data_type_of<T>());
}

template <class T>
void DistributedSolver<T>::do_snap_crackle(const MotionView<T>& s, ConstVec3Span<T> acc, ConstVec3Span<T> jerk,
                                           int first, int count, Vec3Span<T> snap, Vec3Span<T> crackle) {
  const comm::Block b = comm::block_of(count, comm_->size(), comm_->rank());
  if (b.count > 0) {
    local_->snap_crackle(s, acc, jerk, snap, crackle, first + static_cast<int>(b.first), static_cast<int>(b.count));
  }
  const auto counts = comm::block_counts(count, comm_->size());
  const std::array<void*, 6> arrays{snap.x + first,    snap.y + first,    snap.z + first,
                                    crackle.x + first, crackle.y + first, crackle.z + first};
  gather_->gather_in_place(arrays, counts, comm::data_type_of<T>());
}

template class DistributedSolver<float>;
template class DistributedSolver<double>;

}  // namespace nbody
