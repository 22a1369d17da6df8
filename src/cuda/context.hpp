#pragma once
// One CUDA device as the engine uses it: its ordinal, what it is, and the stream on which every
// store, solver and element-wise operation of a simulation orders its work. No CUDA types, so
// any translation unit may include it; implemented in CUDA builds only (context.cu).
#include <functional>
#include <memory>
#include <string>

#include "cuda/device.hpp"
#include "particles/memory.hpp"

namespace nbody {

class DeviceContext {
 public:
  // Device `ordinal` with a new stream. Throws an input error when it cannot be used.
  [[nodiscard]] static std::shared_ptr<DeviceContext> open(int ordinal);
  virtual ~DeviceContext() = default;

  [[nodiscard]] virtual int ordinal() const = 0;
  [[nodiscard]] virtual const cuda::DeviceInfo& info() const = 0;
  [[nodiscard]] virtual StreamHandle stream() const = 0;
  [[nodiscard]] Location location() const { return Location::cuda(ordinal()); }
  // Makes this device the calling thread's current device (launches go to the current device).
  virtual void make_current() const = 0;
  virtual void synchronize() = 0;
  // Runs `work` and returns its duration in seconds from CUDA events on the stream.
  [[nodiscard]] virtual double measure_seconds(const std::function<void()>& work) = 0;
};

}  // namespace nbody
