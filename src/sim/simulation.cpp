#include "nbody/simulation.hpp"

#include "core/host_memory.hpp"
#include "core/parallel.hpp"
#include "core/units.hpp"
#include "ic/ic.hpp"
#include "integrate/integrator.hpp"
#include "io/particle_file.hpp"
#include "nbody/error.hpp"
#include "sim/system.hpp"

namespace nbody {
namespace {

// The device and algorithm a configuration asks for.
SolverChoice solver_choice(const RunConfig& cfg) { return {cfg.device, cfg.gravity}; }
// Records the resolved choice in a configuration.
void set_solver_choice(RunConfig& cfg, const SolverChoice& c) {
  cfg.device = c.device;
  cfg.gravity = c.gravity;
}


template <class T>
class SimulationImpl final : public Simulation {
 public:
  // From particles in either precision (the run's own: exact bits, as a checkpoint needs).
  template <class U>
  SimulationImpl(const RunConfig& cfg, std::unique_ptr<System<T>> system, const Particles<U>& initial)
      : cfg_(cfg), integrator_(make_integrator<T>(cfg.integrator, integrator_options(cfg))), system_(std::move(system)) {
    cfg_.n = static_cast<std::int64_t>(initial.size());
    set_solver_choice(cfg_, system_->choice());  // device "auto" resolved
    cfg_.gravitational_constant = effective_gravitational_constant(cfg);
    if constexpr (std::is_same_v<T, U>) {
      system_->upload(initial);
    } else {
      system_->upload(initial.template as<T>());
    }
    integrator_->prepare(*system_);
  }

  const RunConfig& config() const override { return cfg_; }
  std::string backend_name() const override { return system_->name(); }
  std::string device_name() const override { return system_->device(); }
  std::size_t size() const override { return system_->size(); }
  std::int64_t step_count() const override { return step_; }
  double time() const override { return time_; }
  std::uint64_t interactions() const override { return system_->interactions(); }

  void advance(std::int64_t count) override {
    if (count <= 0) return;
    integrator_->steps(*system_, cfg_.dt, count);
    step_ += count;
    // From the step count, not by summing dt, so that time carries no accumulated rounding.
    time_ = double(step_) * cfg_.dt;
  }

  Diagnostics diagnostics() override {
    const Moments m = system_->moments();
    const double w = system_->potential_energy();
    return Diagnostics::from(step_, time_, m, w);
  }

  Particles<double> particles() override {
    Particles<T> p;
    system_->download(p);
    return p.template as<double>();
  }

  Checkpoint checkpoint() override {
    Checkpoint ck;
    ck.config = cfg_;
    set_solver_choice(ck.config, system_->choice());
    ck.step = step_;
    ck.time = time_;
    Particles<T> p;
    system_->download(p);
    ck.state = std::move(p);
    ck.integrator = {integrator_->name(), integrator_->save_state(*system_)};
    return ck;
  }

  // Puts the simulation where `ck` left it (the system already holds ck's particles).
  void resume_from(const Checkpoint& ck) {
    if (ck.integrator.tag != integrator_->name()) {
      throw_input_error("checkpoint: integrator state of '" + ck.integrator.tag + "', the run uses '" +
                        integrator_->name() + "'");
    }
    step_ = ck.step;
    time_ = ck.time;
    integrator_->restore_state(*system_, ck.integrator.bytes);
  }

  void synchronize() override { system_->synchronize(); }

 private:
  RunConfig cfg_;
  std::unique_ptr<Integrator<T>> integrator_;
  std::unique_ptr<System<T>> system_;
  std::int64_t step_ = 0;
  double time_ = 0;
};

// G = 0 in a configuration means the unit system's G (a checkpoint's holds the resolved value).
GravityParams gravity_of(const RunConfig& cfg) {
  return {effective_gravitational_constant(cfg), cfg.softening, parse_softening_law(cfg.softening_law)};
}

// The solver and store of a configuration for n bodies.
template <class T>
std::unique_ptr<System<T>> make_system_for(const RunConfig& cfg, std::size_t n) {
  SolverRequest r;
  r.choice = solver_choice(cfg);
  r.precision = parse_precision(cfg.precision);
  r.n = n;
  r.gravity = gravity_of(cfg);
  return std::make_unique<System<T>>(r);
}

// The system is made first: it checks that n fits in its memory before the initial
// conditions are drawn. `initial` supplies them once it has.
template <class T, class Initial>
std::unique_ptr<Simulation> build(const RunConfig& cfg, std::size_t n, Initial&& initial) {
  auto system = make_system_for<T>(cfg, n);
  return std::make_unique<SimulationImpl<T>>(cfg, std::move(system), initial());
}

template <class Initial>
std::unique_ptr<Simulation> build_any(const RunConfig& cfg, std::size_t n, Initial&& initial) {
  validate(cfg);
  set_thread_count(cfg.threads);  // before the solver, whose device name reports the count
  if (n == 0) throw_input_error("n: a simulation needs at least one body");
  switch (parse_precision(cfg.precision)) {
    case Precision::fp32: return build<float>(cfg, n, initial);
    case Precision::fp64: return build<double>(cfg, n, initial);
    case Precision::mixed: return build<double>(cfg, n, initial);
  }
  throw_runtime_error("unknown precision");
}

template <class T>
std::unique_ptr<Simulation> build_from_checkpoint(const Checkpoint& ck) {
  const auto* state = std::get_if<Particles<T>>(&ck.state);
  if (state == nullptr) {
    throw_input_error("checkpoint: the state is stored in the other precision than precision = " + ck.config.precision);
  }
  if (state->size() == 0) throw_input_error("checkpoint: the state holds no particles");
  auto system = make_system_for<T>(ck.config, state->size());
  auto sim = std::make_unique<SimulationImpl<T>>(ck.config, std::move(system), *state);
  sim->resume_from(ck);
  return sim;
}

}  // namespace

std::unique_ptr<Simulation> Simulation::create(const RunConfig& cfg, const Particles<double>& initial) {
  return build_any(cfg, initial.size(), [&]() -> const Particles<double>& { return initial; });
}

std::unique_ptr<Simulation> Simulation::create_from_checkpoint(const Checkpoint& ck) {
  validate(ck.config);
  set_thread_count(ck.config.threads);
  if (parse_precision(ck.config.precision) == Precision::fp32) return build_from_checkpoint<float>(ck);
  return build_from_checkpoint<double>(ck);
}

std::unique_ptr<Simulation> Simulation::create(const RunConfig& cfg) {
  if (is_file_ic(cfg.ic)) {
    // n comes from the file; its errors name it, and say it is the initial conditions.
    const std::string path = cfg.ic.substr(kIcFilePrefix.size());
    ParticleFileData data;
    try {
      data = read_particle_file(path);
    } catch (const Error& e) {
      throw Error(e.kind(), "ic: " + std::string(e.what()));
    }
    RunConfig with_n = cfg;
    with_n.n = static_cast<std::int64_t>(data.particles.size());
    return create(with_n, data.particles);
  }
  const auto n = static_cast<std::size_t>(cfg.n);
  return build_any(cfg, n, [&] {
    // float64 state plus its copy in the run's precision while uploading.
    require_host_memory(n * (2 * 7 * sizeof(double) + 16), n);
    return make_initial_conditions({cfg.ic, cfg.n, static_cast<std::uint64_t>(cfg.seed), cfg});
  });
}

}  // namespace nbody
