// The ensemble's GPU path: a group of lanes a system through system_step.hpp (a warp, or for
// a system of at most 16 bodies a group of 4, 8 or 16 lanes, several systems a warp), one block
// a system for the large ones (GpuShape::block_bodies), or, for the small systems of a
// fixed-step integrator, a group of lanes a system with the state in registers
// (group_kernel.cu); the systems that still run listed before each launch, so that a stopped
// system takes no lanes. The bodies stay on the device between intervals (fetch copies them
// back); each call copies back the per-system states only. Compiled with -fmad=false
// (src/ensemble/CMakeLists.txt): each system follows the CPU path's arithmetic operation for
// operation.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/device_buffer.hpp"
#include "ensemble/cuda/device_view.hpp"
#include "ensemble/cuda/group_exec.cuh"
#include "ensemble/cuda/gpu_backend.hpp"
#include "ensemble/cuda/group_kernel.cuh"
#include "ensemble/cuda/launch_policy.hpp"
#include "ensemble/system_step.hpp"
#include "nbody/error.hpp"

namespace nbody::ensemble::cuda {
namespace {

using Policy = EnsemblePolicy;

// IAS15's table: the host's bits (radau_table()), copied once by the backend; every lane reads
// the same entry at once (a broadcast of the constant cache).
__constant__ RadauTable radau_constant;
static_assert(Policy::kDoublesPerBody == 7 + kScratchArrays, "a staged body: its state, its mass, the work arrays");
using nbody::cuda::DeviceBuffer;

struct BlockExec {
  template <class F>
  __device__ void for_bodies(int n, F&& f) {
    for (int i = int(threadIdx.x); i < n; i += int(blockDim.x)) f(i);
  }
  __device__ void sync() { __syncthreads(); }
};

template <int G>
__device__ void copy_in(double* dst, const double* src, int n, int lane) {
  for (int i = lane; i < n; i += G) dst[i] = src[i];
}

// One group of G lanes a system (G = 32: a warp; smaller groups for systems of at most G bodies,
// several a warp): system_step.hpp over the group's lanes, a system of at most G bodies staged
// in the block's shared memory (its bodies and work arrays), a larger one in global memory.
// mode 0: start_system; 1: advance_system to t_target (kIas15: IAS15's, else the others').
template <int G, bool kIas15>
__global__ void __launch_bounds__(Policy::kBlock) ensemble_kernel(DeviceView v, Params p, double t_target, int mode) {
  static_assert(Policy::kBlock % G == 0 && G <= Policy::kSharedBodies, "groups of a block, staged");
  constexpr int kGroups = Policy::kBlock / G;
  __shared__ double shared[Policy::kBlock * Policy::kDoublesPerBody];
  const int grp = int(threadIdx.x) / G, lane = int(threadIdx.x) % G;
  const unsigned mask = group_mask<G>(int(threadIdx.x));
  const long long q = (long long)blockIdx.x * kGroups + grp;
  if (q >= v.count) return;  // (the whole group)
  const long long k = v.work[q];
  const long long b = v.offset[k];
  const int n = int(v.offset[k + 1] - b);
  SystemRef s;
  s.n = n;
  double* slots[kScratchArrays];
  const bool staged = n <= G;
  if (staged) {
    double* base = shared + grp * G * Policy::kDoublesPerBody;
    double* body[7];
    for (int a = 0; a < 7; ++a) body[a] = base + a * G;
    copy_in<G>(body[0], v.x + b, n, lane), copy_in<G>(body[1], v.y + b, n, lane), copy_in<G>(body[2], v.z + b, n, lane);
    copy_in<G>(body[3], v.vx + b, n, lane), copy_in<G>(body[4], v.vy + b, n, lane), copy_in<G>(body[5], v.vz + b, n, lane);
    copy_in<G>(body[6], v.m + b, n, lane);
    s.x = body[0], s.y = body[1], s.z = body[2], s.vx = body[3], s.vy = body[4], s.vz = body[5], s.m = body[6];
    for (int a = 0; a < kScratchArrays; ++a) slots[a] = base + (7 + a) * G;
  } else {
    s.x = v.x + b, s.y = v.y + b, s.z = v.z + b, s.vx = v.vx + b, s.vy = v.vy + b, s.vz = v.vz + b, s.m = v.m + b;
    for (int a = 0; a < kScratchArrays; ++a) slots[a] = v.scratch + a * v.bodies + b;
  }
  double** refs[] = {&s.ax,  &s.ay,  &s.az,  &s.jx,  &s.jy,  &s.jz,  &s.x0,  &s.y0,  &s.z0, &s.vx0,
                     &s.vy0, &s.vz0, &s.ax0, &s.ay0, &s.az0, &s.jx0, &s.jy0, &s.jz0, &s.w,
                     &s.cx,  &s.cy,  &s.cz,  &s.cvx, &s.cvy, &s.cvz};
  for (int a = 0; a < kScratchArrays; ++a) *refs[a] = slots[a];
  if (v.ias != nullptr) s.ias = v.ias + b, s.ias_stride = v.bodies;  // (global memory, staged or not)
  __syncwarp(mask);
  SystemState st = v.state[k];
  GroupExec<G> ex{lane, mask};
  if (mode == 0) start_system(s, p, st, ex);
  else if constexpr (kIas15) advance_ias15(radau_constant, s, p, st, t_target, ex);
  else advance_fixed_or_hermite(s, p, st, t_target, ex);
  __syncwarp(mask);
  if (staged) {
    double* dst[6] = {v.x + b, v.y + b, v.z + b, v.vx + b, v.vy + b, v.vz + b};
    const double* src[6] = {s.x, s.y, s.z, s.vx, s.vy, s.vz};
    for (int a = 0; a < 6; ++a) copy_in<G>(dst[a], src[a], n, lane);
  }
  if (lane == 0) v.state[k] = st;
}

template <int G>
void launch_lanes(const DeviceView& v, const Params& p, double t_target, int mode, cudaStream_t stream) {
  if (v.count <= 0) return;
  constexpr int kGroups = Policy::kBlock / G;
  const long long blocks = (v.count + kGroups - 1) / kGroups;
  if (blocks > 2147483647LL) throw_input_error("ensemble: too many systems for one launch");
  if (p.integrator == Integrator::ias15)
    ensemble_kernel<G, true><<<unsigned(blocks), Policy::kBlock, 0, stream>>>(v, p, t_target, mode);
  else
    ensemble_kernel<G, false><<<unsigned(blocks), Policy::kBlock, 0, stream>>>(v, p, t_target, mode);
  NBODY_CUDA_CHECK_LAUNCH();
}

// One block a system (at least GpuShape::block_bodies bodies): bodies and work arrays in global memory.
// Every thread holds the same SystemState and takes the same branches, so each __syncthreads
// is reached by all.
template <bool kIas15>
__global__ void __launch_bounds__(Policy::kLargeBlock) ensemble_block_kernel(DeviceView v, Params p, double t_target,
                                                                             int mode) {
  const long long q = (long long)blockIdx.x;
  if (q >= v.count) return;
  const long long k = v.work[q];
  const long long b = v.offset[k];
  SystemRef s;
  s.n = int(v.offset[k + 1] - b);
  s.x = v.x + b, s.y = v.y + b, s.z = v.z + b, s.vx = v.vx + b, s.vy = v.vy + b, s.vz = v.vz + b, s.m = v.m + b;
  double** refs[] = {&s.ax,  &s.ay,  &s.az,  &s.jx,  &s.jy,  &s.jz,  &s.x0,  &s.y0,  &s.z0, &s.vx0,
                     &s.vy0, &s.vz0, &s.ax0, &s.ay0, &s.az0, &s.jx0, &s.jy0, &s.jz0, &s.w,
                     &s.cx,  &s.cy,  &s.cz,  &s.cvx, &s.cvy, &s.cvz};
  for (int a = 0; a < kScratchArrays; ++a) *refs[a] = v.scratch + a * v.bodies + b;
  if (v.ias != nullptr) s.ias = v.ias + b, s.ias_stride = v.bodies;
  SystemState st = v.state[k];
  BlockExec ex;
  if (mode == 0) start_system(s, p, st, ex);
  else if constexpr (kIas15) advance_ias15(radau_constant, s, p, st, t_target, ex);
  else advance_fixed_or_hermite(s, p, st, t_target, ex);
  __syncthreads();
  if (threadIdx.x == 0) v.state[k] = st;
}

class GpuBackend final : public Backend {
 public:
  explicit GpuBackend(const GpuShape& shape) : shape_(shape) {
    nbody::cuda::DeviceInfo info;
    std::string why;
    if (!nbody::cuda::query_device(0, &info, &why)) throw_input_error("ensemble: run.device = \"cuda\": " + why);
    if (shape_.block_bodies < 2) throw_input_error("ensemble: the block shape's threshold must be >= 2 bodies");
    if (shape_.group_max < 0 || shape_.group_max > Policy::kGroupMaxBodies)
      throw_input_error("ensemble: the group shape takes systems of at most " + std::to_string(Policy::kGroupMaxBodies) +
                        " bodies");
    name_ = "GPU (" + info.name + ", " + shape_name(shape_) + ")";
    NBODY_CUDA_CHECK(cudaMemcpyToSymbol(radau_constant, &radau_table(), sizeof(RadauTable)));
    stream_ = std::make_unique<nbody::cuda::Stream>();  // (after the device is known to be usable)
  }
  [[nodiscard]] std::string name() const override { return name_; }

  void start(EnsembleStore& s, const Params& p) override {
    upload(s);
    launch(s, p, 0.0, 0, false);
  }
  void advance(EnsembleStore& s, const Params& p, double t_target) override {
    if (uploaded_for_ != &s || bodies_ != s.bodies()) upload(s);
    launch(s, p, t_target, 1, true);
  }
  void fetch(EnsembleStore& s) override {
    if (uploaded_for_ != &s) return;
    const auto n = std::size_t(s.bodies());
    std::vector<double>* h[6] = {&s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz};
    for (int a = 0; a < 6; ++a) body_[a].download(h[a]->data(), n, stream_->get());
    stream_->synchronize();
  }

 private:
  void upload(EnsembleStore& s) {
    const auto n = std::size_t(s.bodies()), systems = std::size_t(s.systems());
    std::vector<double>* h[7] = {&s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz, &s.m};
    for (int a = 0; a < 7; ++a) {
      body_[a] = DeviceBuffer<double>(std::max<std::size_t>(n, 1));
      body_[a].upload(h[a]->data(), n, stream_->get());
    }
    std::vector<long long> off(s.offset.begin(), s.offset.end());
    offset_ = DeviceBuffer<long long>(off.size());
    offset_.upload(off.data(), off.size(), stream_->get());
    state_ = DeviceBuffer<SystemState>(std::max<std::size_t>(systems, 1));
    state_.upload(s.state.data(), systems, stream_->get());
    // Work arrays in global memory only for the systems too large to stage in shared memory.
    // (and for every system a block takes).
    const int largest = s.largest_system();
    scratch_ = DeviceBuffer<double>(largest > Policy::kSharedBodies || largest >= shape_.block_bodies ? kScratchArrays * n
                                                                                                      : 1);
    work_ = DeviceBuffer<long long>(std::max<std::size_t>(systems, 1));
    list_.clear();
    stream_->synchronize();  // (the host vectors may change once this returns)
    uploaded_for_ = &s;
    bodies_ = s.bodies();
  }

  // The kernels a system may take (its class): a warp, a block, a register group of 4 ... 32
  // lanes (fixed steps, advance), a group of 4 ... 16 lanes through system_step.hpp (the others).
  static constexpr int kGroupSizes[] = {4, 8, 16, 32};
  static constexpr int kClasses = 2 + 4 + 3;
  [[nodiscard]] int class_of(int n, const Params& p, int mode) const {
    if (n >= shape_.block_bodies) return 1;
    if (shape_.group_max > 0 && n <= shape_.group_max) {
      const int g = Policy::group_for(n);
      const int at = g == 4 ? 0 : g == 8 ? 1 : g == 16 ? 2 : 3;
      if (mode == 1 && group_integrator(p.integrator)) return 2 + at;
      if (g < 32) return 6 + at;
    }
    return 0;
  }

  void launch(EnsembleStore& s, const Params& p, double t_target, int mode, bool running_only) {
    // The systems to integrate, in order (the states on the host are current), by class.
    std::vector<long long> by[kClasses];
    for (std::int64_t k = 0; k < s.systems(); ++k) {
      if (running_only && s.state[std::size_t(k)].status != int(Outcome::running)) continue;
      by[class_of(s.size_of(k), p, mode)].push_back(k);
    }
    std::vector<long long> list;
    long long at[kClasses + 1] = {0};
    for (int c = 0; c < kClasses; ++c) {
      list.insert(list.end(), by[c].begin(), by[c].end());
      at[c + 1] = (long long)list.size();
    }
    if (list.empty()) return;
    // The list is copied only when it changed (a system stopped, another store, another shape).
    if (list != list_) {
      work_.upload(list.data(), list.size(), stream_->get());
      list_ = std::move(list);
    }
    // IAS15's work arrays (too many to stage in shared memory) in global memory for every system.
    const bool ias15 = p.integrator == Integrator::ias15;
    if (ias15 && ias_.size() < std::size_t(kIas15Arrays) * std::size_t(s.bodies()))
      ias_ = DeviceBuffer<double>(std::size_t(kIas15Arrays) * std::size_t(s.bodies()));
    DeviceView v{body_[0].data(), body_[1].data(), body_[2].data(), body_[3].data(), body_[4].data(),
                 body_[5].data(), body_[6].data(), offset_.data(), state_.data(), scratch_.data(),
                 ias15 ? ias_.data() : nullptr, (long long)s.bodies(), work_.data(), 0};
    const auto part = [&](int c) {
      v.work = work_.data() + at[c];
      v.count = at[c + 1] - at[c];
      return v;
    };
    cudaStream_t stream = stream_->get();
    launch_lanes<32>(part(0), p, t_target, mode, stream);
    const DeviceView blocks = part(1);
    if (blocks.count > 0) {
      if (blocks.count > 2147483647LL) throw_input_error("ensemble: too many systems for one launch");
      if (ias15)
        ensemble_block_kernel<true><<<unsigned(blocks.count), Policy::kLargeBlock, 0, stream>>>(blocks, p, t_target, mode);
      else
        ensemble_block_kernel<false><<<unsigned(blocks.count), Policy::kLargeBlock, 0, stream>>>(blocks, p, t_target, mode);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    for (int g = 0; g < 4; ++g) launch_group_kernel(part(2 + g), p, t_target, kGroupSizes[g], stream);
    launch_lanes<4>(part(6), p, t_target, mode, stream);
    launch_lanes<8>(part(7), p, t_target, mode, stream);
    launch_lanes<16>(part(8), p, t_target, mode, stream);
    state_.download(s.state.data(), std::size_t(s.systems()), stream_->get());
    stream_->synchronize();
  }

  GpuShape shape_;
  std::string name_;
  std::vector<long long> list_;  // the work list on the device
  std::unique_ptr<nbody::cuda::Stream> stream_;
  DeviceBuffer<double> body_[7];
  DeviceBuffer<long long> offset_, work_;
  DeviceBuffer<SystemState> state_;
  DeviceBuffer<double> scratch_;
  DeviceBuffer<double> ias_;  // (IAS15 only)
  const EnsembleStore* uploaded_for_ = nullptr;
  std::int64_t bodies_ = -1;
};

}  // namespace

std::unique_ptr<Backend> make_backend(const GpuShape& shape) { return std::make_unique<GpuBackend>(shape); }

bool available() {
  nbody::cuda::DeviceInfo info;
  std::string why;
  return nbody::cuda::query_device(0, &info, &why);
}

}  // namespace nbody::ensemble::cuda
