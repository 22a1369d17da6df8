#include "particles/store.hpp"

#include <cstring>

#include "nbody/error.hpp"

namespace nbody {

#if NBODY_HAVE_CUDA
// src/cuda/gather.cu
void device_gather(void* dst, const void* src, const std::int32_t* order, std::size_t n, std::size_t width,
                   int ordinal, StreamHandle stream);
void device_synchronize(int ordinal, StreamHandle stream);
#endif

void gather_values(void* dst, const void* src, const std::int32_t* order, std::size_t n, std::size_t width,
                   Location at, StreamHandle stream) {
  if (!at.on_device()) {
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    for (std::size_t k = 0; k < n; ++k) std::memcpy(d + k * width, s + std::size_t(order[k]) * width, width);
    return;
  }
#if NBODY_HAVE_CUDA
  device_gather(dst, src, order, n, width, at.device, stream);
#else
  (void)stream;
  throw_runtime_error("device memory requested, but this build of nbody has no CUDA support");
#endif
}

template <class T>
void ParticleStore<T>::set_segments(std::vector<Segment> segments) {
  std::size_t next = 0;
  for (const auto& s : segments) {
    if (s.offset != next) throw_input_error("segments: they must tile the bodies in order");
    next += s.count;
  }
  if (next != n_) {
    throw_input_error("segments: they cover " + std::to_string(next) + " of " + std::to_string(n_) + " bodies");
  }
  segments_ = std::move(segments);
}

template <class T>
void ParticleStore<T>::missing(std::string_view name) {
  throw_runtime_error("particle store: no field '" + std::string(name) + "'");
}

template <class T>
void ParticleStore<T>::wrong_type(std::string_view name) {
  throw_runtime_error("particle store: field '" + std::string(name) + "' has another type");
}

template <class T>
void ParticleStore<T>::check_size(std::size_t count, const std::string& what) const {
  if (count != n_) {
    throw_runtime_error(what + " of " + std::to_string(count) + " values into a store of " + std::to_string(n_) +
                        " bodies");
  }
}

template <class T>
void ParticleStore<T>::check_permutation(std::span<const std::int32_t> order) const {
  check_size(order.size(), "permutation");
  std::vector<bool> seen(n_, false);
  for (const auto k : order) {
    if (k < 0 || std::size_t(k) >= n_ || seen[std::size_t(k)]) {
      throw_runtime_error("permute: the order is not a permutation of the " + std::to_string(n_) + " bodies");
    }
    seen[std::size_t(k)] = true;
  }
}

template <class T>
void ParticleStore<T>::synchronize_copies() {
#if NBODY_HAVE_CUDA
  if (where_.on_device()) device_synchronize(where_.device, stream_);
#endif
}

template class ParticleStore<float>;
template class ParticleStore<double>;

}  // namespace nbody
