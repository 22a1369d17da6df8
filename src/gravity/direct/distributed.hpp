#pragma once
// The direct sum spread over the ranks of a run (MPI processes, one GPU or a share of the CPU
// each). Every rank holds every body (the state is replicated: direct summation needs every
// source on every rank anyway), computes the accelerations of its own contiguous block of
// targets (comm::block_of: N/P, the first N % P ranks one more) from all N sources with the
// single-process solver it wraps, and the blocks are gathered in place so that every rank ends
// the pass with every acceleration. The kick and drift that follow are the same element-wise
// operations on the same bits on every rank, so the states stay identical without further
// messages.
//
// Same bits for any number of ranks: the wrapped solver sums each target over the same full
// source set in its own fixed order whatever slice of targets it is handed (the CPU loops give a
// target to one thread and sum its sources in index order; the CUDA kernel's launch shape is
// chosen from the full N when the solver is made, and a target's sum depends on the shape and the
// sources only). Gathers move bits, never add them. The potential energy is computed whole by
// every rank (no sum across ranks), so the diagnostics have the single-process bits too.
//
// The exchange (--distribution-exchange): "gather" computes the rank's whole block, then gathers
// every block; "pipelined" computes the block in `chunks` pieces and starts the gather of piece k
// (non-blocking: MPI_Iallgatherv on host arrays, NCCL on a second stream for device arrays) before
// computing piece k + 1, so the communication hides behind the compute of the pieces after it.
// The same targets get the same sums either way: the two give the same bits. Hermite's acc_jerk
// passes (active subsets, usually small) use the plain gather under both.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "comm/block_gather.hpp"
#include "comm/communicator.hpp"
#include "gravity/solver.hpp"

namespace nbody {

enum class Exchange { gather, pipelined };
[[nodiscard]] std::vector<std::string> exchange_names();  // "gather", "pipelined"
// An input error naming the choices for another name.
[[nodiscard]] Exchange parse_exchange(std::string_view name);
inline constexpr int kDefaultExchangeChunks = 4;

template <class T>
class DistributedSolver final : public ForceSolver<T> {
 public:
  // `local`: the single-process solver of this rank (its location is where the gather works).
  DistributedSolver(std::unique_ptr<ForceSolver<T>> local, std::shared_ptr<comm::Communicator> comm,
                    std::unique_ptr<comm::BlockGather> gather, Exchange exchange = Exchange::gather,
                    int chunks = kDefaultExchangeChunks);

  [[nodiscard]] Exchange exchange() const noexcept { return exchange_; }
  // The policy of the following passes (the benchmark measures both on one solver).
  void set_exchange(Exchange e, int chunks = kDefaultExchangeChunks);

  std::string name() const override { return local_->name(); }
  std::string kernel() const override;  // the local kernel, "over P ranks (transport)"
  std::string device() const override;  // the local device, "rank r of P"
  Location location() const override { return local_->location(); }
  Precision precision() const override { return local_->precision(); }
  bool counts_pairs() const noexcept override { return local_->counts_pairs(); }
  // Fused Euler steps are a single-device optimisation: here every step is force, gather, kick, drift.
  SolverCapabilities capabilities() const override {
    SolverCapabilities c = local_->capabilities();
    c.euler_steps = false;
    c.counted_jerk = false;  // each pass is split over the ranks by its count: the host loop
    return c;
  }
  double potential_energy(const SourceView<T>& sources) override { return local_->potential_energy(sources); }
  std::vector<double> potentials(const SourceView<T>& sources) override { return local_->potentials(sources); }
  // The local solver's state; after each pass it has seen every rank's block (gathered).
  TaggedBlob save_state(bool repeats_last_pass) const override { return local_->save_state(repeats_last_pass); }
  void restore_state(const TaggedBlob& state, std::size_t n) override { local_->restore_state(state, n); }

  [[nodiscard]] comm::Communicator& communicator() noexcept { return *comm_; }
  [[nodiscard]] ForceSolver<T>& local() noexcept { return *local_; }
  // The parts of one accelerations pass, for measuring them apart (the benchmark): this rank's
  // block of targets, then the gather of every block into `out`.
  void local_accelerations(const TargetView<T>& targets, const SourceView<T>& sources, Vec3Span<T> out);
  void gather(Vec3Span<T> out, int n);

 protected:
  void do_accelerations(const TargetView<T>& targets, const SourceView<T>& sources, Vec3Span<T> out) override;
  void do_acc_jerk(const IndexView& targets, const MotionView<T>& sources, Vec3Span<T> acc, Vec3Span<T> jerk) override;
  // Hermite's first step: the targets split into blocks and gathered, as acc_jerk (each body's
  // sums are the local solver's whoever computes them).
  void do_snap_crackle(const MotionView<T>& sources, ConstVec3Span<T> acc, ConstVec3Span<T> jerk, int first, int count,
                       Vec3Span<T> snap, Vec3Span<T> crackle) override;
  // A local solver that counts the terms it evaluated (the tree), not targets x sources: the
  // pass's count is the sum over the ranks.
  std::uint64_t pass_terms(std::int64_t targets, std::int64_t sources) const noexcept override {
    return terms_summed_ ? last_terms_ : std::uint64_t(targets) * std::uint64_t(sources);
  }

 private:
  std::unique_ptr<ForceSolver<T>> local_;
  // !local_->counts_pairs() (the same on every rank: the local solvers are of one kind)
  bool terms_summed_ = false;
  std::uint64_t last_terms_ = 0;
  std::shared_ptr<comm::Communicator> comm_;
  std::unique_ptr<comm::BlockGather> gather_;
  Exchange exchange_ = Exchange::gather;
  int chunks_ = kDefaultExchangeChunks;

  void pipelined_accelerations(const TargetView<T>& targets, const SourceView<T>& sources, Vec3Span<T> out);
};

extern template class DistributedSolver<float>;
extern template class DistributedSolver<double>;

}  // namespace nbody
