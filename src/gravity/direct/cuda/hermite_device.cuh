#pragma once
// The Hermite integrator's state on the GPU and the launches that advance it, for the CUDA
// backend (cuda_backend.cu forwards its Hermite operations here). Include from .cu files only.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/host_memory.hpp"
#include "cuda/check.hpp"
#include "cuda/device_buffer.hpp"
#include "gravity/backend.hpp"
#include "gravity/direct/cuda/hermite_kernels.cuh"
#include "gravity/pair_law.hpp"
#include "nbody/error.hpp"

namespace nbody::direct::cuda {

// The backend's particle arrays on the device (the Hermite state adds to these).
template <class T>
struct DeviceParticleViews {
  Vec3View<T> x;
  Vec3View<T> v;
  Vec3View<T> a;  // a_i at t_i
  const T* m;
  int n;
};

template <class T>
ConstVec3View<T> as_const(Vec3View<T> v) {
  return {v.x, v.y, v.z};
}

template <class T>
class HermiteDevice {
 public:
  // jerk 3, prediction 6, compact results 6 of T; t_i and the returned steps in float64; an index.
  static constexpr std::size_t kBytesPerParticle = 15 * sizeof(T) + 2 * sizeof(double) + sizeof(int);

  [[nodiscard]] bool reserved() const noexcept { return reserved_; }

  void reserve(std::size_t n, const std::string& device_name, cudaStream_t s) {
    if (reserved_) return;
    std::size_t free_b = 0, total_b = 0;
    NBODY_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const std::size_t need = n * kBytesPerParticle;
    // The same margin for the CUDA context as make_cuda_backend leaves.
    if (double(need) > 0.95 * double(free_b)) {
      throw_input_error("n: the hermite4 state of " + std::to_string(n) + " bodies needs " + format_bytes(double(need)) +
                        " more GPU memory, but " + device_name + " has " + format_bytes(double(free_b)) + " free");
    }
    n_ = n;
    for (auto* b : {&jx_, &jy_, &jz_, &xp_, &yp_, &zp_, &vxp_, &vyp_, &vzp_, &ax1_, &ay1_, &az1_, &jx1_, &jy1_, &jz1_}) {
      *b = nbody::cuda::DeviceBuffer<T>(n);
    }
    ti_ = nbody::cuda::DeviceBuffer<double>(n);
    dt_ = nbody::cuda::DeviceBuffer<double>(n);
    targets_ = nbody::cuda::DeviceBuffer<int>(n);
    host_targets_.reserve(n);
    reserved_ = true;
    all_active_ = false;
    count_ = 0;
    // A defined state before the first start: zero jerks and times.
    for (auto* b : {&jx_, &jy_, &jz_}) NBODY_CUDA_CHECK(cudaMemsetAsync(b->data(), 0, n * sizeof(T), s));
    NBODY_CUDA_CHECK(cudaMemsetAsync(ti_.data(), 0, n * sizeof(double), s));
  }

  void set_times(double t, cudaStream_t s) {
    fill_kernel<double><<<elementwise_blocks(n_), HermiteElementwisePolicy::kBlock, 0, s>>>(ti_.data(), t, count(n_));
    NBODY_CUDA_CHECK_LAUNCH();
  }

  void predict(const DeviceParticleViews<T>& p, double t, cudaStream_t s) {
    hermite_predict_kernel<T><<<elementwise_blocks(n_), HermiteElementwisePolicy::kBlock, 0, s>>>(
        as_const(p.x), as_const(p.v), as_const(p.a), as_const(jerk()), ti_.data(), t, p.n, predicted_x(),
        predicted_v());
    NBODY_CUDA_CHECK_LAUNCH();
  }

  void set_active(std::span<const std::int32_t> targets, cudaStream_t s) {
    // A host copy that outlives the asynchronous upload.
    host_targets_.assign(targets.begin(), targets.end());
    count_ = targets.size();
    all_active_ = false;
    if (count_ > 0) targets_.upload(host_targets_.data(), count_, s);
  }

  void set_all_active(cudaStream_t s) {
    count_ = n_;
    if (all_active_) return;
    iota_kernel<int><<<elementwise_blocks(n_), HermiteElementwisePolicy::kBlock, 0, s>>>(targets_.data(), count(n_));
    NBODY_CUDA_CHECK_LAUNCH();
    all_active_ = true;
  }

  void compute(const DeviceParticleViews<T>& p, const GravityParams& g, cudaStream_t s) {
    if (count_ == 0) return;
    using P = HermitePolicy;
    const int blocks = static_cast<int>((count_ + P::kBlock - 1) / P::kBlock);
    const T G = static_cast<T>(g.G);
    gravity::with_pair_law<T>(g, [&](const auto pair) {
      tiled_acc_jerk<T, P><<<blocks, P::kBlock, 0, s>>>(as_const(predicted_x()), as_const(predicted_v()), p.m, p.n,
                                                        targets_.data(), count(count_), pair, G, results_a(),
                                                        results_j());
    });
    NBODY_CUDA_CHECK_LAUNCH();
  }

  void start(const DeviceParticleViews<T>& p, double eta, std::span<double> dt_next, cudaStream_t s) {
    if (count_ == 0) return;
    hermite_start_kernel<T><<<elementwise_blocks(count_), HermiteElementwisePolicy::kBlock, 0, s>>>(
        targets_.data(), count(count_), eta, p.a, jerk(), as_const(results_a()), as_const(results_j()),
        dt_next.empty() ? nullptr : dt_.data());
    NBODY_CUDA_CHECK_LAUNCH();
    fetch_steps(dt_next, s);
  }

  void correct(const DeviceParticleViews<T>& p, double t, double eta, std::span<double> dt_next, cudaStream_t s) {
    if (count_ == 0) return;
    hermite_correct_kernel<T><<<elementwise_blocks(count_), HermiteElementwisePolicy::kBlock, 0, s>>>(
        targets_.data(), count(count_), t, eta, p.x, p.v, p.a, jerk(), as_const(results_a()), as_const(results_j()),
        ti_.data(), dt_next.empty() ? nullptr : dt_.data());
    NBODY_CUDA_CHECK_LAUNCH();
    fetch_steps(dt_next, s);
  }

  // a comes from the backend's acceleration arrays; the caller synchronizes the stream.
  void download(HermiteState<T>& out, cudaStream_t s) const {
    out.resize(n_);
    jx_.download(out.jx.data(), n_, s);
    jy_.download(out.jy.data(), n_, s);
    jz_.download(out.jz.data(), n_, s);
    ti_.download(out.t.data(), n_, s);
  }
  void upload(const HermiteState<T>& in, cudaStream_t s) {
    jx_.upload(in.jx.data(), n_, s);
    jy_.upload(in.jy.data(), n_, s);
    jz_.upload(in.jz.data(), n_, s);
    ti_.upload(in.t.data(), n_, s);
  }

 private:
  static int count(std::size_t n) { return static_cast<int>(n); }
  static int elementwise_blocks(std::size_t n) {
    using P = HermiteElementwisePolicy;
    const std::size_t blocks = (n + P::kBlock - 1) / P::kBlock;
    return static_cast<int>(std::clamp<std::size_t>(blocks, 1, P::kMaxBlocks));
  }

  Vec3View<T> jerk() { return {jx_.data(), jy_.data(), jz_.data()}; }
  Vec3View<T> predicted_x() { return {xp_.data(), yp_.data(), zp_.data()}; }
  Vec3View<T> predicted_v() { return {vxp_.data(), vyp_.data(), vzp_.data()}; }
  Vec3View<T> results_a() { return {ax1_.data(), ay1_.data(), az1_.data()}; }
  Vec3View<T> results_j() { return {jx1_.data(), jy1_.data(), jz1_.data()}; }

  void fetch_steps(std::span<double> dt_next, cudaStream_t s) {
    if (dt_next.empty()) return;
    dt_.download(dt_next.data(), count_, s);
    NBODY_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  bool reserved_ = false;
  bool all_active_ = false;
  std::size_t n_ = 0;
  std::size_t count_ = 0;
  nbody::cuda::DeviceBuffer<T> jx_, jy_, jz_;
  nbody::cuda::DeviceBuffer<T> xp_, yp_, zp_, vxp_, vyp_, vzp_;
  nbody::cuda::DeviceBuffer<T> ax1_, ay1_, az1_, jx1_, jy1_, jz1_;
  nbody::cuda::DeviceBuffer<double> ti_;
  nbody::cuda::DeviceBuffer<double> dt_;
  nbody::cuda::DeviceBuffer<int> targets_;
  std::vector<std::int32_t> host_targets_;
};

}  // namespace nbody::direct::cuda
