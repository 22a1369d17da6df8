#pragma once
// One particle system in one precision: a store where the solver computes (host or a GPU), the
// force solver, the element-wise operations there, and the accelerations as store fields. Every
// integrator steps a System; a new solver plugs in through ForceSolver alone. Written once for
// every solver and device.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "gravity/solver.hpp"
#include "nbody/diagnostics.hpp"
#include "nbody/particles.hpp"
#include "particles/ops.hpp"
#include "particles/store.hpp"

namespace nbody {

class DeviceContext;

template <class T>
class System {
 public:
  // The solver of `request` (device "auto" resolved) and a store of request.n bodies where it
  // computes. Throws an input error for an unknown or unavailable choice, or a request that
  // does not fit in memory (checked before anything is allocated). request.other_bytes: what the
  // caller keeps beside the store in the solver's memory (an integrator's state), checked with it.
  explicit System(SolverRequest request);
  // Any solver (one the registry does not know, e.g. a new algorithm under test) for n bodies
  // in its location; `device` is its CUDA device's context when it computes on one.
  System(std::unique_ptr<ForceSolver<T>> solver, std::size_t n, std::shared_ptr<DeviceContext> device = nullptr);
  ~System();
  System(const System&) = delete;
  System& operator=(const System&) = delete;

  [[nodiscard]] ParticleStore<T>& store() noexcept { return *store_; }
  [[nodiscard]] ForceSolver<T>& solver() noexcept { return *solver_; }
  [[nodiscard]] ParticleOps<T>& ops() noexcept { return *ops_; }
  // The store's core fields and the accelerations: stable for the System's lifetime.
  [[nodiscard]] const ParticleView<T>& view() const noexcept { return view_; }
  [[nodiscard]] Vec3Span<T> accelerations() const noexcept { return acc_; }

  [[nodiscard]] std::size_t size() const noexcept { return store_->size(); }
  [[nodiscard]] const GravityParams& gravity() const noexcept { return solver_->gravity(); }
  [[nodiscard]] const SolverChoice& choice() const noexcept { return choice_; }
  // The choice in --backend's spelling: "cpu", "cuda" or "cpu-reference".
  [[nodiscard]] std::string name() const;
  [[nodiscard]] std::string device() const { return solver_->device(); }
  [[nodiscard]] std::string kernel() const { return solver_->kernel(); }
  [[nodiscard]] Precision precision() const { return solver_->precision(); }

  // Replaces the bodies with p (same size); accelerations become stale.
  void upload(const Particles<T>& p);
  void download(Particles<T>& p) { store_->download(p); }
  void download_accelerations(Accelerations<T>& a);

  // Accelerations of the current positions (into the acceleration fields).
  void compute_accelerations();
  // W = 1/2 sum_i m_i phi_i of the current positions; the accelerations are left untouched, so
  // asking for diagnostics never changes the trajectory.
  [[nodiscard]] double potential_energy() { return solver_->potential_energy(view_.sources()); }
  // v += a dt (the accelerations must be current); x += v dt (they are stale afterwards).
  void kick(double dt) { ops_->kick(view_, as_const(acc_), dt); }
  void drift(double dt);
  // `count` of the documents' Euler steps (v += a(x) dt, then x += v dt), fused into the force
  // pass and batched where the solver can; the same bits as `count` single steps.
  void euler_steps(double dt, std::int64_t count);
  void euler_step(double dt) { euler_steps(dt, 1); }
  [[nodiscard]] Moments moments() { return ops_->moments(view_); }
  // max_i |a_i| of the accelerations (which must be current).
  [[nodiscard]] double max_acceleration() { return ops_->max_norm(as_const(acc_), view_.n); }

  [[nodiscard]] bool accelerations_current() const noexcept { return accelerations_current_; }
  // After an integrator moved the bodies by other means (the Hermite corrector).
  void invalidate_accelerations() noexcept { accelerations_current_ = false; }
  // Target-source pairs the solver evaluated so far.
  [[nodiscard]] std::uint64_t interactions() const noexcept { return solver_->interactions(); }

  void synchronize() { ops_->synchronize(); }
  // Runs `work` and returns its duration on the location's own clock (CUDA events on a GPU).
  [[nodiscard]] double measure_seconds(const std::function<void()>& work) { return ops_->measure_seconds(work); }

 private:
  void attach(std::unique_ptr<ForceSolver<T>> solver, std::size_t n);

  SolverChoice choice_;
  std::shared_ptr<DeviceContext> context_;
  std::unique_ptr<ForceSolver<T>> solver_;
  std::unique_ptr<ParticleStore<T>> store_;
  std::unique_ptr<ParticleOps<T>> ops_;
  ParticleView<T> view_{};
  Vec3Span<T> acc_{};
  bool accelerations_current_ = false;
};

// The resolved choice of a configuration: device "auto" made "cpu" or "cuda".
[[nodiscard]] SolverChoice resolve_choice(SolverChoice choice);

extern template class System<float>;
extern template class System<double>;

}  // namespace nbody
