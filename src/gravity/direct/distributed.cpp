#include "gravity/direct/distributed.hpp"

#include <array>
#include <string>

#include "nbody/error.hpp"

namespace nbody {

template <class T>
DistributedSolver<T>::DistributedSolver(std::unique_ptr<ForceSolver<T>> local, std::shared_ptr<comm::Communicator> comm,
                                        std::unique_ptr<comm::BlockGather> gather)
    : ForceSolver<T>(local ? local->gravity() : GravityParams{}),
      local_(std::move(local)),
      comm_(std::move(comm)),
      gather_(std::move(gather)) {
  if (!local_ || !comm_ || !gather_) throw_runtime_error("DistributedSolver: needs a solver, a communicator and a gather");
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
  local_accelerations(t, s, out);
  gather(out, t.n);
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

template class DistributedSolver<float>;
template class DistributedSolver<double>;

}  // namespace nbody
