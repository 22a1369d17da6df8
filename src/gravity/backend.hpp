#pragma once
// A backend holds the particle state where it lives (host memory or a GPU) and does there the
// work a step needs: gravity, the kick and drift updates, and the sums for diagnostics.
// Integrators are written against BackendBase only, so every integrator runs on every backend.
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gravity/params.hpp"
#include "nbody/diagnostics.hpp"
#include "nbody/particles.hpp"
#include "nbody/precision.hpp"

namespace nbody {

class BackendBase {
 public:
  virtual ~BackendBase() = default;

  [[nodiscard]] virtual std::string name() const = 0;    // "cpu", "cuda", "cpu-reference"
  [[nodiscard]] virtual std::string device() const = 0;  // what it runs on, for logs and JSON
  // The force kernel and its launch shape, for logs and benchmark records ("direct 128x4/s1").
  [[nodiscard]] virtual std::string kernel() const { return "direct"; }
  [[nodiscard]] virtual Precision precision() const = 0;
  [[nodiscard]] virtual std::size_t size() const = 0;
  [[nodiscard]] const GravityParams& gravity() const noexcept { return gravity_; }

  // Accelerations of the current positions, kept where the particles live.
  void compute_accelerations() {
    do_compute_accelerations();
    accelerations_current_ = true;
  }
  // W = 1/2 sum_i m_i phi_i of the current positions; the accelerations are left untouched, so
  // asking for diagnostics never changes the trajectory.
  [[nodiscard]] virtual double potential_energy() = 0;
  // v += a dt (the accelerations must be current).
  virtual void kick(double dt) = 0;
  // x += v dt; the accelerations are stale afterwards.
  void drift(double dt) {
    do_drift(dt);
    accelerations_current_ = false;
  }
  // The documents' Euler step: v += a(x) dt, then x += v dt. Backends may fuse it into one pass
  // (the CUDA backend does); the result is the same step either way.
  void euler_step(double dt) {
    do_euler_step(dt);
    accelerations_current_ = false;
  }
  [[nodiscard]] virtual Moments moments() = 0;
  // Waits for queued work (GPU backends); a no-op on the host.
  virtual void synchronize() {}
  // Runs `work` (calls on this backend) and returns how long it took in seconds, measured on the
  // backend's own clock: CUDA events on its stream for the GPU, a steady clock on the host.
  virtual double measure_seconds(const std::function<void()>& work) {
    const auto t0 = std::chrono::steady_clock::now();
    work();
    synchronize();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  [[nodiscard]] bool accelerations_current() const noexcept { return accelerations_current_; }

 protected:
  explicit BackendBase(const GravityParams& g) : gravity_(g) {}
  virtual void do_compute_accelerations() = 0;
  virtual void do_drift(double dt) = 0;
  virtual void do_euler_step(double dt) {
    compute_accelerations();
    kick(dt);
    do_drift(dt);
  }
  void invalidate_accelerations() noexcept { accelerations_current_ = false; }

 private:
  GravityParams gravity_;
  bool accelerations_current_ = false;
};

// The typed half: explicit transfers between host storage and the backend's state.
template <class T>
class Backend : public BackendBase {
 public:
  // Replaces the state with p (same size as the backend); accelerations become stale.
  void upload(const Particles<T>& p) {
    do_upload(p);
    invalidate_accelerations();
  }
  virtual void download(Particles<T>& p) = 0;
  virtual void download_accelerations(Accelerations<T>& a) = 0;

 protected:
  using BackendBase::BackendBase;
  virtual void do_upload(const Particles<T>& p) = 0;
};

// Backend names a user can ask for ("auto" first).
[[nodiscard]] std::vector<std::string> backend_names();
// "auto" becomes "cuda" where a CUDA device can be used, otherwise "cpu".
[[nodiscard]] std::string resolve_backend(std::string_view requested);
// True when this build has CUDA and a device is usable; otherwise why not in *why.
[[nodiscard]] bool cuda_device_available(std::string* why = nullptr);

// Creates a backend for n particles. Throws an input error for an unknown name, a backend this
// build or machine lacks, or an n whose state does not fit in the backend's memory. `mixed`
// (T = double only) asks for float32 pair terms summed in float64.
template <class T>
[[nodiscard]] std::unique_ptr<Backend<T>> make_backend(std::string_view name, std::size_t n,
                                                       const GravityParams& gravity, bool mixed = false);

}  // namespace nbody
