// The CUDA direct sum as a force solver: the production kernels of direct_kernels.cuh launched
// for a target view from a source view, the potential, the Hermite acceleration-and-jerk pass,
// and the documents' Euler step fused into the force pass (batched into CUDA graphs).
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "core/host_memory.hpp"
#include "cuda/check.hpp"
#include "cuda/context.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/for_each.cuh"
#include "gravity/direct/cuda/acc_jerk_kernel.cuh"
#include "gravity/direct/cuda/snap_crackle_kernel.cuh"
#include "gravity/direct/cuda/cuda_direct_solver.hpp"
#include "gravity/direct/cuda/direct_launch.cuh"
#include "gravity/pair_law.hpp"
#include "nbody/error.hpp"
#include "particles/functors.hpp"

namespace nbody {
namespace {

using cuda::DeviceBuffer;
using direct::cuda::PotentialPolicy;

int blocks_for(std::size_t n, int block) { return static_cast<int>((n + block - 1) / block); }

// T: the state's type. Mixed (T = double only): the force kernel reads float32 copies of the
// positions and masses, rounded at the start of every force pass, and sums in float64.
template <class T, bool Mixed>
class CudaDirectSolver final : public ForceSolver<T> {
  using Tc = std::conditional_t<Mixed, float, T>;   // pairwise arithmetic
  using Acc = std::conditional_t<Mixed, double, T>;  // per-body sums

 public:
  CudaDirectSolver(std::shared_ptr<DeviceContext> ctx, std::size_t n, const GravityParams& g, const DirectShape& shape)
      : ForceSolver<T>(g), ctx_(std::move(ctx)), stream_(static_cast<cudaStream_t>(ctx_->stream())), shape_(shape) {
    ctx_->make_current();
    sm_count_ = ctx_->info().sm_count;
    if constexpr (Mixed) {
      for (auto* b : {&xf_, &yf_, &zf_, &mf_}) *b = DeviceBuffer<float>(n);
    }
    if (fused_euler()) {
      for (auto* b : {&x_next_, &y_next_, &z_next_}) *b = DeviceBuffer<T>(n);
    }
    partials_ = DeviceBuffer<double>(std::max<std::size_t>(1, std::size_t(blocks_for(n, PotentialPolicy::kBlock))));
  }
  ~CudaDirectSolver() override { destroy_graphs(); }
  CudaDirectSolver(const CudaDirectSolver&) = delete;
  CudaDirectSolver& operator=(const CudaDirectSolver&) = delete;

  // Bytes of GPU memory the solver allocates for n bodies with a shape (before the first launch).
  static std::size_t bytes(std::size_t n, const GravityParams& g, const DirectShape& shape) {
    const std::size_t split = direct::cuda::SplitBuffers<Acc>::bytes(shape, n);
    const std::size_t copies = Mixed ? n * 4 * sizeof(float) : 0;
    const std::size_t next = fused_euler(g, shape) ? n * 3 * sizeof(T) : 0;
    return split + copies + next + std::size_t(blocks_for(n, PotentialPolicy::kBlock)) * sizeof(double);
  }

  std::string name() const override { return "direct"; }
  std::string kernel() const override { return "direct " + shape_.text() + " " + std::string(to_string(precision())); }
  std::string device() const override { return ctx_->info().name; }
  Location location() const override { return ctx_->location(); }
  Precision precision() const override {
    if constexpr (Mixed) return Precision::mixed;
    return sizeof(T) == 4 ? Precision::fp32 : Precision::fp64;
  }
  SolverCapabilities capabilities() const override {
    SolverCapabilities c{true, true, fused_euler(), true};
    c.snap_crackle = gravity::has_snap_crackle(this->gravity());
    return c;
  }

  double potential_energy(const SourceView<T>& s) override {
    const int blocks = blocks_for(std::size_t(s.n), PotentialPolicy::kBlock);
    if (std::size_t(blocks) > partials_.size()) partials_ = DeviceBuffer<double>(std::size_t(blocks));
    gravity::with_pair_law<T>(this->gravity(), [&](const auto pair) {
      direct::cuda::tiled_potential<T, PotentialPolicy><<<blocks, PotentialPolicy::kBlock, 0, stream_>>>(
          s, pair, partials_.data());
    });
    NBODY_CUDA_CHECK_LAUNCH();
    std::vector<double> sums(static_cast<std::size_t>(blocks));
    partials_.download(sums.data(), sums.size(), stream_);
    NBODY_CUDA_CHECK(cudaStreamSynchronize(stream_));
    double w = 0;
    for (double v : sums) w += v;
    return 0.5 * this->gravity().G * w;
  }

 protected:
  void do_accelerations(const TargetView<T>& t, const SourceView<T>& s, Vec3Span<T> out) override {
    const direct::cuda::StoreAccelerations<Acc, T> store{static_cast<T>(this->gravity().G), out.x, out.y, out.z};
    if constexpr (Mixed) {
      launch_forces(float_targets(t, s), float_sources(s), store);
    } else {
      launch_forces(t, s, store);
    }
  }

  // The launch follows the active count (acc_jerk_shape.hpp): a small active set spreads the
  // sources over many blocks and a second kernel folds the partials, in the one order every
  // mode uses. The scratch grows to the largest split seen and is kept.
  void do_acc_jerk(const IndexView& t, const MotionView<T>& s, Vec3Span<T> acc, Vec3Span<T> jerk) override {
    if (t.count == 0) return;
    using P = direct::AccJerkPolicy;
    const direct::AccJerkShape shape = direct::acc_jerk_shape(s.n, t.count, sm_count_, sizeof(T));
    const std::size_t need = std::size_t(t.count) * std::size_t(shape.parts()) * 6;
    if (jerk_partials_.size() < need) reserve_partials(s.n, need);
    const T G = static_cast<T>(this->gravity().G);
    const dim3 grid(static_cast<unsigned>(shape.target_blocks), static_cast<unsigned>(std::max(1, shape.parts())));
    const int fold_blocks = blocks_for(std::size_t(t.count) * 6 * 32, P::kFoldBlock);  // a warp an element
    with_jerk_law([&](const auto pair) {
      using Pair = decltype(pair);
      using direct::AccJerkMode;
      namespace dc = direct::cuda;
      switch (shape.mode) {
        case AccJerkMode::whole:
          dc::acc_jerk_kernel<T, P, AccJerkMode::whole, Pair>
              <<<grid, P::kBlock, 0, stream_>>>(s, t, pair, G, shape, acc, jerk, nullptr);
          NBODY_CUDA_CHECK_LAUNCH();
          return;
        case AccJerkMode::groups:
          dc::acc_jerk_kernel<T, P, AccJerkMode::groups, Pair>
              <<<grid, P::kBlock, 0, stream_>>>(s, t, pair, G, shape, acc, jerk, jerk_partials_.data());
          break;
        case AccJerkMode::chunks:
          dc::acc_jerk_kernel<T, P, AccJerkMode::chunks, Pair>
              <<<grid, P::kBlock, 0, stream_>>>(s, t, pair, G, shape, acc, jerk, jerk_partials_.data());
          break;
      }
      NBODY_CUDA_CHECK_LAUNCH();
      dc::fold_acc_jerk_partials<T, P>
          <<<fold_blocks, P::kFoldBlock, 0, stream_>>>(jerk_partials_.data(), t.count, shape, G, acc, jerk);
      NBODY_CUDA_CHECK_LAUNCH();
    });
  }

  void do_snap_crackle(const MotionView<T>& s, ConstVec3Span<T> a, ConstVec3Span<T> j, int first, int count,
                       Vec3Span<T> snap, Vec3Span<T> crackle) override {
    if (count <= 0) return;
    namespace dc = direct::cuda;
    const int blocks = (count + dc::kSnapCrackleBlock - 1) / dc::kSnapCrackleBlock;
    dc::snap_crackle_kernel<T><<<blocks, dc::kSnapCrackleBlock, 0, stream_>>>(
        s, a, j, first, count, this->gravity().eps2(), this->gravity().G, snap, crackle);
    NBODY_CUDA_CHECK_LAUNCH();
  }

  // The scratch of every split this N can take, allocated here (never inside a capture).
  void reserve_counted_jerk(std::int64_t sources) override {
    const std::size_t most = direct::acc_jerk_partials(sources, sm_count_, sizeof(T));
    if (jerk_partials_.size() < most) reserve_partials(sources, most);
  }

  // A fixed grid (AccJerkCountedPolicy) whose blocks visit the items of the shape the count on
  // the device gives, then the fold (which returns at once where the shape is whole): two
  // kernels whose launches depend on nothing the host must wait for.
  void do_acc_jerk_counted(const std::int32_t* index, const int* count, int max_count, const MotionView<T>& s,
                           Vec3Span<T> acc, Vec3Span<T> jerk) override {
    using P = direct::AccJerkPolicy;
    using C = direct::AccJerkCountedPolicy;
    if (max_count <= 0) return;
    if (jerk_partials_.size() < direct::acc_jerk_partials(s.n, sm_count_, sizeof(T))) {
      this->unsupported("a counted pass before reserve_counted_jerk");
    }
    const T G = static_cast<T>(this->gravity().G);
    const int blocks = C::item_blocks(sm_count_);
    const int fold_blocks =
        std::min(C::fold_blocks(sm_count_), blocks_for(std::size_t(max_count) * 6 * 32, P::kFoldBlock));
    with_jerk_law([&](const auto pair) {
      using Pair = decltype(pair);
      namespace dc = direct::cuda;
      dc::acc_jerk_counted_kernel<T, P, Pair>
          <<<blocks, P::kBlock, 0, stream_>>>(s, index, count, sm_count_, pair, G, acc, jerk, jerk_partials_.data());
      NBODY_CUDA_CHECK_LAUNCH();
      dc::fold_acc_jerk_counted<T, P>
          <<<fold_blocks, P::kFoldBlock, 0, stream_>>>(jerk_partials_.data(), count, s.n, sm_count_, G, acc, jerk);
      NBODY_CUDA_CHECK_LAUNCH();
    });
  }

  // Batches of kGraphSteps fused steps are captured once into a CUDA graph (per dt and per
  // position buffer they start from) and replayed: the kernels then follow each other without
  // the gap of a separate launch. The positions alternate between the store's arrays and the
  // solver's; an odd count ends with one copy back, so the store's pointers never change.
  void do_euler_steps(const ParticleView<T>& p, double dt, std::int64_t count) override {
    if (!fused_euler()) this->unsupported("fused Euler steps with this softening or shape");
    int cur = 0;  // 0: the positions are in the store's arrays; 1: in x_next_
    while (count >= kGraphSteps) {
      EulerGraph* g = find_graph(p, dt, cur);
      if (g == nullptr) {
        // One ordinary step first: it allocates what a launch needs (a capture may not), and
        // then the graph is captured from the buffer that step leaves current.
        fused_step(p, dt, cur);
        cur = 1 - cur;
        --count;
        if (count < kGraphSteps) break;
        g = &capture_graph(p, dt, cur);
      }
      NBODY_CUDA_CHECK(cudaGraphLaunch(g->exec, stream_));
      count -= kGraphSteps;  // kGraphSteps is even: the steps end on the buffer they started from
    }
    for (; count > 0; --count) {
      fused_step(p, dt, cur);
      cur = 1 - cur;
    }
    if (cur == 1) {
      const std::size_t bytes = std::size_t(p.n) * sizeof(T);
      NBODY_CUDA_CHECK(cudaMemcpyAsync(p.x.x, x_next_.data(), bytes, cudaMemcpyDeviceToDevice, stream_));
      NBODY_CUDA_CHECK(cudaMemcpyAsync(p.x.y, y_next_.data(), bytes, cudaMemcpyDeviceToDevice, stream_));
      NBODY_CUDA_CHECK(cudaMemcpyAsync(p.x.z, z_next_.data(), bytes, cudaMemcpyDeviceToDevice, stream_));
    }
  }

 private:
  static constexpr std::int64_t kGraphSteps = 10;
  static_assert(kGraphSteps % 2 == 0, "a graph must end on the position buffer it started from");

  struct EulerGraph {
    double dt = 0;
    int start = 0;
    const T* store_x = nullptr;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
  };

  // Only softened Plummer in T's own arithmetic is compiled into the fused pass, and it is used
  // where launches are short enough for their gaps to matter (the warp-sliced, small-N shapes).
  // At large N the fused epilogue's extra registers cost more than the two small kernels it
  // saves: measured on an H100 at N = 1M, 1828 billion/s fused against 2090 for the same force
  // kernel followed by separate kick and drift kernels.
  static bool fused_euler(const GravityParams& g, const DirectShape& shape) {
    const bool spline = g.law == SofteningLaw::spline && g.eps2() > 0;
    return !Mixed && g.eps2() > 0 && !spline && shape.warps;
  }
  bool fused_euler() const { return fused_euler(this->gravity(), shape_); }

  Vec3Span<T> positions(const ParticleView<T>& p, int which) {
    if (which == 0) return p.x;
    return {x_next_.data(), y_next_.data(), z_next_.data()};
  }

  // One kernel per step: the force pass from buffer `from` ends with v += a dt and writes
  // x + v dt into the other buffer.
  void fused_step(const ParticleView<T>& p, double dt, int from) {
    const Vec3Span<T> x = positions(p, from), next = positions(p, 1 - from);
    const direct::cuda::EulerUpdate<T> update{static_cast<T>(this->gravity().G), static_cast<T>(dt), next.x, next.y,
                                              next.z, p.v.x, p.v.y, p.v.z};
    const SourceView<T> sources{x.x, x.y, x.z, p.m, p.n};
    const TargetView<T> targets{x.x, x.y, x.z, p.n, 0};
    direct::cuda::launch_direct_sum(shape_, targets, sources, gravity::PlummerPair<T, false>{eps2()}, update, split_,
                                    stream_);
  }

  EulerGraph* find_graph(const ParticleView<T>& p, double dt, int start) {
    for (auto& g : graphs_) {
      if (g.dt == dt && g.start == start && g.store_x == p.x.x) return &g;
    }
    return nullptr;
  }

  // Records kGraphSteps fused steps from buffer `start` without running them.
  EulerGraph& capture_graph(const ParticleView<T>& p, double dt, int start) {
    EulerGraph g;
    g.dt = dt;
    g.start = start;
    g.store_x = p.x.x;
    NBODY_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    try {
      int cur = start;
      for (std::int64_t k = 0; k < kGraphSteps; ++k) {
        fused_step(p, dt, cur);
        cur = 1 - cur;
      }
    } catch (...) {
      cudaGraph_t broken = nullptr;
      cudaStreamEndCapture(stream_, &broken);
      if (broken != nullptr) cudaGraphDestroy(broken);
      throw;
    }
    NBODY_CUDA_CHECK(cudaStreamEndCapture(stream_, &g.graph));
    NBODY_CUDA_CHECK(cudaGraphInstantiate(&g.exec, g.graph, 0));
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

  Tc eps2() const { return static_cast<Tc>(this->gravity().eps2()); }

  // f(pair) with the acceleration-and-jerk pass's pair law. Mixed: float32 Plummer pair terms
  // from hi + lo float32 coordinates, summed in float32 a tile and in float64 over the tiles (the
  // spline law stays float64); unguarded where eps^2 keeps every pair finite.
  template <class F>
  void with_jerk_law(F&& f) {
    const GravityParams& g = this->gravity();
    if constexpr (Mixed) {
      if (!(g.law == SofteningLaw::spline && g.eps2() > 0)) {
        using Unguarded = direct::cuda::MixedPlummerJerk<false>;
        const float eps2 = static_cast<float>(g.eps2());
        if (eps2 >= Unguarded::kSafeEps2) {
          f(Unguarded{eps2});
        } else {
          f(direct::cuda::MixedPlummerJerk<true>{eps2});
        }
        return;
      }
    }
    gravity::with_pair_law<T>(g, f);
  }

  // Once: sized for every split of this N (at least `need` values).
  void reserve_partials(std::int64_t sources, std::size_t need) {
    jerk_partials_ = DeviceBuffer<T>(std::max(need, direct::acc_jerk_partials(sources, sm_count_, sizeof(T))));
  }

  // Mixed: float32 copies of the sources, and of the targets when they are other bodies.
  SourceView<float> float_sources(const SourceView<double>& s) {
    ensure(xf_, s.n), ensure(yf_, s.n), ensure(zf_, s.n), ensure(mf_, s.n);
    cuda::launch_for_each(s.n, particles::RoundToFloat{s, {xf_.data(), yf_.data(), zf_.data()}, mf_.data()}, stream_);
    return {xf_.data(), yf_.data(), zf_.data(), mf_.data(), s.n};
  }
  TargetView<float> float_targets(const TargetView<double>& t, const SourceView<double>& s) {
    if (t.x == s.x && t.y == s.y && t.z == s.z && t.n <= s.n) {
      return {xf_.data(), yf_.data(), zf_.data(), t.n, t.self};  // float_sources rounds them
    }
    ensure(txf_, t.n), ensure(tyf_, t.n), ensure(tzf_, t.n);
    const SourceView<double> from{t.x, t.y, t.z, nullptr, t.n};
    cuda::launch_for_each(t.n, particles::RoundToFloat{from, {txf_.data(), tyf_.data(), tzf_.data()}, nullptr},
                          stream_);
    return {txf_.data(), tyf_.data(), tzf_.data(), t.n, t.self};
  }
  static void ensure(DeviceBuffer<float>& b, int n) {
    if (b.size() < std::size_t(n)) b = DeviceBuffer<float>(std::size_t(n));
  }

  template <class Epilogue>
  void launch_forces(const TargetView<Tc>& t, const SourceView<Tc>& s, const Epilogue& finish) {
    gravity::with_pair_law<Tc>(this->gravity(), [&](const auto pair) {
      direct::cuda::launch_direct_sum(shape_, t, s, pair, finish, split_, stream_);
    });
  }

  std::shared_ptr<DeviceContext> ctx_;
  cudaStream_t stream_;
  DirectShape shape_;
  DeviceBuffer<T> x_next_, y_next_, z_next_;             // fused Euler: the other position buffer
  DeviceBuffer<float> xf_, yf_, zf_, mf_, txf_, tyf_, tzf_;  // mixed only
  direct::cuda::SplitBuffers<Acc> split_;
  DeviceBuffer<double> partials_;
  DeviceBuffer<T> jerk_partials_;  // the split acceleration-and-jerk passes' partials
  int sm_count_ = 0;
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
std::unique_ptr<ForceSolver<T>> make_cuda_direct_solver(const std::shared_ptr<DeviceContext>& device, std::size_t n,
                                                        const GravityParams& g, bool mixed,
                                                        std::string_view kernel_shape, std::size_t other_bytes) {
  if (mixed && sizeof(T) != 8) throw_runtime_error("mixed precision keeps the state in float64");
  const KernelArithmetic arithmetic = arithmetic_of(sizeof(T), mixed);
  DirectShape shape = choose_shape(static_cast<std::int64_t>(n), arithmetic, device_slots(device->info()));
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
  const std::size_t own = mixed ? CudaDirectSolver<double, true>::bytes(n, g, shape)
                                : CudaDirectSolver<T, false>::bytes(n, g, shape);
  require_memory(device->location(), own + other_bytes, "n: " + std::to_string(n) + " bodies");
  if (mixed) {
    if constexpr (sizeof(T) == 8) return std::make_unique<CudaDirectSolver<T, true>>(device, n, g, shape);
  }
  return std::make_unique<CudaDirectSolver<T, false>>(device, n, g, shape);
}

template std::unique_ptr<ForceSolver<float>> make_cuda_direct_solver<float>(const std::shared_ptr<DeviceContext>&,
                                                                            std::size_t, const GravityParams&, bool,
                                                                            std::string_view, std::size_t);
template std::unique_ptr<ForceSolver<double>> make_cuda_direct_solver<double>(const std::shared_ptr<DeviceContext>&,
                                                                              std::size_t, const GravityParams&, bool,
                                                                              std::string_view, std::size_t);

}  // namespace nbody
