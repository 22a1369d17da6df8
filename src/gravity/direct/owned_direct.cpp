#include "gravity/direct/owned_direct.hpp"

#include <algorithm>
#include <span>
#include <type_traits>

#include "comm/chained_sum.hpp"
#include "gravity/direct/cpu_direct.hpp"
#include "nbody/error.hpp"

namespace nbody {
namespace {

template <class T>
class BroadcastStream final : public SourceStream<T> {
 public:
  explicit BroadcastStream(std::shared_ptr<comm::Communicator> c) : comm_(std::move(c)) {}
  std::string name() const override { return "broadcast in turn (" + comm_->name() + ")"; }

  // The blocks in rank order, each broadcast by its rank; block r + 1's broadcast is under way
  // (into the other buffer) while every rank adds block r, so the messages hide behind the
  // compute. The same blocks in the same order as blocking broadcasts: the same bits.
  void stream(const std::vector<std::vector<T>>& mine, std::int64_t first, std::int64_t n,
              const typename SourceStream<T>::Visit& visit) override {
    const int p = comm_->size();
    std::vector<comm::Block> blocks;
    for (int r = 0; r < p; ++r) blocks.push_back(comm::id_block(n, p, r, direct::kStreamAlign));
    auto next_after = [&](int r) {  // the next rank with a block (every rank finds the same)
      do ++r;
      while (r < p && blocks[std::size_t(r)].count == 0);
      return r;
    };
    auto start = [&](int r, std::vector<T>& buffer) {
      const comm::Block& b = blocks[std::size_t(r)];
      buffer.resize(std::size_t(4 * b.count));
      if (r == comm_->rank()) {
        if (b.first != first) throw_runtime_error("source stream: this rank's block starts at the wrong id");
        for (int f = 0; f < 4; ++f) std::copy(mine[f].begin(), mine[f].end(), buffer.begin() + f * b.count);
      }
      return comm_->ibroadcast(std::span<T>(buffer), r);
    };
    int r = next_after(-1);
    if (r >= p) return;
    int slot = 0;
    std::unique_ptr<comm::Request> arriving = start(r, buffers_[0]);
    while (r < p) {
      arriving->wait();
      const int next = next_after(r);
      std::unique_ptr<comm::Request> following = next < p ? start(next, buffers_[1 - slot]) : nullptr;
      const comm::Block& b = blocks[std::size_t(r)];
      const T* at = buffers_[slot].data();
      visit(SourceView<T>{at, at + b.count, at + 2 * b.count, at + 3 * b.count, int(b.count)}, b.first);
      r = next, slot = 1 - slot, arriving = std::move(following);
    }
  }

 private:
  std::shared_ptr<comm::Communicator> comm_;
  std::vector<T> buffers_[2];  // the block being added and the one arriving
};

}  // namespace

template <class T>
std::unique_ptr<SourceStream<T>> make_broadcast_stream(std::shared_ptr<comm::Communicator> c) {
  return std::make_unique<BroadcastStream<T>>(std::move(c));
}

template <class T>
OwnedDirectSum<T>::OwnedDirectSum(std::shared_ptr<comm::Communicator> c, const GravityParams& g, OwnedKernel kernel)
    : comm_(std::move(c)), g_(g), kernel_(kernel), stream_(make_broadcast_stream<T>(comm_)) {
  if (kernel == OwnedKernel::mixed && !std::is_same_v<T, double>) {
    throw_input_error("precision: mixed sums need float64 bodies");
  }
}

template <class T>
std::pair<std::vector<std::vector<T>>, std::int64_t> OwnedDirectSum<T>::sources_by_id(const comm::OwnedBodies<T>& b) {
  const std::span<const T> fields[4] = {b.p.x, b.p.y, b.p.z, b.p.m};
  auto block = comm::to_id_block<T>(*comm_, b.n_total, b.p.id, fields, direct::kStreamAlign);
  const comm::Block mine = comm::id_block(b.n_total, comm_->size(), comm_->rank(), direct::kStreamAlign);
  traffic_ = {};
  traffic_.values_received = 5 * mine.count;  // an id and four values per body of the block
  return {std::move(block), mine.first};
}

template <class T>
void OwnedDirectSum<T>::accelerations(comm::OwnedBodies<T>& b, Vec3Span<T> out) {
  const auto [mine, first] = sources_by_id(b);
  const std::size_t n = b.size();
  std::vector<double> sx(n, 0.0), sy(n, 0.0), sz(n, 0.0);
  const Vec3Span<double> sums{sx.data(), sy.data(), sz.data()};
  const TargetView<T> targets{b.p.x.data(), b.p.y.data(), b.p.z.data(), int(n)};
  stream_->stream(mine, first, b.n_total, [&](const SourceView<T>& piece, std::int64_t at) {
    traffic_.broadcasts += 1;
    if (at != first) traffic_.values_received += 4 * piece.n;
    if (n == 0) return;
    switch (kernel_) {
      case OwnedKernel::reference: direct::reference_accumulate_pulls(targets, b.p.id.data(), piece, at, sums, g_); break;
      case OwnedKernel::simd: direct::simd_accumulate_pulls(targets, piece, sums, g_); break;
      case OwnedKernel::mixed:
        if constexpr (std::is_same_v<T, double>) direct::simd_accumulate_pulls_mixed(targets, piece, sums, g_);
        break;
    }
  });
  // The single-process solvers' last step: G times the sum, in their arithmetic.
  for (std::size_t i = 0; i < n; ++i) {
    if (kernel_ == OwnedKernel::simd) {
      const T G = static_cast<T>(g_.G);
      out.x[i] = G * static_cast<T>(sx[i]);
      out.y[i] = G * static_cast<T>(sy[i]);
      out.z[i] = G * static_cast<T>(sz[i]);
    } else {
      out.x[i] = static_cast<T>(g_.G * sx[i]);
      out.y[i] = static_cast<T>(g_.G * sy[i]);
      out.z[i] = static_cast<T>(g_.G * sz[i]);
    }
  }
  const std::uint64_t pairs = b.n_total > 0 ? std::uint64_t(b.n_total - 1) : 0;
  b.work.assign(n, std::max<std::uint64_t>(pairs, 1));
}

template <class T>
double OwnedDirectSum<T>::potential_energy(const comm::OwnedBodies<T>& b) {
  const auto [mine, first] = sources_by_id(b);
  const std::size_t n = b.size();
  std::vector<double> phi(n, 0.0);
  const TargetView<T> targets{b.p.x.data(), b.p.y.data(), b.p.z.data(), int(n)};
  stream_->stream(mine, first, b.n_total, [&](const SourceView<T>& piece, std::int64_t at) {
    if (n == 0) return;
    if (kernel_ == OwnedKernel::reference) {
      direct::reference_accumulate_potential(targets, b.p.id.data(), piece, at, phi.data(), g_);
    } else {
      direct::simd_accumulate_potential(targets, b.p.id.data(), piece, at, phi.data(), g_);
    }
  });
  // m_i phi_i in id order: each body's phi and mass to its id block, then the chain.
  std::vector<double> m(n);  // (phi travels in float64 whatever T is)
  for (std::size_t i = 0; i < n; ++i) m[i] = double(b.p.m[i]);
  const std::span<const double> fields[2] = {m, phi};
  const auto block = comm::to_id_block<double>(*comm_, b.n_total, b.p.id, fields, direct::kStreamAlign);
  const auto w = comm::chained_sum(*comm_, {0.0}, [&](std::vector<double>& run) {
    for (std::size_t k = 0; k < block[0].size(); ++k) run[0] += block[0][k] * block[1][k];
  });
  return 0.5 * g_.G * w[0];
}

template class OwnedDirectSum<float>;
template class OwnedDirectSum<double>;
template std::unique_ptr<SourceStream<float>> make_broadcast_stream<float>(std::shared_ptr<comm::Communicator>);
template std::unique_ptr<SourceStream<double>> make_broadcast_stream<double>(std::shared_ptr<comm::Communicator>);

}  // namespace nbody
