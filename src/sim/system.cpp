#include "sim/system.hpp"

#include "device/context.hpp"  // no CUDA types: CPU-only builds include it too
#include "nbody/error.hpp"

namespace nbody {

SolverChoice resolve_choice(SolverChoice choice) {
  choice.device = resolve_device(choice.device);
  return choice;
}

template <class T>
System<T>::System(SolverRequest request) {
  request.choice = resolve_choice(request.choice);
  choice_ = request.choice;
  if (request.n == 0) throw_input_error("n: a simulation needs at least one body");
  // The store's core fields and the accelerations, in the solver's memory.
  const std::size_t store_bytes = ParticleStore<T>::core_bytes(request.n) + 3 * request.n * sizeof(T);
  Location where = Location::host();
  if (choice_.device == "cuda") {
#if NBODY_HAVE_CUDA
    context_ = DeviceContext::open(request.ordinal);
    where = context_->location();
#endif
  }
  request.other_bytes = store_bytes;
  if (!where.on_device()) require_memory(where, store_bytes, "n: " + std::to_string(request.n) + " bodies");
  solver_ = make_solver<T>(request, context_);  // checks its memory and the store's on a device
  const StreamHandle stream = context_ ? context_->stream() : nullptr;
  store_ = std::make_unique<ParticleStore<T>>(request.n, where, stream);
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
