#pragma once
// A backend holds the particle state where it lives (host memory or a GPU) and does there the
// work a step needs: gravity, the kick and drift updates, and the sums for diagnostics.
// Integrators are written against BackendBase only, so every integrator runs on every backend.
#include <chrono>
#include <cstddef>
#include <cstring>
#include <functional>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gravity/names.hpp"
#include "gravity/params.hpp"
#include "nbody/diagnostics.hpp"
#include "nbody/error.hpp"
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
    interactions_ += std::uint64_t(size()) * size();
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
  void euler_step(double dt) { euler_steps(dt, 1); }
  // `count` Euler steps, which a backend may batch (the CUDA backend replays a captured graph of
  // its fused steps, without a launch gap between them). The same bits as `count` single steps.
  void euler_steps(double dt, std::int64_t count) {
    if (count <= 0) return;
    do_euler_steps(dt, count);
    accelerations_current_ = false;
    interactions_ += std::uint64_t(count) * std::uint64_t(size()) * size();
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

  // Target-source pairs evaluated so far by compute_accelerations and compute_acc_jerk (the
  // i = j pair included: targets x n per pass). Diagnostics do not count.
  [[nodiscard]] std::uint64_t interactions() const noexcept { return interactions_; }
  // The Hermite state (a, jerk, per-particle times) in the backend's own encoding, for
  // checkpoints; restore takes what it gave (see Backend<T>).
  [[nodiscard]] virtual std::vector<std::uint8_t> hermite_state_bytes() = 0;
  virtual void restore_hermite_state_bytes(std::span<const std::uint8_t> bytes) = 0;

  // ---- Time-step criteria ----
  // max_i |a_i| of the accelerations (which must be current), reduced where they live.
  [[nodiscard]] virtual double max_acceleration() = 0;

  // ---- The Hermite predictor-corrector (hermite4) ----
  // Besides x and v the backend keeps, per particle, the acceleration a_i and jerk j_i and the
  // time t_i at which x, v, a, j hold (each particle's own time: with block time steps the
  // particles are at different times), and a prediction xp, vp of every particle to a common
  // time. a_i is the accelerations array (download_accelerations returns it); compute_acc_jerk
  // keeps its results aside until correct or start_hermite takes them.
  //
  // Allocates that state. Throws an input error when it does not fit in the backend's memory.
  virtual void reserve_hermite() = 0;
  // t_i := t for every particle; valid when every particle is at time t (the start, and any
  // time the particles are synchronized). Times are the integrator's: only t - t_i matters.
  virtual void set_particle_times(double t) = 0;
  // xp, vp of every particle at t >= t_i: the Taylor series of x, v, a, j at t_i.
  virtual void predict(double t) = 0;
  // The targets of the next compute_acc_jerk and correct / start_hermite: particle indices,
  // ascending, no repeats.
  void set_active(std::span<const std::int32_t> targets) {
    do_set_active(targets);
    active_count_ = targets.size();
  }
  void set_all_active() {
    do_set_all_active();
    active_count_ = size();
  }
  [[nodiscard]] std::size_t active_count() const noexcept { return active_count_; }
  // Acceleration and jerk of every active target from the predicted state of all particles.
  void compute_acc_jerk() {
    do_compute_acc_jerk();
    interactions_ += std::uint64_t(active_count_) * size();
  }
  // The first step: a_i, j_i := the values compute_acc_jerk gave (the active particles must be
  // at the predicted time, t_i = t), and dt_next[k] = the starting step eta |a| / |j| of the
  // k-th active particle. dt_next is empty or has active_count() entries.
  void start_hermite(double eta, std::span<double> dt_next) {
    check_step_output(dt_next);
    do_start_hermite(eta, dt_next);
    invalidate_accelerations();
  }
  // The corrector of every active particle to time t (its step is t - t_i): x, v := corrected,
  // a, j := the values compute_acc_jerk gave, t_i := t; dt_next[k] = Aarseth's step at t for the
  // k-th active particle (empty: none computed, as for fixed steps).
  void correct(double t, double eta, std::span<double> dt_next) {
    check_step_output(dt_next);
    do_correct(t, eta, dt_next);
    invalidate_accelerations();
  }

 protected:
  explicit BackendBase(const GravityParams& g) : gravity_(g) {}
  virtual void do_compute_accelerations() = 0;
  virtual void do_drift(double dt) = 0;
  virtual void do_euler_step(double dt) {
    do_compute_accelerations();
    kick(dt);
    do_drift(dt);
  }
  virtual void do_euler_steps(double dt, std::int64_t count) {
    for (std::int64_t k = 0; k < count; ++k) do_euler_step(dt);
  }
  virtual void do_set_active(std::span<const std::int32_t> targets) = 0;
  virtual void do_set_all_active() = 0;
  virtual void do_compute_acc_jerk() = 0;
  virtual void do_start_hermite(double eta, std::span<double> dt_next) = 0;
  virtual void do_correct(double t, double eta, std::span<double> dt_next) = 0;
  void invalidate_accelerations() noexcept { accelerations_current_ = false; }

 private:
  void check_step_output(std::span<double> dt_next) const {
    if (!dt_next.empty() && dt_next.size() != active_count_) {
      throw_runtime_error("Hermite step output of " + std::to_string(dt_next.size()) + " entries for " +
                          std::to_string(active_count_) + " active particles");
    }
  }

  GravityParams gravity_;
  bool accelerations_current_ = false;
  std::uint64_t interactions_ = 0;
  std::size_t active_count_ = 0;
};

// The Hermite integrator's per-particle state beyond x and v (what a checkpoint must carry to
// continue a hermite4 run bit for bit): a_i, j_i and t_i.
template <class T>
struct HermiteState {
  std::vector<T> ax, ay, az;
  std::vector<T> jx, jy, jz;
  std::vector<double> t;
  void resize(std::size_t n) {
    for (auto* v : {&ax, &ay, &az, &jx, &jy, &jz}) v->resize(n);
    t.resize(n);
  }
  [[nodiscard]] std::size_t size() const noexcept { return t.size(); }
};

// The typed half: explicit transfers between host storage and the backend's state.
template <class T>
class Backend : public BackendBase {
 public:
  // The Hermite state as bytes (count, a, jerk in T, times in float64), for checkpoints, and back.
  std::vector<std::uint8_t> hermite_state_bytes() final {
    HermiteState<T> s;
    download_hermite(s);
    const std::uint64_t n = s.size();
    std::vector<std::uint8_t> out(sizeof n + n * (6 * sizeof(T) + sizeof(double)));
    std::uint8_t* p = out.data();
    std::memcpy(p, &n, sizeof n);
    p += sizeof n;
    for (const auto* v : {&s.ax, &s.ay, &s.az, &s.jx, &s.jy, &s.jz}) {
      std::memcpy(p, v->data(), n * sizeof(T));
      p += n * sizeof(T);
    }
    std::memcpy(p, s.t.data(), n * sizeof(double));
    return out;
  }
  void restore_hermite_state_bytes(std::span<const std::uint8_t> bytes) final {
    std::uint64_t n = 0;
    if (bytes.size() >= sizeof n) std::memcpy(&n, bytes.data(), sizeof n);
    if (n != size() || bytes.size() != sizeof n + n * (6 * sizeof(T) + sizeof(double))) {
      throw_input_error("checkpoint: the Hermite state does not match " + std::to_string(size()) + " particles");
    }
    HermiteState<T> s;
    s.resize(n);
    const std::uint8_t* p = bytes.data() + sizeof n;
    for (auto* v : {&s.ax, &s.ay, &s.az, &s.jx, &s.jy, &s.jz}) {
      std::memcpy(v->data(), p, n * sizeof(T));
      p += n * sizeof(T);
    }
    std::memcpy(s.t.data(), p, n * sizeof(double));
    upload_hermite(s);
  }

  // Replaces the state with p (same size as the backend); accelerations become stale.
  void upload(const Particles<T>& p) {
    do_upload(p);
    invalidate_accelerations();
  }
  virtual void download(Particles<T>& p) = 0;
  virtual void download_accelerations(Accelerations<T>& a) = 0;
  // The Hermite state (after reserve_hermite); upload replaces it (same size as the backend).
  virtual void download_hermite(HermiteState<T>& s) = 0;
  void upload_hermite(const HermiteState<T>& s) {
    do_upload_hermite(s);
    invalidate_accelerations();
  }

 protected:
  using BackendBase::BackendBase;
  virtual void do_upload(const Particles<T>& p) = 0;
  virtual void do_upload_hermite(const HermiteState<T>& s) = 0;
};

// "auto" becomes "cuda" where a CUDA device can be used, otherwise "cpu".
[[nodiscard]] std::string resolve_backend(std::string_view requested);

// Creates a backend for n particles. Throws an input error for an unknown name, a backend this
// build or machine lacks, or an n whose state does not fit in the backend's memory. `mixed`
// (T = double only) asks for float32 pair terms summed in float64. `kernel_shape` (cuda only; for
// benchmarks): the force kernel's launch shape instead of the launch policy's choice.
template <class T>
[[nodiscard]] std::unique_ptr<Backend<T>> make_backend(std::string_view name, std::size_t n,
                                                       const GravityParams& gravity, bool mixed = false,
                                                       std::string_view kernel_shape = {});

}  // namespace nbody
