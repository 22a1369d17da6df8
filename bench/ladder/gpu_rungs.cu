// The documents' CUDA kernels, rebuilt from their descriptions on the documents' array of
// {x, y, z, vx, vy, vz} structures, each a ladder rung:
//   gpu-naive           one thread per body, every source read from global memory
//   gpu-shared          tiles of BLOCK_SIZE sources staged in shared memory
//   gpu-split           the sources of a body split over BLOCK_STRIDE blocks, velocities
//                       combined with atomicAdd (documents 000, 001, 003)
//   gpu-split-unrolled  the same with the inner loop unrolled
// followed, as in the documents, by a separate position-update kernel. The pair interaction is the
// documents' own arithmetic (DocumentsPair below), not the production pair code: what separates
// these rungs from gpu-best is measured, not shared.
#include <algorithm>
#include <string>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/device_buffer.hpp"
#include "ladder/documents_body.hpp"
#include "ladder/gpu_rungs.hpp"
#include "nbody/error.hpp"
#include "sim/documents_program.hpp"

namespace nbody::bench {
namespace {

using nbody::cuda::DeviceBuffer;

template <class T>
using Body = DocumentsBody<T>;

template <class T>
struct Pos3 {
  T x, y, z;
};

// The documents' pair term, as they write it (unit masses):
//   distSqr = dx*dx + dy*dy + dz*dz + SOFTENING; invDist = rsqrtf(distSqr);
//   invDist3 = invDist * invDist * invDist; Fx += dx * invDist3; ...
// rsqrtf() keeps its fix-up for subnormal inputs (this build does not flush to zero), and in
// float64 rsqrt() is CUDA's correctly rounded-to-1-ulp library function. The production kernel's
// bare MUFU.RSQ and fused float64 m/r^3 (gravity/interaction.hpp) are steps of gpu-best.
template <class T>
struct DocumentsPair {
  T eps2;

  __device__ __forceinline__ void accumulate(T dx, T dy, T dz, T& fx, T& fy, T& fz) const {
    const T dist_sqr = dx * dx + dy * dy + dz * dz + eps2;
    T inv_dist;
    if constexpr (sizeof(T) == 4) {
      inv_dist = rsqrtf(dist_sqr);
    } else {
      inv_dist = rsqrt(dist_sqr);
    }
    const T inv_dist3 = inv_dist * inv_dist * inv_dist;
    fx += dx * inv_dist3;
    fy += dy * inv_dist3;
    fz += dz * inv_dist3;
  }
};

template <class T>
using Pair = DocumentsPair<T>;

template <class T>
__global__ void naive_body_force(Body<T>* p, T dt, int n, Pair<T> pair) {
  const int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i < n) {
    T fx = 0, fy = 0, fz = 0;
    for (int j = 0; j < n; ++j) {
      pair.accumulate(p[j].x - p[i].x, p[j].y - p[i].y, p[j].z - p[i].z, fx, fy, fz);
    }
    p[i].vx += dt * fx;
    p[i].vy += dt * fy;
    p[i].vz += dt * fz;
  }
}

template <class T, int Block>
__global__ void shared_body_force(Body<T>* p, T dt, int n, Pair<T> pair) {
  __shared__ Pos3<T> tile[Block];
  const int i = threadIdx.x + Block * blockIdx.x;
  const T xi = i < n ? p[i].x : T(0), yi = i < n ? p[i].y : T(0), zi = i < n ? p[i].z : T(0);
  T fx = 0, fy = 0, fz = 0;
  for (int base = 0; base < n; base += Block) {
    const int j = base + threadIdx.x;
    if (j < n) tile[threadIdx.x] = {p[j].x, p[j].y, p[j].z};
    __syncthreads();
    const int count = min(Block, n - base);
    for (int k = 0; k < count; ++k) {
      pair.accumulate(tile[k].x - xi, tile[k].y - yi, tile[k].z - zi, fx, fy, fz);
    }
    __syncthreads();
  }
  if (i < n) {
    p[i].vx += dt * fx;
    p[i].vy += dt * fy;
    p[i].vz += dt * fz;
  }
}

// Grid: (bodies / Block) x stride blocks. Block b serves bodies of group b / stride and the tiles
// t = b % stride, b % stride + stride, ... of the sources; the partial forces meet in atomicAdd.
template <class T, int Block, int Unroll>
__global__ void split_body_force(Body<T>* p, T dt, int n, int stride, Pair<T> pair) {
  __shared__ Pos3<T> tile[Block];
  const int i = threadIdx.x + (blockIdx.x / stride) * Block;
  const int first_tile = blockIdx.x % stride;
  const int tiles = (n + Block - 1) / Block;
  const T xi = i < n ? p[i].x : T(0), yi = i < n ? p[i].y : T(0), zi = i < n ? p[i].z : T(0);
  T fx = 0, fy = 0, fz = 0;
  for (int t = first_tile; t < tiles; t += stride) {
    const int j = t * Block + threadIdx.x;
    if (j < n) tile[threadIdx.x] = {p[j].x, p[j].y, p[j].z};
    __syncthreads();
    const int count = min(Block, n - t * Block);
#pragma unroll Unroll
    for (int k = 0; k < count; ++k) {
      pair.accumulate(tile[k].x - xi, tile[k].y - yi, tile[k].z - zi, fx, fy, fz);
    }
    __syncthreads();
  }
  if (i < n) {
    atomicAdd(&p[i].vx, dt * fx);
    atomicAdd(&p[i].vy, dt * fy);
    atomicAdd(&p[i].vz, dt * fz);
  }
}

template <class T>
__global__ void integrate_position(Body<T>* p, T dt, int n) {
  const int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i < n) {
    p[i].x += p[i].vx * dt;
    p[i].y += p[i].vy * dt;
    p[i].z += p[i].vz * dt;
  }
}

enum class Kind { naive, shared, split, split_unrolled };

template <class T>
class DocumentsRung final : public Rung {
 public:
  DocumentsRung(std::string name, Kind kind, std::size_t n, int block, int stride)
      : name_(std::move(name)), kind_(kind), n_(static_cast<int>(n)), block_(block), stride_(stride), d_(n), h_(n) {}

  std::string name() const override { return name_; }
  bool on_gpu() const override { return true; }
  std::string shape() const override {
    std::string s = "block " + std::to_string(block_);
    if (kind_ == Kind::split || kind_ == Kind::split_unrolled) s += " x stride " + std::to_string(stride_);
    if (kind_ == Kind::split_unrolled) s += ", unroll " + std::to_string(std::min(kSplitUnroll, block_));
    return s;
  }

  void reset(const Particles<double>& p) override {
    to_documents_bodies(p, h_);
    d_.upload(h_.data(), h_.size(), stream_.get());
    stream_.synchronize();
  }

  double run_timed(int count) override {
    nbody::cuda::Event start, stop;
    start.record(stream_.get());
    for (int s = 0; s < count; ++s) step();
    stop.record(stream_.get());
    return stop.seconds_since(start);
  }

  Particles<double> state() override {
    d_.download(h_.data(), h_.size(), stream_.get());
    stream_.synchronize();
    return from_documents_bodies(h_);
  }

 private:
  void step() {
    const T dt = T(kDocumentsDt);
    const Pair<T> pair{T(kDocumentsEps2)};
    const int blocks = (n_ + block_ - 1) / block_;
    cudaStream_t s = stream_.get();
    switch (kind_) {
      case Kind::naive: naive_body_force<T><<<blocks, block_, 0, s>>>(d_.data(), dt, n_, pair); break;
      case Kind::shared: launch_tiled<0>(blocks, dt, pair); break;
      case Kind::split: launch_tiled<1>(blocks, dt, pair); break;
      case Kind::split_unrolled: launch_tiled<2>(blocks, dt, pair); break;
    }
    NBODY_CUDA_CHECK_LAUNCH();
    integrate_position<T><<<blocks, block_, 0, s>>>(d_.data(), dt, n_);
    NBODY_CUDA_CHECK_LAUNCH();
  }

  // Variant 0: shared; 1: split; 2: split with the inner loop unrolled. The block size is a
  // template parameter (shared-memory tile and loop bounds), so each compiled size is listed.
  template <int Variant>
  void launch_tiled(int blocks, T dt, const Pair<T>& pair) {
    bool done = false;
    auto one = [&](auto block_constant) {
      constexpr int B = decltype(block_constant)::value;
      if (done || block_ != B) return;
      done = true;
      cudaStream_t s = stream_.get();
      if constexpr (Variant == 0) {
        shared_body_force<T, B><<<blocks, B, 0, s>>>(d_.data(), dt, n_, pair);
      } else if constexpr (Variant == 1) {
        split_body_force<T, B, 1><<<blocks * stride_, B, 0, s>>>(d_.data(), dt, n_, stride_, pair);
      } else {
        split_body_force<T, B, (B < kSplitUnroll ? B : kSplitUnroll)>
            <<<blocks * stride_, B, 0, s>>>(d_.data(), dt, n_, stride_, pair);
      }
    };
    one(std::integral_constant<int, 8>{});
    one(std::integral_constant<int, 16>{});
    one(std::integral_constant<int, 32>{});
    one(std::integral_constant<int, 64>{});
    one(std::integral_constant<int, 128>{});
    one(std::integral_constant<int, 256>{});
    one(std::integral_constant<int, 512>{});
    if (!done) throw_input_error("block: " + name_ + " is compiled for block sizes 8 ... 512 (powers of two), not " +
                                 std::to_string(block_));
  }

  std::string name_;
  Kind kind_;
  int n_;
  int block_;
  int stride_;
  nbody::cuda::Stream stream_;
  DeviceBuffer<Body<T>> d_;
  std::vector<Body<T>> h_;
};

}  // namespace

std::unique_ptr<Rung> make_documents_gpu_rung(const std::string& name, Precision precision, std::size_t n,
                                              const GpuRungOptions& o) {
  Kind kind;
  int block = o.block, stride = o.stride > 0 ? o.stride : kSplitStride;
  if (name == "gpu-naive") {
    kind = Kind::naive;
    if (block == 0) block = kNaiveBlock;
  } else if (name == "gpu-shared") {
    kind = Kind::shared;
    if (block == 0) block = kSharedBlock;
  } else if (name == "gpu-split" || name == "gpu-split-unrolled") {
    kind = name == "gpu-split" ? Kind::split : Kind::split_unrolled;
    if (block == 0) block = kSplitBlock;
  } else {
    throw_input_error("rung: unknown GPU rung '" + name + "'");
  }
  if (precision == Precision::fp64) return std::make_unique<DocumentsRung<double>>(name, kind, n, block, stride);
  if (precision == Precision::fp32) return std::make_unique<DocumentsRung<float>>(name, kind, n, block, stride);
  throw_input_error("precision: the documents' kernels run in fp32 or fp64");
}

}  // namespace nbody::bench
