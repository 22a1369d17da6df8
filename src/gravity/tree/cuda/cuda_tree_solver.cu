// The GPU tree as a force solver (--gravity tree --device cuda): CudaTree over the store's
// device arrays. The tree's kernels run on the device's legacy default stream, the store's
// element-wise operations on the context's (non-blocking) stream: every pass waits for the
// context's stream before it reads the positions and for the device before it returns, so the
// two never overlap. Nothing is copied to the host but the potential energy's block sums; the
// tree's arrays and the solver's own are kept between passes and grow only with N.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cuda/block_reduce.cuh"
#include "cuda/check.hpp"
#include "cuda/context.hpp"
#include "cuda/device_buffer.hpp"
#include "gravity/tree/cuda_tree.hpp"
#include "gravity/tree/history.hpp"
#include "nbody/error.hpp"

namespace nbody {
namespace {

constexpr int kSumBlock = 256;
constexpr int kSumBlocks = 256;  // fixed: the potential energy's sum has one order for every N

// Per block: sum over i = block*threads + thread + k*(blocks*threads) of m_i phi_i, then the
// block's fixed reduction (cuda/block_reduce.cuh). The host adds the block sums in order:
// deterministic.
template <class T>
__global__ void __launch_bounds__(kSumBlock) weighted_sum_partials(const T* m, const double* phi, int n,
                                                                   double* partials) {
  __shared__ double scratch[kSumBlock / 32];
  double v = 0;
  for (int i = blockIdx.x * kSumBlock + threadIdx.x; i < n; i += kSumBlocks * kSumBlock) v += double(m[i]) * phi[i];
  const double total = cuda::block_reduce<kSumBlock>(v, scratch, cuda::Sum{});
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

// A device array of the solver's own, grown (never shrunk) to at least k values.
template <class V>
V* ensure(cuda::DeviceBuffer<V>& b, std::size_t k) {
  if (b.size() < k) {
    b = cuda::DeviceBuffer<V>();  // the old array freed before the new one is taken
    b = cuda::DeviceBuffer<V>(std::max<std::size_t>(k, 1));
  }
  return b.data();
}

template <class T>
class CudaTreeSolver final : public ForceSolver<T> {
 public:
  CudaTreeSolver(std::shared_ptr<DeviceContext> ctx, const GravityParams& g, const gravity::tree::TreeParams& p)
      : ForceSolver<T>(g),
        ctx_(std::move(ctx)),
        stream_(static_cast<cudaStream_t>(ctx_->stream())),
        params_(p),
        tree_(g, p, ctx_->ordinal()) {}

  std::string name() const override { return "tree"; }
  std::string kernel() const override {
    char text[200];
    const char* arith = sizeof(T) == 4 ? "fp32" : "fp64";
    if (params_.criterion == gravity::tree::Criterion::relative) {
      std::snprintf(text, sizeof text, "tree relative alpha=%g (first pass theta=%g) leaf %d group %d %s (cuda)",
                    params_.alpha, params_.theta, params_.leaf_size, params_.group_size, arith);
    } else {
      std::snprintf(text, sizeof text, "tree barnes-hut theta=%g leaf %d group %d %s (cuda)", params_.theta,
                    params_.leaf_size, params_.group_size, arith);
    }
    return text;
  }
  std::string device() const override { return ctx_->info().name; }
  Location location() const override { return ctx_->location(); }
  Precision precision() const override { return sizeof(T) == 4 ? Precision::fp32 : Precision::fp64; }
  SolverCapabilities capabilities() const override { return {true, false, false}; }

  double potential_energy(const SourceView<T>& s) override {
    if (s.n <= 0) return 0.0;
    double* phi = ensure(phi_, std::size_t(s.n));
    begin();
    tree_.potentials_device(s.x, s.y, s.z, s.m, s.n, phi);
    end();
    return weighted_sum(s, phi);
  }

  TaggedBlob save_state(bool repeats_last_pass) const override {
    ctx_->make_current();
    return gravity::tree::save_history(params_, repeats_last_pass ? tree_.used_history() : tree_.history());
  }
  void restore_state(const TaggedBlob& state, std::size_t n) override {
    if (auto h = gravity::tree::restored_history(params_, state, n)) {
      ctx_->make_current();
      tree_.set_history(*h);
    }
  }

  std::vector<double> potentials(const SourceView<T>& s) override {
    std::vector<double> out(std::size_t(std::max(s.n, 0)));
    if (s.n <= 0) return out;
    double* phi = ensure(phi_, std::size_t(s.n));
    begin();
    tree_.potentials_device(s.x, s.y, s.z, s.m, s.n, phi);
    end();
    NBODY_CUDA_CHECK(cudaMemcpy(out.data(), phi, out.size() * sizeof(double), cudaMemcpyDeviceToHost));
    return out;
  }

 private:
  // 1/2 sum_i m_i phi_i (phi on the device), in a fixed order.
  double weighted_sum(const SourceView<T>& s, const double* phi) {
    double* partials = ensure(partials_, kSumBlocks);
    weighted_sum_partials<T><<<kSumBlocks, kSumBlock, 0, stream_>>>(s.m, phi, s.n, partials);
    NBODY_CUDA_CHECK_LAUNCH();
    std::vector<double> sums(kSumBlocks);
    NBODY_CUDA_CHECK(
        cudaMemcpyAsync(sums.data(), partials, kSumBlocks * sizeof(double), cudaMemcpyDeviceToHost, stream_));
    NBODY_CUDA_CHECK(cudaStreamSynchronize(stream_));
    double w = 0;
    for (double v : sums) w += v;
    return 0.5 * w;
  }

 protected:
  // The tree computes the sources' own accelerations: targets that are the sources (the run
  // loop's case) are written in place; a block of them (t.self >= 0, the positions of sources
  // t.self ...) is cut from a whole pass. Other targets are refused.
  void do_accelerations(const TargetView<T>& t, const SourceView<T>& s, Vec3Span<T> out) override {
    if (t.n <= 0 || s.n <= 0) return;
    const bool whole = t.self == 0 && t.n == s.n && t.x == s.x && t.y == s.y && t.z == s.z;
    const bool block = t.self >= 0 && t.self + t.n <= s.n && t.x == s.x + t.self && t.y == s.y + t.self &&
                       t.z == s.z + t.self;
    if (!whole && !block) {
      throw_runtime_error("gravity tree (cuda): the GPU tree computes the accelerations of its sources only");
    }
    begin();
    if (whole) {
      tree_.accelerations_device(s.x, s.y, s.z, s.m, s.n, out.x, out.y, out.z);
    } else {
      const std::size_t n = std::size_t(s.n);
      T* a = ensure(ax_, n);
      T* b = ensure(ay_, n);
      T* c = ensure(az_, n);
      tree_.accelerations_device(s.x, s.y, s.z, s.m, s.n, a, b, c);
      const std::size_t bytes = std::size_t(t.n) * sizeof(T);
      NBODY_CUDA_CHECK(cudaMemcpy(out.x, a + t.self, bytes, cudaMemcpyDeviceToDevice));
      NBODY_CUDA_CHECK(cudaMemcpy(out.y, b + t.self, bytes, cudaMemcpyDeviceToDevice));
      NBODY_CUDA_CHECK(cudaMemcpy(out.z, c + t.self, bytes, cudaMemcpyDeviceToDevice));
    }
    end();
  }
  // The multipole (M2P) and pair (P2P) terms the pass evaluated, not targets x sources.
  bool counts_pairs() const noexcept override { return false; }
  std::uint64_t pass_terms(std::int64_t, std::int64_t) const noexcept override {
    return tree_.stats().m2p + tree_.stats().p2p;
  }

 private:
  // The context's stream's work (the drift that moved the positions) done before the tree reads.
  void begin() {
    ctx_->make_current();
    NBODY_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  // The tree's last kernels (on the default stream) done before the context's stream goes on.
  void end() { NBODY_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy)); }

  std::shared_ptr<DeviceContext> ctx_;
  cudaStream_t stream_;
  gravity::tree::TreeParams params_;
  gravity::tree::CudaTree tree_;
  cuda::DeviceBuffer<double> phi_, partials_;
  cuda::DeviceBuffer<T> ax_, ay_, az_;
};

}  // namespace

template <class T>
std::unique_ptr<ForceSolver<T>> make_cuda_tree_solver(const std::shared_ptr<DeviceContext>& device, std::size_t n,
                                                      const GravityParams& g, const gravity::tree::TreeParams& p,
                                                      std::size_t other_bytes) {
  if (!device) throw_runtime_error("make_cuda_tree_solver: the GPU tree needs a device context");
  if (n > std::size_t(0x7fffffff)) {
    throw_input_error("n: " + std::to_string(n) + " bodies; the GPU tree takes at most 2147483647");
  }
  device->make_current();
  // The tree's arrays, the solver's potentials (n doubles) and the store beside them.
  const std::size_t own = gravity::tree::CudaTree::device_bytes(n, p) + n * sizeof(double);
  require_memory(device->location(), own + other_bytes, "n: " + std::to_string(n) + " bodies with the GPU tree");
  return std::make_unique<CudaTreeSolver<T>>(device, g, p);
}

template std::unique_ptr<ForceSolver<float>> make_cuda_tree_solver<float>(const std::shared_ptr<DeviceContext>&,
                                                                          std::size_t, const GravityParams&,
                                                                          const gravity::tree::TreeParams&,
                                                                          std::size_t);
template std::unique_ptr<ForceSolver<double>> make_cuda_tree_solver<double>(const std::shared_ptr<DeviceContext>&,
                                                                            std::size_t, const GravityParams&,
                                                                            const gravity::tree::TreeParams&,
                                                                            std::size_t);

}  // namespace nbody
