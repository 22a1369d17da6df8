#include "particles/memory.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#include "core/host_memory.hpp"
#include "nbody/error.hpp"

#if NBODY_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace nbody {
namespace {

#if NBODY_HAVE_CUDA
void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    const std::string msg = std::string("CUDA error: ") + cudaGetErrorString(err) + " (" + cudaGetErrorName(err) +
                            ") in " + what;
    cudaGetLastError();
    throw_runtime_error(msg);
  }
}

// Makes `ordinal` the calling thread's device for the duration of a scope.
class OnDevice {
 public:
  explicit OnDevice(int ordinal) {
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (ordinal != previous_) check(cudaSetDevice(ordinal), "cudaSetDevice");
    changed_ = ordinal != previous_;
  }
  ~OnDevice() {
    if (changed_) cudaSetDevice(previous_);
  }
  OnDevice(const OnDevice&) = delete;
  OnDevice& operator=(const OnDevice&) = delete;

 private:
  int previous_ = 0;
  bool changed_ = false;
};
#else
[[noreturn]] void no_device() {
  throw_runtime_error("device memory requested, but this build of nbody has no CUDA support");
}
#endif

}  // namespace

std::string Location::text() const { return on_device() ? "cuda:" + std::to_string(device) : "host"; }

Buffer::Buffer(Location where, std::size_t bytes) : where_(where), bytes_(bytes) {
  if (bytes == 0) return;
  if (!where.on_device()) {
    data_ = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (data_ == nullptr) throw std::bad_alloc();
    return;
  }
#if NBODY_HAVE_CUDA
  OnDevice on(where.device);
  check(cudaMalloc(&data_, bytes), "cudaMalloc");
#else
  no_device();
#endif
}

Buffer::~Buffer() {
  if (data_ == nullptr) return;
  if (!where_.on_device()) {
    std::free(data_);
    return;
  }
#if NBODY_HAVE_CUDA
  cudaFree(data_);  // cannot throw from a destructor; an error stays sticky
#endif
}

void copy_bytes(void* dst, Location dst_at, const void* src, Location src_at, std::size_t bytes,
                [[maybe_unused]] StreamHandle stream) {
  if (bytes == 0) return;
  if (!dst_at.on_device() && !src_at.on_device()) {
    std::memcpy(dst, src, bytes);
    return;
  }
#if NBODY_HAVE_CUDA
  const auto s = static_cast<cudaStream_t>(stream);
  const int ordinal = dst_at.on_device() ? dst_at.device : src_at.device;
  OnDevice on(ordinal);
  const cudaMemcpyKind kind = dst_at.on_device()   ? (src_at.on_device() ? cudaMemcpyDeviceToDevice
                                                                         : cudaMemcpyHostToDevice)
                              : cudaMemcpyDeviceToHost;
  check(cudaMemcpyAsync(dst, src, bytes, kind, s), "cudaMemcpyAsync");
  // The host side must stay valid (an upload's source) or become valid (a download's target).
  if (!dst_at.on_device() || !src_at.on_device()) check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
#else
  no_device();
#endif
}

void zero_bytes(void* dst, Location at, std::size_t bytes, [[maybe_unused]] StreamHandle stream) {
  if (bytes == 0) return;
  if (!at.on_device()) {
    std::memset(dst, 0, bytes);
    return;
  }
#if NBODY_HAVE_CUDA
  OnDevice on(at.device);
  check(cudaMemsetAsync(dst, 0, bytes, static_cast<cudaStream_t>(stream)), "cudaMemsetAsync");
#else
  no_device();
#endif
}

std::size_t available_bytes(Location at) {
  if (!at.on_device()) return host_available_memory();
#if NBODY_HAVE_CUDA
  OnDevice on(at.device);
  std::size_t free_b = 0, total_b = 0;
  check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  return free_b;
#else
  no_device();
#endif
}

void require_memory(Location at, std::size_t bytes, const std::string& what) {
  const std::size_t have = available_bytes(at);
  if (have == 0) return;  // unknown: let the allocation decide
  // Leave a margin for the CUDA context's own allocations.
  const double usable = at.on_device() ? 0.95 * double(have) : double(have);
  if (double(bytes) > usable) {
    if (at.on_device()) {
      throw_input_error(what + " need " + format_bytes(double(bytes)) + " of GPU memory, but " + at.text() + " has " +
                        format_bytes(double(have)) + " free");
    }
    throw_input_error(what + " need " + format_bytes(double(bytes)) + " of host memory, but this machine has " +
                      format_bytes(double(have)) + " available");
  }
}

}  // namespace nbody
