#include "nbody/simulation.hpp"

#include "core/host_memory.hpp"
#include "gravity/backend.hpp"
#include "ic/ic.hpp"
#include "integrate/integrator.hpp"
#include "nbody/error.hpp"

namespace nbody {
namespace {

template <class T>
class SimulationImpl final : public Simulation {
 public:
  SimulationImpl(const RunConfig& cfg, std::unique_ptr<Backend<T>> backend, const Particles<double>& initial)
      : cfg_(cfg), integrator_(make_integrator(cfg.integrator, integrator_options(cfg))), backend_(std::move(backend)) {
    cfg_.n = static_cast<std::int64_t>(initial.size());
    backend_->upload(initial.template as<T>());
    integrator_->prepare(*backend_);
  }

  const RunConfig& config() const override { return cfg_; }
  std::string backend_name() const override { return backend_->name(); }
  std::string device_name() const override { return backend_->device(); }
  std::size_t size() const override { return backend_->size(); }
  std::int64_t step_count() const override { return step_; }
  double time() const override { return time_; }
  int force_evaluations_per_step() const override { return integrator_->force_evaluations_per_step(); }
  std::uint64_t interactions() const override { return backend_->interactions(); }

  void advance(std::int64_t count) override {
    for (std::int64_t k = 0; k < count; ++k) {
      integrator_->step(*backend_, cfg_.dt);
      ++step_;
      // From the step count, not by summing dt, so that time carries no accumulated rounding.
      time_ = double(step_) * cfg_.dt;
    }
  }

  Diagnostics diagnostics() override {
    const Moments m = backend_->moments();
    const double w = backend_->potential_energy();
    return Diagnostics::from(step_, time_, m, w);
  }

  Particles<double> particles() override {
    Particles<T> p;
    backend_->download(p);
    return p.template as<double>();
  }

  void synchronize() override { backend_->synchronize(); }

 private:
  RunConfig cfg_;
  std::unique_ptr<Integrator> integrator_;
  std::unique_ptr<Backend<T>> backend_;
  std::int64_t step_ = 0;
  double time_ = 0;
};

GravityParams gravity_of(const RunConfig& cfg) {
  return {cfg.gravitational_constant, cfg.softening, parse_softening_law(cfg.softening_law)};
}

// The backend is made first: it checks that n fits in its memory before the initial
// conditions are drawn. `initial` supplies them once it has.
template <class T, class Initial>
std::unique_ptr<Simulation> build(const RunConfig& cfg, std::size_t n, Initial&& initial) {
  auto backend = make_backend<T>(cfg.backend, n, gravity_of(cfg));
  return std::make_unique<SimulationImpl<T>>(cfg, std::move(backend), initial());
}

template <class Initial>
std::unique_ptr<Simulation> build_any(const RunConfig& cfg, std::size_t n, Initial&& initial) {
  validate(cfg);
  if (n == 0) throw_input_error("n: a simulation needs at least one body");
  if (parse_precision(cfg.precision) == Precision::fp32) return build<float>(cfg, n, initial);
  return build<double>(cfg, n, initial);
}

}  // namespace

std::unique_ptr<Simulation> Simulation::create(const RunConfig& cfg, const Particles<double>& initial) {
  return build_any(cfg, initial.size(), [&]() -> const Particles<double>& { return initial; });
}

std::unique_ptr<Simulation> Simulation::create(const RunConfig& cfg) {
  const auto n = static_cast<std::size_t>(cfg.n);
  return build_any(cfg, n, [&] {
    // float64 state plus its copy in the run's precision while uploading.
    require_host_memory(n * (2 * 7 * sizeof(double) + 16), n);
    return make_initial_conditions({cfg.ic, cfg.n, static_cast<std::uint64_t>(cfg.seed)});
  });
}

}  // namespace nbody
