#include "nbody/simulation.hpp"

#include <algorithm>
#include <cstdint>

#include "comm/block_gather.hpp"
#include "comm/communicator.hpp"
#include "core/host_memory.hpp"
#include "core/parallel.hpp"
#include "core/units.hpp"
#include "ic/ic.hpp"
#include "integrate/integrator.hpp"
#include "integrate/system.hpp"
#include "io/particle_file.hpp"
#include "nbody/error.hpp"
#include "particles/memory.hpp"
#include "render/projection.hpp"
#if NBODY_HAVE_CUDA
#include "render/splat_gpu.hpp"
#endif
#include "sim/simulation_state.hpp"

namespace nbody {

Accelerations<double> Simulation::accelerations() {
  throw_runtime_error("this simulation does not give its accelerations");
}
std::vector<double> Simulation::potentials() { throw_runtime_error("this simulation does not give potentials"); }

render::DensityMap Simulation::project(const render::Camera& camera, int nx, int ny,
                                       std::span<const std::uint8_t> components) {
  const Particles<double> p = particles();
  return render::project_bodies<double>(p.x, p.y, p.z, p.m, components, camera, nx, ny);
}

render::DensityMap Simulation::project_components(const render::Camera& camera, int nx, int ny) {
  Particles<double> p = particles();
  if (p.component.empty()) p.component.assign(p.size(), 0);
  return render::project_bodies<double>(p.x, p.y, p.z, p.m, p.component, camera, nx, ny);
}

std::optional<render::ShadedMap> Simulation::project_shaded(const render::Camera&, int, int, const render::ShadeSpec&) {
  return std::nullopt;
}

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
      : cfg_(cfg),
        integrator_(make_integrator<T>(cfg.integrator, integrator_options(cfg))),
        system_(std::move(system)),
        component_names_(initial.component_names) {
    cfg_.n = static_cast<std::int64_t>(initial.size());
    set_solver_choice(cfg_, system_->choice());  // device "auto" resolved
    cfg_.gravitational_constant = effective_gravitational_constant(cfg);
    if constexpr (std::is_same_v<T, U>) {
      system_->upload(initial);
    } else {
      system_->upload(initial.template as<T>());
    }
    integrator_->prepare(*system_);
    time_ = cfg_.start_time;
  }

  const RunConfig& config() const override { return cfg_; }
  const std::vector<std::string>& component_names() const override { return component_names_; }
  std::string backend_name() const override { return system_->name(); }
  std::string device_name() const override { return system_->device(); }
  std::size_t size() const override { return system_->size(); }
  std::int64_t step_count() const override { return step_; }
  double time() const override { return time_; }
  std::uint64_t interactions() const override { return system_->interactions(); }
  BlockStepCounts block_step_counts() const override {
    const BlockStepStats s = integrator_->block_stats();
    return {s.block_steps, s.active, s.device_loops};
  }

  void advance(std::int64_t count) override {
    if (count <= 0) return;
    integrator_->steps(*system_, cfg_.dt, count);
    step_ += count;
    // From the step count, not by summing dt, so that time carries no accumulated rounding
    // (0 + x is x: a run starting at 0 keeps the bits it always had).
    time_ = cfg_.start_time + double(step_) * cfg_.dt;
  }

  Diagnostics diagnostics() override {
    const Moments m = system_->moments();
    const double w = system_->potential_energy();
    return Diagnostics::from(step_, time_, m, w);
  }

  Particles<double> particles() override {
    Particles<T> p;
    system_->download(p);
    p.component_names = component_names_;
    return p.template as<double>();
  }

  Accelerations<double> accelerations() override {
    Accelerations<T> a;
    if (system_->accelerations_current()) {
      system_->download_accelerations(a);
    } else {
      // A pass into arrays of its own where the solver computes: the integrator's are untouched.
      const std::size_t n = system_->size();
      const Location at = system_->solver().location();
      Array<T> x(at, n), y(at, n), z(at, n);
      system_->solver().accelerations(system_->view().targets(), system_->view().sources(),
                                      Vec3Span<T>{x.data(), y.data(), z.data()});
      system_->synchronize();
      a.resize(n);
      copy_bytes(a.ax.data(), Location::host(), x.data(), at, n * sizeof(T));
      copy_bytes(a.ay.data(), Location::host(), y.data(), at, n * sizeof(T));
      copy_bytes(a.az.data(), Location::host(), z.data(), at, n * sizeof(T));
    }
    Accelerations<double> out;
    out.resize(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) out.ax[i] = a.ax[i], out.ay[i] = a.ay[i], out.az[i] = a.az[i];
    return out;
  }

  std::vector<double> potentials() override { return system_->solver().potentials(system_->view().sources()); }

  // Over the store where it is: the host's arrays as they are, or the GPU splat's kernel.
  render::DensityMap project(const render::Camera& camera, int nx, int ny,
                             std::span<const std::uint8_t> components) override {
    return project_where(camera, nx, ny, components, nullptr);
  }
  render::DensityMap project_components(const render::Camera& camera, int nx, int ny) override {
    return project_where(camera, nx, ny, {}, system_->store().template field<std::uint8_t>("component"));
  }

  // `components` (host, one per body) or `own` (the store's component field, where the store is).
  render::DensityMap project_where(const render::Camera& camera, int nx, int ny,
                                   std::span<const std::uint8_t> components, const std::uint8_t* own) {
    const ParticleView<T>& v = system_->view();
    const std::size_t n = system_->size();
    if (!components.empty() && components.size() != n)
      throw_input_error("render: " + std::to_string(components.size()) + " components for " + std::to_string(n) +
                        " bodies");
    const Location at = system_->store().location();
    system_->synchronize();
    if (!at.on_device()) {
      if (own != nullptr) components = {own, n};
      return render::project_bodies<T>({v.x.x, n}, {v.x.y, n}, {v.x.z, n}, {v.m, n}, components, camera, nx, ny);
    }
#if NBODY_HAVE_CUDA
    render::check_camera(camera, nx, ny);
    return render::project_on_device<T>(device_bodies(own), components, camera, device_centre(camera), nx, ny,
                                        splat_workspace());
#else
    throw_runtime_error("render: the bodies are on a device this build has no CUDA for");
#endif
  }

  std::optional<render::ShadedMap> project_shaded(const render::Camera& camera, int nx, int ny,
                                                  const render::ShadeSpec& spec) override {
    if (!system_->store().location().on_device()) return std::nullopt;
#if NBODY_HAVE_CUDA
    render::check_camera(camera, nx, ny);
    system_->synchronize();
    const std::uint8_t* own = spec.by_component ? system_->store().template field<std::uint8_t>("component") : nullptr;
    if (spec.by_component && own == nullptr)
      throw_runtime_error("render: colour by component asked of bodies without components");
    return render::shade_on_device<T>(device_bodies(own), camera, device_centre(camera), nx, ny, spec,
                                      splat_workspace());
#else
    (void)camera, (void)nx, (void)ny, (void)spec;
    throw_runtime_error("render: the bodies are on a device this build has no CUDA for");
#endif
  }

  Checkpoint checkpoint() override {
    Checkpoint ck;
    ck.config = cfg_;
    set_solver_choice(ck.config, system_->choice());
    ck.step = step_;
    ck.time = time_;
    Particles<T> p;
    system_->download(p);
    p.component_names = component_names_;
    ck.state = std::move(p);
    ck.integrator = {integrator_->name(), integrator_->save_state(*system_)};
    // Current accelerations are not in the checkpoint: the resumed run's first step computes
    // them again at these positions (leapfrog, yoshida4), which is the last pass made again.
    // (hermite4 keeps its force state in its own and leaves the system's accelerations not
    // current; euler's steps end with a drift.)
    ck.solver = system_->solver().save_state(system_->accelerations_current());
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
    system_->solver().restore_state(ck.solver, system_->size());
  }

  void synchronize() override { system_->synchronize(); }

#if NBODY_HAVE_CUDA
  // The device store's bodies for the splat (`own`: its component field or null).
  render::DeviceBodies<T> device_bodies(const std::uint8_t* own) {
    const ParticleView<T>& v = system_->view();
    return {v.x.x, v.x.y, v.x.z, v.m, own, system_->size(), system_->store().location().device,
            system_->store().stream()};
  }
  // The camera's centre, or the centre of mass (reduced on the device).
  render::Vec3 device_centre(const render::Camera& camera) {
    if (camera.centre) return *camera.centre;
    const Moments m = system_->moments();
    if (!(m.mass > 0)) return {0, 0, 0};
    return {m.mass_moment[0] / m.mass, m.mass_moment[1] / m.mass, m.mass_moment[2] / m.mass};
  }
  render::SplatWorkspace& splat_workspace() {
    if (!splat_) splat_ = std::make_unique<render::SplatWorkspace>();
    return *splat_;
  }
#endif

  [[nodiscard]] System<T>& system() noexcept { return *system_; }

 private:
  RunConfig cfg_;
  std::unique_ptr<Integrator<T>> integrator_;
  std::unique_ptr<System<T>> system_;
  std::int64_t step_ = 0;
  double time_ = 0;
  std::vector<std::string> component_names_;  // the store holds the bodies' tags, this their names
#if NBODY_HAVE_CUDA
  std::unique_ptr<render::SplatWorkspace> splat_;  // the frames' device images, kept between frames
#endif
};

// G = 0 in a configuration means the unit system's G (a checkpoint's holds the resolved value).
GravityParams gravity_of(const RunConfig& cfg) {
  return {effective_gravitational_constant(cfg), cfg.softening, parse_softening_law(cfg.softening_law)};
}

// The tree's parameters (used by --gravity tree only).
gravity::tree::TreeParams tree_of(const RunConfig& cfg) {
  gravity::tree::TreeParams p;
  p.theta = cfg.theta;
  if (!gravity::tree::parse_criterion(cfg.tree_criterion, p.criterion)) {
    throw_input_error("tree_criterion: unknown criterion '" + cfg.tree_criterion + "' (choose barnes-hut or relative)");
  }
  p.alpha = cfg.tree_alpha;
  p.leaf_size = static_cast<int>(cfg.tree_leaf_size);
  p.group_size = static_cast<int>(cfg.tree_group_size);
  return p;
}

// ---- the memory plan ------------------------------------------------------------------
// A run's peak memory is checked, as a sum, before anything is allocated. Per body:
// Particles<double>: 7 values, the id, the component
constexpr std::size_t kFloat64Bodies = 7 * sizeof(double) + sizeof(std::uint64_t) + sizeof(std::uint8_t);

// What the integrator keeps beside the store in the solver's memory (hermite4: HermiteState's
// jerk, own times, predicted state, force-pass results, active indices and next steps) and on
// the host (block levels, last times, the active list and its steps).
template <class T>
std::size_t integrator_solver_bytes(const RunConfig& cfg) {
  return cfg.integrator == "hermite4" ? 15 * sizeof(T) + 2 * sizeof(double) + sizeof(std::int32_t) : 0;
}
// The solver's state in a checkpoint (ForceSolver::save_state): the relative tree's |a| history.
std::size_t solver_state_bytes(const RunConfig& cfg) {
  return cfg.gravity == "tree" && cfg.tree_criterion == "relative" ? sizeof(double) : 0;
}
std::size_t integrator_host_bytes(const RunConfig& cfg) {
  return cfg.integrator == "hermite4" ? 2 * sizeof(std::int32_t) + 2 * sizeof(double) : 0;
}

// Where the particles come from, for the plan: drawn here (the float64 set and the generator's
// scratch are still to be allocated), or already in memory (a file read, a checkpoint).
enum class Source { drawn, in_memory };

// Host bytes per body at the run's peak: while the initial conditions are uploaded (the float64
// set, the generator's scratch or the copy in the run's precision, and the store where it is on
// the host), and while the run writes its outputs (the store, the integrator's host state, the
// run loop's float64 copy of the particles, the next one being downloaded beside it, and the
// largest writer's scratch: snapshot rows or text, a checkpoint's state and encoding, the
// Lagrangian radii's sort).
template <class T>
std::size_t host_bytes_per_body(const RunConfig& cfg, Source source, bool store_on_host, bool upload_copy) {
  const std::size_t state = ParticleStore<T>::core_bytes(1);
  const std::size_t solver = state + 3 * sizeof(T) + integrator_solver_bytes<T>(cfg);
  const std::size_t store = store_on_host ? solver : 0;
  // galaxy-collision draws its two galaxies whole before joining them.
  const std::size_t scratch = source == Source::drawn && cfg.ic == "galaxy-collision" ? kFloat64Bodies : 0;
  const std::size_t build = store + (source == Source::drawn ? kFloat64Bodies : 0) +
                            std::max(scratch, upload_copy ? state : std::size_t{0});
  std::size_t run = store + integrator_host_bytes(cfg);
  if (!cfg.out.empty()) {
    std::size_t writer = 2 * sizeof(double);  // Lagrangian radii: (distance, mass)
    if (cfg.snapshot_format == "csv") writer = std::max<std::size_t>(writer, 8 * 25);  // up to 25 characters a value
    writer = std::max<std::size_t>(writer, 4 * 9);                                     // Tipsy rows, HDF5 columns
    writer = std::max(writer, 3 * (state + integrator_solver_bytes<T>(cfg) + solver_state_bytes(cfg)));  // checkpoint state, its bytes
    run += kFloat64Bodies + std::max(kFloat64Bodies + state, writer);
  }
  return std::max(build, run);
}

// Refuses, before anything is allocated, a run whose peak does not fit in the host memory
// available to it; the solver checks the device's (SolverRequest::other_bytes).
template <class T>
void require_plan_memory(const RunConfig& cfg, std::size_t n, Source source, bool upload_copy) {
  const SolverChoice choice = resolve_choice(solver_choice(cfg));
  const bool store_on_host = choice.device != "cuda";
  const std::size_t per_body = host_bytes_per_body<T>(cfg, source, store_on_host, upload_copy);
  const std::size_t bytes = n > SIZE_MAX / per_body ? SIZE_MAX : n * per_body;
  require_memory(Location::host(), bytes,
                 "n: " + std::to_string(n) + " bodies (" + cfg.precision + " on " + choice.device +
                     (cfg.out.empty() ? "" : ", with outputs") + ")");
}

// The solver and store of a configuration for n bodies.
template <class T>
std::unique_ptr<System<T>> make_system_for(const RunConfig& cfg, std::size_t n) {
  SolverRequest r;
  r.choice = solver_choice(cfg);
  r.precision = parse_precision(cfg.precision);
  r.n = n;
  r.gravity = gravity_of(cfg);
  r.tree = tree_of(cfg);
  r.other_bytes = n * integrator_solver_bytes<T>(cfg);
  // Over several ranks (mpirun): each holds every body, computes its block of targets and the
  // blocks are gathered; each rank drives the GPU of its local rank.
  if (comm::world().size() > 1) {
    r.comm = comm::world_shared();
    r.exchange = cfg.distribution_exchange;
    r.exchange_chunks = static_cast<int>(cfg.distribution_chunks);
    if (resolve_choice(r.choice).device == "cuda") r.ordinal = comm::device_ordinal_of_rank(*r.comm);
  }
  return std::make_unique<System<T>>(r);
}

// The system and the host plan are checked before the initial conditions are drawn. On the
// host the plan (which includes the store) comes first, before anything is allocated. On a GPU
// the device's own check comes first (the system refuses before it allocates; the device is
// usually the tighter memory, and a request that fits neither is told about the GPU), then the
// host plan, before anything is allocated on the host. `initial` supplies the bodies after both.
template <class T>
std::unique_ptr<System<T>> make_checked_system(const RunConfig& cfg, std::size_t n, Source source, bool upload_copy) {
  const bool on_device = resolve_choice(solver_choice(cfg)).device == "cuda";
  if (!on_device) require_plan_memory<T>(cfg, n, source, upload_copy);
  auto system = make_system_for<T>(cfg, n);
  if (on_device) require_plan_memory<T>(cfg, n, source, upload_copy);
  return system;
}

template <class T, class Initial>
std::unique_ptr<Simulation> build(const RunConfig& cfg, std::size_t n, Source source, Initial&& initial) {
  auto system = make_checked_system<T>(cfg, n, source, !std::is_same_v<T, double>);
  return std::make_unique<SimulationImpl<T>>(cfg, std::move(system), initial());
}

template <class Initial>
std::unique_ptr<Simulation> build_any(const RunConfig& cfg, std::size_t n, Source source, Initial&& initial) {
  validate(cfg);
  set_thread_count(cfg.threads);  // before the solver, whose device name reports the count
  if (n == 0) throw_input_error("n: a simulation needs at least one body");
  switch (parse_precision(cfg.precision)) {
    case Precision::fp32: return build<float>(cfg, n, source, initial);
    case Precision::fp64: return build<double>(cfg, n, source, initial);
    case Precision::mixed: return build<double>(cfg, n, source, initial);
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
  auto system = make_checked_system<T>(ck.config, state->size(), Source::in_memory, false);
  auto sim = std::make_unique<SimulationImpl<T>>(ck.config, std::move(system), *state);
  sim->resume_from(ck);
  return sim;
}

}  // namespace

template <class T>
System<T>* system_of(Simulation& sim) noexcept {
  auto* impl = dynamic_cast<SimulationImpl<T>*>(&sim);
  return impl != nullptr ? &impl->system() : nullptr;
}
template System<float>* system_of<float>(Simulation&) noexcept;
template System<double>* system_of<double>(Simulation&) noexcept;

std::unique_ptr<Simulation> Simulation::create(const RunConfig& cfg, const Particles<double>& initial) {
  return build_any(cfg, initial.size(), Source::in_memory, [&]() -> const Particles<double>& { return initial; });
}

std::unique_ptr<Simulation> Simulation::create_from_checkpoint(const Checkpoint& ck) {
  validate(ck.config);
  set_thread_count(ck.config.threads);
  if (parse_precision(ck.config.precision) == Precision::fp32) return build_from_checkpoint<float>(ck);
  return build_from_checkpoint<double>(ck);
}

std::unique_ptr<Simulation> Simulation::create(const RunConfig& cfg, Logger* setup_log) {
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
    if (with_n.start_time == 0) with_n.start_time = data.info.time;  // the run goes on from the file's time
    return create(with_n, data.particles);
  }
  const auto n = static_cast<std::size_t>(cfg.n);
  return build_any(cfg, n, Source::drawn, [&] {
    return make_initial_conditions({cfg.ic, cfg.n, static_cast<std::uint64_t>(cfg.seed), cfg, setup_log});
  });
}

}  // namespace nbody
