// The ensemble's GPU path: one warp a system (system_step.hpp with the warp's lanes over the
// bodies), or one block a system for the large ones (kBlockBodies); the systems that still run
// listed before each launch, so that a stopped system takes no warp. Compiled with -fmad=false (src/ensemble/CMakeLists.txt): each system follows the
// CPU path's arithmetic operation for operation.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/device_buffer.hpp"
#include "ensemble/cuda/gpu_backend.hpp"
#include "ensemble/cuda/launch_policy.hpp"
#include "ensemble/system_step.hpp"
#include "nbody/error.hpp"

namespace nbody::ensemble::cuda {
namespace {

using Policy = EnsemblePolicy;
using nbody::cuda::DeviceBuffer;

struct WarpExec {
  int lane;
  template <class F>
  __device__ void for_bodies(int n, F&& f) {
    for (int i = lane; i < n; i += Policy::kWarp) f(i);
  }
  __device__ void sync() { __syncwarp(); }
};

// The store on the device: the bodies, the offsets, the states, the work arrays.
struct DeviceView {
  double *x, *y, *z, *vx, *vy, *vz, *m;
  const long long* offset;
  SystemState* state;
  double* scratch;  // kScratchArrays x bodies
  long long bodies;
  const long long* work;  // the systems to integrate
  long long count;
};

struct BlockExec {
  template <class F>
  __device__ void for_bodies(int n, F&& f) {
    for (int i = int(threadIdx.x); i < n; i += int(blockDim.x)) f(i);
  }
  __device__ void sync() { __syncthreads(); }
};

__device__ void copy_in(double* dst, const double* src, int n, int lane) {
  for (int i = lane; i < n; i += Policy::kWarp) dst[i] = src[i];
}

// mode 0: start_system; 1: advance_system to t_target.
__global__ void __launch_bounds__(Policy::kBlock) ensemble_kernel(DeviceView v, Params p, double t_target, int mode) {
  __shared__ double shared[Policy::kWarpsPerBlock * Policy::kSharedBodies * Policy::kDoublesPerBody];
  const int warp = int(threadIdx.x) / Policy::kWarp, lane = int(threadIdx.x) % Policy::kWarp;
  const long long q = (long long)blockIdx.x * Policy::kWarpsPerBlock + warp;
  if (q >= v.count) return;
  const long long k = v.work[q];
  const long long b = v.offset[k];
  const int n = int(v.offset[k + 1] - b);
  SystemRef s;
  s.n = n;
  double* slots[kScratchArrays];
  const bool staged = n <= Policy::kSharedBodies;
  if (staged) {
    double* base = shared + warp * Policy::kSharedBodies * Policy::kDoublesPerBody;
    double* body[7];
    for (int a = 0; a < 7; ++a) body[a] = base + a * Policy::kSharedBodies;
    copy_in(body[0], v.x + b, n, lane), copy_in(body[1], v.y + b, n, lane), copy_in(body[2], v.z + b, n, lane);
    copy_in(body[3], v.vx + b, n, lane), copy_in(body[4], v.vy + b, n, lane), copy_in(body[5], v.vz + b, n, lane);
    copy_in(body[6], v.m + b, n, lane);
    s.x = body[0], s.y = body[1], s.z = body[2], s.vx = body[3], s.vy = body[4], s.vz = body[5], s.m = body[6];
    for (int a = 0; a < kScratchArrays; ++a) slots[a] = base + (7 + a) * Policy::kSharedBodies;
  } else {
    s.x = v.x + b, s.y = v.y + b, s.z = v.z + b, s.vx = v.vx + b, s.vy = v.vy + b, s.vz = v.vz + b, s.m = v.m + b;
    for (int a = 0; a < kScratchArrays; ++a) slots[a] = v.scratch + a * v.bodies + b;
  }
  double** refs[] = {&s.ax,  &s.ay,  &s.az,  &s.jx,  &s.jy,  &s.jz,  &s.x0,  &s.y0,  &s.z0, &s.vx0,
                     &s.vy0, &s.vz0, &s.ax0, &s.ay0, &s.az0, &s.jx0, &s.jy0, &s.jz0, &s.w};
  for (int a = 0; a < kScratchArrays; ++a) *refs[a] = slots[a];
  __syncwarp();
  SystemState st = v.state[k];
  WarpExec ex{lane};
  if (mode == 0) start_system(s, p, st, ex);
  else advance_system(s, p, st, t_target, ex);
  __syncwarp();
  if (staged) {
    double* dst[6] = {v.x + b, v.y + b, v.z + b, v.vx + b, v.vy + b, v.vz + b};
    const double* src[6] = {s.x, s.y, s.z, s.vx, s.vy, s.vz};
    for (int a = 0; a < 6; ++a) copy_in(dst[a], src[a], n, lane);
  }
  if (lane == 0) v.state[k] = st;
}

// One block a system (at least kBlockBodies bodies): bodies and work arrays in global memory.
// Every thread holds the same SystemState and takes the same branches, so each __syncthreads
// is reached by all.
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
                     &s.vy0, &s.vz0, &s.ax0, &s.ay0, &s.az0, &s.jx0, &s.jy0, &s.jz0, &s.w};
  for (int a = 0; a < kScratchArrays; ++a) *refs[a] = v.scratch + a * v.bodies + b;
  SystemState st = v.state[k];
  BlockExec ex;
  if (mode == 0) start_system(s, p, st, ex);
  else advance_system(s, p, st, t_target, ex);
  __syncthreads();
  if (threadIdx.x == 0) v.state[k] = st;
}

class GpuBackend final : public Backend {
 public:
  GpuBackend() {
    nbody::cuda::DeviceInfo info;
    std::string why;
    if (!nbody::cuda::query_device(0, &info, &why)) throw_input_error("ensemble: run.device = \"cuda\": " + why);
    name_ = "GPU (" + info.name + ", one warp a system)";
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
    scratch_ = DeviceBuffer<double>(s.largest_system() > Policy::kSharedBodies ? kScratchArrays * n : 1);
    work_ = DeviceBuffer<long long>(std::max<std::size_t>(systems, 1));
    stream_->synchronize();  // (the host vectors may change once this returns)
    uploaded_for_ = &s;
    bodies_ = s.bodies();
  }

  void launch(EnsembleStore& s, const Params& p, double t_target, int mode, bool running_only) {
    // The systems to integrate, in order (the states on the host are current): those a warp
    // takes, then those a block takes.
    std::vector<long long> list, large;
    list.reserve(std::size_t(s.systems()));
    for (std::int64_t k = 0; k < s.systems(); ++k)
      if (!running_only || s.state[std::size_t(k)].status == int(Outcome::running))
        (s.size_of(k) >= Policy::kBlockBodies ? large : list).push_back(k);
    const auto small_count = (long long)list.size();
    list.insert(list.end(), large.begin(), large.end());
    if (list.empty()) return;
    work_.upload(list.data(), list.size(), stream_->get());
    DeviceView v{body_[0].data(), body_[1].data(), body_[2].data(), body_[3].data(), body_[4].data(),
                 body_[5].data(), body_[6].data(), offset_.data(), state_.data(), scratch_.data(),
                 (long long)s.bodies(), work_.data(), small_count};
    if (small_count > 0) {
      const long long blocks = (small_count + Policy::kWarpsPerBlock - 1) / Policy::kWarpsPerBlock;
      if (blocks > 2147483647LL) throw_input_error("ensemble: too many systems for one launch");
      ensemble_kernel<<<unsigned(blocks), Policy::kBlock, 0, stream_->get()>>>(v, p, t_target, mode);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    if (!large.empty()) {
      v.work = work_.data() + small_count;
      v.count = (long long)large.size();
      if (v.count > 2147483647LL) throw_input_error("ensemble: too many systems for one launch");
      ensemble_block_kernel<<<unsigned(v.count), Policy::kLargeBlock, 0, stream_->get()>>>(v, p, t_target, mode);
      NBODY_CUDA_CHECK_LAUNCH();
    }
    state_.download(s.state.data(), std::size_t(s.systems()), stream_->get());
    stream_->synchronize();
  }

  std::string name_;
  std::unique_ptr<nbody::cuda::Stream> stream_;
  DeviceBuffer<double> body_[7];
  DeviceBuffer<long long> offset_, work_;
  DeviceBuffer<SystemState> state_;
  DeviceBuffer<double> scratch_;
  const EnsembleStore* uploaded_for_ = nullptr;
  std::int64_t bodies_ = -1;
};

}  // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<GpuBackend>(); }

bool available() {
  nbody::cuda::DeviceInfo info;
  std::string why;
  return nbody::cuda::query_device(0, &info, &why);
}

}  // namespace nbody::ensemble::cuda
