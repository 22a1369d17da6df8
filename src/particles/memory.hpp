#pragma once
// Where data lives (host memory, or the memory of one CUDA device) and owning arrays there. No
// CUDA types: every translation unit may include it; device memory exists only in CUDA builds.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace nbody {

enum class MemorySpace { host, device };

// A memory space and, for the device space, the CUDA device ordinal.
struct Location {
  MemorySpace space = MemorySpace::host;
  int device = -1;

  [[nodiscard]] static Location host() noexcept { return {}; }
  [[nodiscard]] static Location cuda(int ordinal) noexcept { return {MemorySpace::device, ordinal}; }
  [[nodiscard]] bool on_device() const noexcept { return space == MemorySpace::device; }
  [[nodiscard]] std::string text() const;  // "host", "cuda:0"
  bool operator==(const Location&) const = default;
};

// The stream device work is ordered on (a cudaStream_t; null on the host).
using StreamHandle = void*;

// Bytes in one location, owned and move-only. Host bytes are 64-byte aligned.
class Buffer {
 public:
  Buffer() = default;
  Buffer(Location where, std::size_t bytes);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept
      : where_(o.where_), data_(std::exchange(o.data_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  Buffer& operator=(Buffer&& o) noexcept {
    std::swap(where_, o.where_);
    std::swap(data_, o.data_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }

  [[nodiscard]] void* data() noexcept { return data_; }
  [[nodiscard]] const void* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }
  [[nodiscard]] Location location() const noexcept { return where_; }

 private:
  Location where_;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Copies `bytes` between any two locations, ordered on `stream` for device memory; returns once
// the destination holds the data when it is host memory.
void copy_bytes(void* dst, Location dst_at, const void* src, Location src_at, std::size_t bytes,
                StreamHandle stream = nullptr);
// Sets `bytes` to zero (ordered on `stream` for device memory).
void zero_bytes(void* dst, Location at, std::size_t bytes, StreamHandle stream = nullptr);

// Free bytes in a location: the device's free memory, or the host memory available to this
// process (host_available_memory: MemAvailable within cgroup and ulimit -v limits).
[[nodiscard]] std::size_t available_bytes(Location at);
// Throws an input error naming `what` ("n: 190000000 bodies") when `bytes` more do not fit in
// the location (a margin is left on the device for the CUDA context).
void require_memory(Location at, std::size_t bytes, const std::string& what);

// A typed array of n values in one location.
template <class V>
class Array {
 public:
  Array() = default;
  Array(Location where, std::size_t n) : buf_(where, n * sizeof(V)), n_(n) {}
  [[nodiscard]] V* data() noexcept { return static_cast<V*>(buf_.data()); }
  [[nodiscard]] const V* data() const noexcept { return static_cast<const V*>(buf_.data()); }
  [[nodiscard]] std::size_t size() const noexcept { return n_; }
  [[nodiscard]] Location location() const noexcept { return buf_.location(); }

 private:
  Buffer buf_;
  std::size_t n_ = 0;
};

}  // namespace nbody
