#include "integrate/system.hpp"

#include "cuda/context.hpp"  // no CUDA types: CPU-only builds include it too
#include "nbody/error.hpp"

namespace nbody {

SolverChoice resolve_choice(SolverChoice choice) {
  // "auto": cuda where a device is usable, for the direct sum and the tree alike.
  choice.device = resolve_device(choice.device);
  return choice;
}

template <class T>
System<T>::System(SolverRequest request) {
  request.choice = resolve_choice(request.choice);
  choice_ = request.choice;
  if (request.n == 0) throw_input_error("n: a simulation needs at least one body");
  // The store's core fields and the accelerations, in the solver's memory, and what the caller
  // keeps there beside them (request.other_bytes: an integrator's state).
  const std::size_t store_bytes =
      ParticleStore<T>::core_bytes(request.n) + 3 * request.n * sizeof(T) + request.other_bytes;
  Location where = Location::host();
  if (choice_.device == "cuda") {
#if NBODY_HAVE_CUDA
    context_ = DeviceContext::open(request.ordinal);
    where = context_->location();
#endif
  }
  request.other_bytes = store_bytes;
  if (!where.on_device()) require_memory(where, store_bytes, "n: " + std::to_string(request.n) + " bodies");
  attach(make_solver<T>(request, context_), request.n);  // the solver checks its memory and the store's on a device
}

template <class T>
System<T>::System(std::unique_ptr<ForceSolver<T>> solver, std::size_t n, std::shared_ptr<DeviceContext> device)
    : context_(std::move(device)) {
  if (n == 0) throw_input_error("n: a simulation needs at least one body");
  if (solver->location().on_device() && !context_) {
    throw_runtime_error("System: a solver on " + solver->location().text() + " needs its device context");
  }
  choice_ = {solver->location().on_device() ? "cuda" : "cpu", solver->name()};
  require_memory(solver->location(), ParticleStore<T>::core_bytes(n) + 3 * n * sizeof(T),
                 "n: " + std::to_string(n) + " bodies");
  attach(std::move(solver), n);
}

template <class T>
void System<T>::attach(std::unique_ptr<ForceSolver<T>> solver, std::size_t n) {
  solver_ = std::move(solver);
  StreamHandle stream = nullptr;
#if NBODY_HAVE_CUDA
  if (context_) stream = context_->stream();
#endif
  store_ = std::make_unique<ParticleStore<T>>(n, solver_->location(), stream);
#if NBODY_HAVE_CUDA
  if (context_) ops_ = make_device_ops<T>(context_->ordinal(), stream);
#endif
  if (!ops_) ops_ = make_host_ops<T>();
  acc_ = store_->add_vec3("acceleration");
  view_ = store_->view();
}

template <class T>
System<T>::~System() = default;

template <class T>
std::string System<T>::name() const {
  if (choice_.gravity == "reference") return "cpu-reference";
  return choice_.device;
}

template <class T>
void System<T>::upload(const Particles<T>& p) {
  store_->upload(p);
  accelerations_current_ = false;
}

template <class T>
void System<T>::download_accelerations(Accelerations<T>& a) {
  a.resize(size());
  store_->download_field("acceleration.x", a.ax);
  store_->download_field("acceleration.y", a.ay);
  store_->download_field("acceleration.z", a.az);
}

template <class T>
void System<T>::compute_accelerations() {
  solver_->accelerations(view_.targets(), view_.sources(), acc_);
  accelerations_current_ = true;
}

template <class T>
void System<T>::drift(double dt) {
  ops_->drift(view_, dt);
  accelerations_current_ = false;
}

template <class T>
void System<T>::euler_steps(double dt, std::int64_t count) {
  if (count <= 0) return;
  if (solver_->capabilities().euler_steps) {
    solver_->euler_steps(view_, dt, count);
  } else {
    for (std::int64_t k = 0; k < count; ++k) {
      compute_accelerations();
      kick(dt);
      drift(dt);
    }
  }
  accelerations_current_ = false;
}

template class System<float>;
template class System<double>;

}  // namespace nbody
