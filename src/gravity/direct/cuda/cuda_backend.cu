#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "core/host_memory.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/device_buffer.hpp"
#include "gravity/direct/cuda/cuda_backend.hpp"
#include "gravity/direct/cuda/direct_kernels.cuh"
#include "gravity/direct/cuda/hermite_device.cuh"
#include "gravity/direct/cuda/particle_kernels.cuh"
#include "nbody/error.hpp"

namespace nbody {
namespace {

using cuda::DeviceBuffer;
using direct::cuda::MomentsPolicy;
using direct::cuda::TiledPolicy;

constexpr int kElementwiseBlock = 256;

int blocks_for(std::size_t n, int block) { return static_cast<int>((n + block - 1) / block); }

template <class T>
class CudaBackend final : public Backend<T> {
 public:
  CudaBackend(std::size_t n, const GravityParams& g, const cuda::DeviceInfo& dev)
      : Backend<T>(g), n_(n), device_name_(dev.name) {
    for (auto* b : {&x_, &y_, &z_, &vx_, &vy_, &vz_, &m_, &ax_, &ay_, &az_}) *b = DeviceBuffer<T>(n);
    partials_ = DeviceBuffer<double>(std::max<std::size_t>(
        std::size_t(MomentsPolicy::kBlocks) * MomentsPolicy::kQuantities, potential_blocks()));
    host_partials_.resize(partials_.size());
  }

  std::string name() const override { return "cuda"; }
  std::string device() const override { return device_name_; }
  Precision precision() const override { return sizeof(T) == 4 ? Precision::fp32 : Precision::fp64; }
  std::size_t size() const override { return n_; }

  double potential_energy() override {
    const int blocks = static_cast<int>(potential_blocks());
    auto launch = [&](auto pair) {
      direct::cuda::tiled_potential<T, TiledPolicy><<<blocks, TiledPolicy::kBlock, 0, stream_.get()>>>(
          x_.data(), y_.data(), z_.data(), m_.data(), count(), pair, partials_.data());
    };
    if (spline()) {
      launch(gravity::SplinePair<T>::from_softening(this->gravity().softening));
    } else {
      launch(gravity::PlummerPair<T, false>{eps2()});
    }
    NBODY_CUDA_CHECK_LAUNCH();
    const auto sums = fetch_partials(std::size_t(blocks));
    double w = 0;
    for (double s : sums) w += s;
    return 0.5 * this->gravity().G * w;
  }

  void kick(double dt) override {
    direct::cuda::kick_kernel<<<elementwise_blocks(), kElementwiseBlock, 0, stream_.get()>>>(
        vx_.data(), vy_.data(), vz_.data(), ax_.data(), ay_.data(), az_.data(), count(), static_cast<T>(dt));
    NBODY_CUDA_CHECK_LAUNCH();
  }

  Moments moments() override {
    using P = MomentsPolicy;
    direct::cuda::moments_kernel<<<P::kBlocks, P::kBlock, 0, stream_.get()>>>(
        x_.data(), y_.data(), z_.data(), vx_.data(), vy_.data(), vz_.data(), m_.data(), count(), partials_.data());
    NBODY_CUDA_CHECK_LAUNCH();
    const auto sums = fetch_partials(std::size_t(P::kBlocks) * P::kQuantities);
    std::array<double, P::kQuantities> q{};
    for (int k = 0; k < P::kQuantities; ++k) {
      for (int b = 0; b < P::kBlocks; ++b) q[k] += sums[std::size_t(k) * P::kBlocks + b];
    }
    Moments mo;
    mo.mass = q[0];
    mo.kinetic = q[1];
    mo.momentum = {q[2], q[3], q[4]};
    mo.angular = {q[5], q[6], q[7]};
    mo.mass_moment = {q[8], q[9], q[10]};
    return mo;
  }

  void synchronize() override { stream_.synchronize(); }

  double max_acceleration() override {
    using P = MomentsPolicy;
    direct::cuda::max_acceleration_kernel<<<P::kBlocks, P::kBlock, 0, stream_.get()>>>(ax_.data(), ay_.data(),
                                                                                      az_.data(), count(),
                                                                                      partials_.data());
    NBODY_CUDA_CHECK_LAUNCH();
    double worst = 0;
    for (double b : fetch_partials(std::size_t(P::kBlocks))) worst = std::max(worst, b);
    return std::sqrt(worst);
  }

  void reserve_hermite() override {
    if (hermite_.reserved()) return;
    hermite_.reserve(n_, device_name_, stream_.get());
    // The first prediction (to the particles' own time, tau = 0) reads a: it must not hold
    // uninitialised memory, whose NaNs 0 * NaN would carry into the state.
    for (auto* b : {&ax_, &ay_, &az_}) NBODY_CUDA_CHECK(cudaMemsetAsync(b->data(), 0, n_ * sizeof(T), stream_.get()));
  }
  void set_particle_times(double t) override {
    reserve_hermite();
    hermite_.set_times(t, stream_.get());
  }
  void predict(double t) override {
    reserve_hermite();
    hermite_.predict(views(), t, stream_.get());
  }

  void download_hermite(HermiteState<T>& s) override {
    reserve_hermite();
    hermite_.download(s, stream_.get());
    ax_.download(s.ax.data(), n_, stream_.get());
    ay_.download(s.ay.data(), n_, stream_.get());
    az_.download(s.az.data(), n_, stream_.get());
    stream_.synchronize();
  }

  void download(Particles<T>& p) override {
    p.resize(n_);
    const std::array<std::pair<const DeviceBuffer<T>*, std::vector<T>*>, 7> fields{
        {{&x_, &p.x}, {&y_, &p.y}, {&z_, &p.z}, {&vx_, &p.vx}, {&vy_, &p.vy}, {&vz_, &p.vz}, {&m_, &p.m}}};
    for (const auto& [dev, host] : fields) dev->download(host->data(), n_, stream_.get());
    p.id = ids_;
    stream_.synchronize();
  }

  void download_accelerations(Accelerations<T>& a) override {
    a.resize(n_);
    ax_.download(a.ax.data(), n_, stream_.get());
    ay_.download(a.ay.data(), n_, stream_.get());
    az_.download(a.az.data(), n_, stream_.get());
    stream_.synchronize();
  }

 protected:
  void do_upload(const Particles<T>& p) override {
    if (p.size() != n_) {
      throw_runtime_error("upload of " + std::to_string(p.size()) + " particles into a backend of " +
                          std::to_string(n_));
    }
    const std::array<std::pair<DeviceBuffer<T>*, const std::vector<T>*>, 7> fields{
        {{&x_, &p.x}, {&y_, &p.y}, {&z_, &p.z}, {&vx_, &p.vx}, {&vy_, &p.vy}, {&vz_, &p.vz}, {&m_, &p.m}}};
    for (const auto& [dev, host] : fields) dev->upload(host->data(), n_, stream_.get());
    ids_ = p.id;  // ids never change during a run; the host copy is the mirror
    stream_.synchronize();
  }

  void do_compute_accelerations() override {
    const int blocks = blocks_for(n_, TiledPolicy::kBlock);
    const T G = static_cast<T>(this->gravity().G);
    auto launch = [&](auto pair) {
      direct::cuda::tiled_accelerations<T, TiledPolicy><<<blocks, TiledPolicy::kBlock, 0, stream_.get()>>>(
          x_.data(), y_.data(), z_.data(), m_.data(), count(), pair, G, ax_.data(), ay_.data(), az_.data());
    };
    // With eps > 0 the i = j term is exactly zero; only eps = 0 needs the guarded law.
    if (spline()) {
      launch(gravity::SplinePair<T>::from_softening(this->gravity().softening));
    } else if (this->gravity().eps2() > 0) {
      launch(gravity::PlummerPair<T, false>{eps2()});
    } else {
      launch(gravity::PlummerPair<T, true>{eps2()});
    }
    NBODY_CUDA_CHECK_LAUNCH();
  }

  void do_upload_hermite(const HermiteState<T>& s) override {
    if (s.size() != n_) {
      throw_runtime_error("upload of the Hermite state of " + std::to_string(s.size()) +
                          " particles into a backend of " + std::to_string(n_));
    }
    reserve_hermite();
    hermite_.upload(s, stream_.get());
    ax_.upload(s.ax.data(), n_, stream_.get());
    ay_.upload(s.ay.data(), n_, stream_.get());
    az_.upload(s.az.data(), n_, stream_.get());
    stream_.synchronize();
  }
  void do_set_active(std::span<const std::int32_t> targets) override {
    reserve_hermite();
    hermite_.set_active(targets, stream_.get());
  }
  void do_set_all_active() override {
    reserve_hermite();
    hermite_.set_all_active(stream_.get());
  }
  void do_compute_acc_jerk() override {
    reserve_hermite();
    hermite_.compute(views(), this->gravity(), stream_.get());
  }
  void do_start_hermite(double eta, std::span<double> dt_next) override {
    hermite_.start(views(), eta, dt_next, stream_.get());
  }
  void do_correct(double t, double eta, std::span<double> dt_next) override {
    hermite_.correct(views(), t, eta, dt_next, stream_.get());
  }

  void do_drift(double dt) override {
    direct::cuda::drift_kernel<<<elementwise_blocks(), kElementwiseBlock, 0, stream_.get()>>>(
        x_.data(), y_.data(), z_.data(), vx_.data(), vy_.data(), vz_.data(), count(), static_cast<T>(dt));
    NBODY_CUDA_CHECK_LAUNCH();
  }

 private:
  int count() const { return static_cast<int>(n_); }
  T eps2() const { return static_cast<T>(this->gravity().eps2()); }
  // The spline law needs eps > 0; with eps = 0 either law is the unsoftened one.
  bool spline() const { return this->gravity().law == SofteningLaw::spline && this->gravity().eps2() > 0; }
  std::size_t potential_blocks() const { return std::size_t(blocks_for(n_, TiledPolicy::kBlock)); }
  int elementwise_blocks() const { return std::max(1, std::min(blocks_for(n_, kElementwiseBlock), 65535)); }

  direct::cuda::DeviceParticleViews<T> views() {
    return {{x_.data(), y_.data(), z_.data()},
            {vx_.data(), vy_.data(), vz_.data()},
            {ax_.data(), ay_.data(), az_.data()},
            m_.data(),
            count()};
  }

  std::vector<double> fetch_partials(std::size_t count) {
    partials_.download(host_partials_.data(), count, stream_.get());
    stream_.synchronize();
    return {host_partials_.begin(), host_partials_.begin() + static_cast<std::ptrdiff_t>(count)};
  }

  std::size_t n_;
  std::string device_name_;
  cuda::Stream stream_;
  DeviceBuffer<T> x_, y_, z_, vx_, vy_, vz_, m_, ax_, ay_, az_;
  DeviceBuffer<double> partials_;
  std::vector<double> host_partials_;
  std::vector<std::uint64_t> ids_;
  direct::cuda::HermiteDevice<T> hermite_;
};

}  // namespace

template <class T>
std::size_t cuda_backend_bytes(std::size_t n) noexcept {
  const std::size_t partials =
      std::max<std::size_t>(std::size_t(MomentsPolicy::kBlocks) * MomentsPolicy::kQuantities,
                            std::size_t(blocks_for(n, TiledPolicy::kBlock)));
  return n * 10 * sizeof(T) + partials * sizeof(double);
}

template <class T>
std::unique_ptr<Backend<T>> make_cuda_backend(std::size_t n, const GravityParams& g) {
  cuda::DeviceInfo dev;
  std::string why;
  if (!cuda::query_device(0, &dev, &why)) {
    throw_input_error("backend: cuda needs a usable CUDA device, but " + why);
  }
  const std::size_t need = cuda_backend_bytes<T>(n);
  // Leave a margin for the CUDA context's own allocations.
  if (double(need) > 0.95 * double(dev.free_memory)) {
    throw_input_error("n: " + std::to_string(n) + " bodies need " + format_bytes(double(need)) +
                      " of GPU memory, but " + dev.name + " has " + format_bytes(double(dev.free_memory)) +
                      " free");
  }
  return std::make_unique<CudaBackend<T>>(n, g, dev);
}

template std::unique_ptr<Backend<float>> make_cuda_backend<float>(std::size_t, const GravityParams&);
template std::unique_ptr<Backend<double>> make_cuda_backend<double>(std::size_t, const GravityParams&);
template std::size_t cuda_backend_bytes<float>(std::size_t) noexcept;
template std::size_t cuda_backend_bytes<double>(std::size_t) noexcept;

}  // namespace nbody
