#pragma once
// An owning, move-only array in GPU memory. Include from .cu files only.
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "cuda/check.hpp"

namespace nbody::cuda {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) : n_(n) {
    if (n_ > 0) NBODY_CUDA_CHECK(cudaMalloc(&ptr_, n_ * sizeof(T)));
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);  // cannot throw from a destructor; the error stays sticky
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(n_, o.n_);
    return *this;
  }

  [[nodiscard]] T* data() noexcept { return ptr_; }
  [[nodiscard]] const T* data() const noexcept { return ptr_; }
  [[nodiscard]] std::size_t size() const noexcept { return n_; }

  void upload(const T* host, std::size_t count, cudaStream_t stream) {
    NBODY_CUDA_CHECK(cudaMemcpyAsync(ptr_, host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  void download(T* host, std::size_t count, cudaStream_t stream) const {
    NBODY_CUDA_CHECK(cudaMemcpyAsync(host, ptr_, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
  }

 private:
  T* ptr_ = nullptr;
  std::size_t n_ = 0;
};

// A CUDA stream owned for the lifetime of a backend.
class Stream {
 public:
  Stream() { NBODY_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (s_ != nullptr) cudaStreamDestroy(s_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  [[nodiscard]] cudaStream_t get() const noexcept { return s_; }
  void synchronize() const { NBODY_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

// A CUDA event for timing work on a stream (or, made with cudaEventDisableTiming, for waiting
// for part of a stream's work).
class Event {
 public:
  explicit Event(unsigned flags = cudaEventDefault) { NBODY_CUDA_CHECK(cudaEventCreateWithFlags(&e_, flags)); }
  ~Event() {
    if (e_ != nullptr) cudaEventDestroy(e_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(cudaStream_t s) { NBODY_CUDA_CHECK(cudaEventRecord(e_, s)); }
  // Waits for the work queued before the last record (a kernel error before it surfaces here).
  void synchronize() const { NBODY_CUDA_CHECK(cudaEventSynchronize(e_)); }
  // Waits for this event (a kernel error before it surfaces here) and returns the seconds since
  // `start`.
  [[nodiscard]] double seconds_since(const Event& start) const {
    NBODY_CUDA_CHECK(cudaEventSynchronize(e_));
    float ms = 0;
    NBODY_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
    return double(ms) * 1e-3;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

// An owning, move-only array in page-locked host memory: copies from the device into it are
// direct (no staging through a pageable bounce buffer), for small values read back often.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t n) : n_(n) {
    if (n_ > 0) NBODY_CUDA_CHECK(cudaMallocHost(&ptr_, n_ * sizeof(T)));
  }
  ~PinnedBuffer() {
    if (ptr_ != nullptr) cudaFreeHost(ptr_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(n_, o.n_);
    return *this;
  }
  [[nodiscard]] T* data() noexcept { return ptr_; }
  [[nodiscard]] std::size_t size() const noexcept { return n_; }

 private:
  T* ptr_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace nbody::cuda
