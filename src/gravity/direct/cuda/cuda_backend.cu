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
#include "gravity/direct/cuda/direct_launch.cuh"
#include "gravity/direct/cuda/hermite_device.cuh"
#include "gravity/pair_law.hpp"
#include "gravity/direct/cuda/particle_kernels.cuh"
#include "nbody/error.hpp"

namespace nbody {
namespace {

using cuda::DeviceBuffer;
using direct::cuda::BodiesView;
using direct::cuda::MomentsPolicy;
using direct::cuda::PotentialPolicy;

constexpr int kElementwiseBlock = 256;

int blocks_for(std::size_t n, int block) { return static_cast<int>((n + block - 1) / block); }

// T: the state's type. Mixed (T = double only): the force kernel reads float32 copies of the
// positions and masses, refreshed by every upload and drift, and sums in float64.
template <class T, bool Mixed>
class CudaBackend final : public Backend<T> {
  using Tc = std::conditional_t<Mixed, float, T>;   // pairwise arithmetic
  using Acc = std::conditional_t<Mixed, double, T>;  // per-body sums

 public:
  CudaBackend(std::size_t n, const GravityParams& g, const cuda::DeviceInfo& dev, const DirectShape& shape)
      : Backend<T>(g), n_(n), device_name_(dev.name), shape_(shape) {
    for (auto* b : {&x_[0], &y_[0], &z_[0], &x_[1], &y_[1], &z_[1], &vx_, &vy_, &vz_, &m_, &ax_, &ay_, &az_}) {
      *b = DeviceBuffer<T>(n);
    }
    if constexpr (Mixed) {
      for (auto* b : {&xf_, &yf_, &zf_, &mf_}) *b = DeviceBuffer<float>(n);
    }
    partials_ = DeviceBuffer<double>(std::max<std::size_t>(
        std::size_t(MomentsPolicy::kBlocks) * MomentsPolicy::kQuantities, potential_blocks()));
    host_partials_.resize(partials_.size());
  }

  ~CudaBackend() override { destroy_graphs(); }
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  std::string name() const override { return "cuda"; }
  std::string device() const override { return device_name_; }
  std::string kernel() const override { return "direct " + shape_.text() + " " + std::string(to_string(precision())); }
  Precision precision() const override {
    if constexpr (Mixed) return Precision::mixed;
    return sizeof(T) == 4 ? Precision::fp32 : Precision::fp64;
  }
  std::size_t size() const override { return n_; }

  double potential_energy() override {
    const int blocks = static_cast<int>(potential_blocks());
    gravity::with_pair_law<T>(this->gravity(), [&](const auto pair) {
      direct::cuda::tiled_potential<T, PotentialPolicy><<<blocks, PotentialPolicy::kBlock, 0, stream_.get()>>>(
          state_view(), pair, partials_.data());
    });
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
        x_[cur_].data(), y_[cur_].data(), z_[cur_].data(), vx_.data(), vy_.data(), vz_.data(), m_.data(), count(),
        partials_.data());
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
    refresh_compute_copies(/*with_masses=*/false);
  }

  void download_hermite(HermiteState<T>& s) override {
    reserve_hermite();
    hermite_.download(s, stream_.get());
    ax_.download(s.ax.data(), n_, stream_.get());
    ay_.download(s.ay.data(), n_, stream_.get());
    az_.download(s.az.data(), n_, stream_.get());
    stream_.synchronize();
  }

  double measure_seconds(const std::function<void()>& work) override {
    cuda::Event start, stop;
    start.record(stream_.get());
    work();
    stop.record(stream_.get());
    return stop.seconds_since(start);
  }

  void download(Particles<T>& p) override {
    p.resize(n_);
    const std::array<std::pair<const DeviceBuffer<T>*, std::vector<T>*>, 7> fields{
        {{&x_[cur_], &p.x}, {&y_[cur_], &p.y}, {&z_[cur_], &p.z}, {&vx_, &p.vx}, {&vy_, &p.vy}, {&vz_, &p.vz},
         {&m_, &p.m}}};
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
        {{&x_[cur_], &p.x}, {&y_[cur_], &p.y}, {&z_[cur_], &p.z}, {&vx_, &p.vx}, {&vy_, &p.vy}, {&vz_, &p.vz},
         {&m_, &p.m}}};
    for (const auto& [dev, host] : fields) dev->upload(host->data(), n_, stream_.get());
    ids_ = p.id;  // ids never change during a run; the host copy is the mirror
    refresh_compute_copies(/*with_masses=*/true);
    stream_.synchronize();
  }

  void do_compute_accelerations() override {
    const direct::cuda::StoreAccelerations<Acc, T> store{static_cast<T>(this->gravity().G), ax_.data(), ay_.data(),
                                                          az_.data()};
    launch_forces(store);
  }

  void do_drift(double dt) override {
    direct::cuda::drift_kernel<<<elementwise_blocks(), kElementwiseBlock, 0, stream_.get()>>>(
        x_[cur_].data(), y_[cur_].data(), z_[cur_].data(), vx_.data(), vy_.data(), vz_.data(), count(),
        static_cast<T>(dt));
    NBODY_CUDA_CHECK_LAUNCH();
    refresh_compute_copies(/*with_masses=*/false);
  }

  // Batches of kGraphSteps fused steps are captured once into a CUDA graph (per dt and per
  // position buffer they start from) and replayed: the kernels then follow each other without
  // the gap of a separate launch. Same kernels, same arguments, same bits as single steps.
  void do_euler_steps(double dt, std::int64_t count) override {
    if (!fused_euler()) {
      Backend<T>::do_euler_steps(dt, count);
      return;
    }
    while (count >= kGraphSteps) {
      EulerGraph* g = find_graph(dt);
      if (g == nullptr) {
        // One ordinary step first: it allocates what a launch needs (a capture may not), and
        // then the graph is captured from the buffer that step leaves current.
        do_euler_step(dt);
        --count;
        if (count < kGraphSteps) break;
        g = &capture_graph(dt);
      }
      NBODY_CUDA_CHECK(cudaGraphLaunch(g->exec, stream_.get()));
      // kGraphSteps is even: the steps end on the buffer they started from.
      count -= kGraphSteps;
    }
    for (; count > 0; --count) do_euler_step(dt);
  }

  // One kernel per step: the force pass ends with v += a dt and writes x + v dt into the other
  // position buffer.
  void do_euler_step(double dt) override {
    if constexpr (Mixed) {
      Backend<T>::do_euler_step(dt);
    } else {
      if (!fused_euler()) {
        Backend<T>::do_euler_step(dt);
        return;
      }
      const int next = 1 - cur_;
      const direct::cuda::EulerUpdate<T> update{static_cast<T>(this->gravity().G), static_cast<T>(dt),
                                                x_[next].data(), y_[next].data(), z_[next].data(),
                                                vx_.data(), vy_.data(), vz_.data()};
      direct::cuda::launch_direct_sum(shape_, state_view(), gravity::PlummerPair<T, false>{eps2()}, update, split_,
                                      stream_.get());
      cur_ = next;
    }
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
    refresh_compute_copies(/*with_masses=*/false);
  }

 private:
  static constexpr std::int64_t kGraphSteps = 10;
  static_assert(kGraphSteps % 2 == 0, "a graph must end on the position buffer it started from");

  struct EulerGraph {
    double dt = 0;
    int start = 0;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
  };

  // Only softened Plummer in T's own arithmetic is compiled into the fused pass, and it is used
  // where launches are short enough for their gaps to matter (the warp-sliced, small-N shapes).
  // At large N the fused epilogue's extra registers cost more than the two small kernels it
  // saves: measured on an H100 at N = 1M, 1828 billion/s fused against 2090 for the same force
  // kernel followed by separate kick and drift kernels.
  bool fused_euler() const { return !Mixed && this->gravity().eps2() > 0 && !spline() && shape_.warps; }

  EulerGraph* find_graph(double dt) {
    for (auto& g : graphs_) {
      if (g.dt == dt && g.start == cur_) return &g;
    }
    return nullptr;
  }

  // Records kGraphSteps fused steps from the current buffer without running them.
  EulerGraph& capture_graph(double dt) {
    EulerGraph g;
    g.dt = dt;
    g.start = cur_;
    const int start = cur_;
    NBODY_CUDA_CHECK(cudaStreamBeginCapture(stream_.get(), cudaStreamCaptureModeThreadLocal));
    try {
      for (std::int64_t k = 0; k < kGraphSteps; ++k) do_euler_step(dt);
    } catch (...) {
      cudaGraph_t broken = nullptr;
      cudaStreamEndCapture(stream_.get(), &broken);
      if (broken != nullptr) cudaGraphDestroy(broken);
      cur_ = start;
      throw;
    }
    NBODY_CUDA_CHECK(cudaStreamEndCapture(stream_.get(), &g.graph));
    NBODY_CUDA_CHECK(cudaGraphInstantiate(&g.exec, g.graph, 0));
    cur_ = start;  // capturing recorded the steps; it ran nothing
    graphs_.push_back(g);
    return graphs_.back();
  }

  void destroy_graphs() noexcept {
    for (auto& g : graphs_) {
      if (g.exec != nullptr) cudaGraphExecDestroy(g.exec);
      if (g.graph != nullptr) cudaGraphDestroy(g.graph);
    }
    graphs_.clear();
  }

  int count() const { return static_cast<int>(n_); }
  // The spline law needs eps > 0; with eps = 0 either law is the unsoftened one.
  bool spline() const { return this->gravity().law == SofteningLaw::spline && this->gravity().eps2() > 0; }
  direct::cuda::DeviceParticleViews<T> views() {
    return {{x_[cur_].data(), y_[cur_].data(), z_[cur_].data()},
            {vx_.data(), vy_.data(), vz_.data()},
            {ax_.data(), ay_.data(), az_.data()},
            m_.data(),
            count()};
  }
  Tc eps2() const { return static_cast<Tc>(this->gravity().eps2()); }
  std::size_t potential_blocks() const { return std::size_t(blocks_for(n_, PotentialPolicy::kBlock)); }
  int elementwise_blocks() const { return std::max(1, std::min(blocks_for(n_, kElementwiseBlock), 65535)); }

  BodiesView<T> state_view() const {
    return {x_[cur_].data(), y_[cur_].data(), z_[cur_].data(), m_.data(), count()};
  }
  BodiesView<Tc> compute_view() const {
    if constexpr (Mixed) {
      return {xf_.data(), yf_.data(), zf_.data(), mf_.data(), count()};
    } else {
      return state_view();
    }
  }

  template <class Epilogue>
  void launch_forces(const Epilogue& finish) {
    gravity::with_pair_law<Tc>(this->gravity(), [&](const auto pair) {
      direct::cuda::launch_direct_sum(shape_, compute_view(), pair, finish, split_, stream_.get());
    });
  }

  void refresh_compute_copies(bool with_masses) {
    if constexpr (Mixed) {
      direct::cuda::round_to_float_kernel<<<elementwise_blocks(), kElementwiseBlock, 0, stream_.get()>>>(
          x_[cur_].data(), y_[cur_].data(), z_[cur_].data(), with_masses ? m_.data() : nullptr, count(), xf_.data(),
          yf_.data(), zf_.data(), mf_.data());
      NBODY_CUDA_CHECK_LAUNCH();
    } else {
      (void)with_masses;
    }
  }

  std::vector<double> fetch_partials(std::size_t count) {
    partials_.download(host_partials_.data(), count, stream_.get());
    stream_.synchronize();
    return {host_partials_.begin(), host_partials_.begin() + static_cast<std::ptrdiff_t>(count)};
  }

  std::size_t n_;
  std::string device_name_;
  DirectShape shape_;
  cuda::Stream stream_;
  DeviceBuffer<T> x_[2], y_[2], z_[2];  // positions, double-buffered for the fused Euler step
  int cur_ = 0;
  DeviceBuffer<T> vx_, vy_, vz_, m_, ax_, ay_, az_;
  DeviceBuffer<float> xf_, yf_, zf_, mf_;  // mixed only
  direct::cuda::SplitBuffers<Acc> split_;
  DeviceBuffer<double> partials_;
  std::vector<double> host_partials_;
  std::vector<std::uint64_t> ids_;
  direct::cuda::HermiteDevice<T> hermite_;
  std::vector<EulerGraph> graphs_;
};

KernelArithmetic arithmetic_of(std::size_t type_size, bool mixed) {
  if (mixed) return KernelArithmetic::mixed;
  return type_size == 4 ? KernelArithmetic::fp32 : KernelArithmetic::fp64;
}

}  // namespace

DeviceSlots device_slots(const cuda::DeviceInfo& dev) {
  DeviceSlots d;
  d.sm_count = dev.sm_count;
  return d;
}

template <class T>
std::size_t cuda_backend_bytes(std::size_t n, bool mixed, const DirectShape& shape) noexcept {
  const std::size_t partials =
      std::max<std::size_t>(std::size_t(MomentsPolicy::kBlocks) * MomentsPolicy::kQuantities,
                            std::size_t(blocks_for(n, PotentialPolicy::kBlock)));
  const std::size_t split = mixed ? direct::cuda::SplitBuffers<double>::bytes(shape, n)
                                  : direct::cuda::SplitBuffers<T>::bytes(shape, n);
  return n * 13 * sizeof(T) + (mixed ? n * 4 * sizeof(float) : 0) + split + partials * sizeof(double);
}

template <class T>
std::unique_ptr<Backend<T>> make_cuda_backend(std::size_t n, const GravityParams& g, bool mixed,
                                              std::string_view kernel_shape) {
  if (mixed && sizeof(T) != 8) throw_runtime_error("mixed precision keeps the state in float64");
  cuda::DeviceInfo dev;
  std::string why;
  if (!cuda::query_device(0, &dev, &why)) {
    throw_input_error("backend: cuda needs a usable CUDA device, but " + why);
  }
  const KernelArithmetic arithmetic = arithmetic_of(sizeof(T), mixed);
  DirectShape shape = choose_shape(static_cast<std::int64_t>(n), arithmetic, device_slots(dev));
  if (!kernel_shape.empty()) {
    const auto asked = parse_direct_shape(kernel_shape);
    if (!asked || !is_compiled(*asked, arithmetic)) {
      std::string known;
      for (const DirectShape& c : compiled_shapes(arithmetic)) known += (known.empty() ? "" : ", ") + c.text();
      throw_input_error("kernel shape: '" + std::string(kernel_shape) + "' is not a compiled " +
                        std::string(mixed ? "mixed" : sizeof(T) == 4 ? "fp32" : "fp64") + " shape (compiled: " + known +
                        "; any power-of-two slice count)");
    }
    shape = *asked;
    shape.slices = std::min(shape.slices, max_slices(static_cast<std::int64_t>(n), shape));
  }
  const std::size_t need = cuda_backend_bytes<T>(n, mixed, shape);
  // Leave a margin for the CUDA context's own allocations.
  if (double(need) > 0.95 * double(dev.free_memory)) {
    throw_input_error("n: " + std::to_string(n) + " bodies need " + format_bytes(double(need)) +
                      " of GPU memory, but " + dev.name + " has " + format_bytes(double(dev.free_memory)) +
                      " free");
  }
  if (mixed) {
    if constexpr (sizeof(T) == 8) return std::make_unique<CudaBackend<T, true>>(n, g, dev, shape);
  }
  return std::make_unique<CudaBackend<T, false>>(n, g, dev, shape);
}

template std::unique_ptr<Backend<float>> make_cuda_backend<float>(std::size_t, const GravityParams&, bool,
                                                                  std::string_view);
template std::unique_ptr<Backend<double>> make_cuda_backend<double>(std::size_t, const GravityParams&, bool,
                                                                    std::string_view);
template std::size_t cuda_backend_bytes<float>(std::size_t, bool, const DirectShape&) noexcept;
template std::size_t cuda_backend_bytes<double>(std::size_t, bool, const DirectShape&) noexcept;

}  // namespace nbody
