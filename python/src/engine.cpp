// nbody._core.Engine: one Simulation of the library held by Python, stepped through the run loop
// (advance_run) with Python's hooks, its particles viewed in place.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <memory>
#include <thread>

#include "common.hpp"
#include "converters.hpp"
#include "device_array.hpp"
#include "hooks.hpp"
#include "render.hpp"
#include "io/checkpoint.hpp"
#include "io/particle_file.hpp"
#include "io/run_directory.hpp"
#include "nbody/error.hpp"
#include "nbody/precision.hpp"
#include "nbody/simulation.hpp"
#include "sim/simulation_state.hpp"

namespace nbody::py {
namespace {

class Engine {
 public:
  explicit Engine(std::unique_ptr<Simulation> sim) : sim_(std::move(sim)) { initial_ = sim_->diagnostics(); }
  Engine(std::unique_ptr<Simulation> sim, const Diagnostics& initial) : sim_(std::move(sim)), initial_(initial) {}

  // While advance() runs, the thread that called it (its callbacks, between chunks of steps) may
  // look at the simulation; another thread may not.
  Simulation& sim() {
    if (running_ && std::this_thread::get_id() != runner_) {
      throw_runtime_error("the simulation is being advanced in another thread");
    }
    return *sim_;
  }
  [[nodiscard]] const Diagnostics& initial() const noexcept { return initial_; }
  [[nodiscard]] bool single() const { return parse_precision(sim_->config().precision) == Precision::fp32; }
  [[nodiscard]] Location location() {
    if (single()) return system_of<float>(*sim_)->store().location();
    return system_of<double>(*sim_)->store().location();
  }

  // Writes through the views. Accelerations go stale when positions or masses are written, so
  // while such a view is alive, or when one was handed out since the last step, the next step
  // recomputes them first (the same bits when nothing was written); and the state is checked
  // (finite values, masses > 0) before it is stepped, so that a bad value written through a
  // view is an error naming the body and the field, not a NaN energy later.
  void view_opened(bool positions) noexcept {
    ++writable_views_;
    written_ = true;
    if (positions) {
      ++position_views_;
      positions_written_ = true;
    }
  }
  void view_closed(bool positions) noexcept {
    --writable_views_;
    if (positions) --position_views_;
  }
  [[nodiscard]] int position_views() const noexcept { return position_views_; }
  [[nodiscard]] bool running() const noexcept { return running_; }

  RunResult advance(std::int64_t last_step, PythonHooks& hooks) {
    Simulation& s = sim();
    if (running_) throw_runtime_error("advance: the simulation is already being advanced (a callback cannot step it)");
    if (writable_views_ > 0 || written_) check_written_state(s);
    if (position_views_ > 0 || positions_written_) {
      if (auto* f = system_of<float>(s)) f->invalidate_accelerations();
      if (auto* d = system_of<double>(s)) d->invalidate_accelerations();
    }
    written_ = positions_written_ = false;
    running_ = true;
    runner_ = std::this_thread::get_id();
    RunResult r;
    try {
      pb::gil_scoped_release release;
      r = advance_run(s, last_step, initial_, hooks.hooks());
    } catch (...) {
      running_ = false;
      throw;
    }
    running_ = false;
    return r;
  }

  // A simulation of the particles `p` (checked) that goes on from this one's step and time with its
  // configuration: the integrator and the force solver start afresh (the first step computes
  // the forces of the new state). Energy drifts are measured from `p`. This engine is left as it
  // is (views of it stay valid, of its memory).
  std::shared_ptr<Engine> with_particles(const Particles<double>& p, const std::string& what) {
    if (running_) throw_input_error(what + ": not while the simulation is being advanced (in a callback)");
    Checkpoint ck = sim().checkpoint();
    ck.config.n = static_cast<std::int64_t>(p.size());
    if (single()) {
      ck.state = p.as<float>();
    } else {
      ck.state = p;
    }
    ck.integrator.bytes.clear();
    ck.solver = {};
    ck.progress = {};
    pb::gil_scoped_release release;
    return std::make_shared<Engine>(Simulation::create_from_checkpoint(ck));
  }

  // A field of the store: its memory, values and stream.
  // `for_writing`: handed out to a caller that may write it (a device array), which counts as a
  // write at the next step (see view_opened).
  DeviceArray field(const std::shared_ptr<Engine>& self, const std::string& name, bool for_writing = false) {
    static const char* const names[] = {"x", "y", "z", "vx", "vy", "vz", "m", "id", "component"};
    bool known = false;
    for (const char* n : names) known = known || name == n;
    if (!known) {
      throw_input_error("field: unknown particle field '" + name + "' (x, y, z, vx, vy, vz, m, id, component)");
    }
    DeviceArray a;
    a.owner = self;
    auto fill = [&]<class T>(System<T>* system) {
      auto& store = system->store();
      a.n = store.size();
      a.where = store.location();
      a.stream = store.stream();
      if (name == "id") {
        a.data = store.template field<std::uint64_t>("id");
        a.kind = 'u';
        a.bytes = 8;
      } else if (name == "component") {
        a.data = store.template field<std::uint8_t>("component");
        a.kind = 'u';
        a.bytes = 1;
      } else {
        a.data = store.template field<T>(name);
        a.kind = 'f';
        a.bytes = sizeof(T);
      }
    };
    sim().synchronize();
    if (single()) {
      fill(system_of<float>(*sim_));
    } else {
      fill(system_of<double>(*sim_));
    }
    // hermite4 keeps per-body state (jerks, times) that a write would leave inconsistent.
    a.readonly = name == "id" || name == "component" || sim_->config().integrator == "hermite4";
    if (for_writing && !a.readonly) {
      written_ = true;
      positions_written_ = positions_written_ || is_position_field(name);
    }
    return a;
  }

  static bool is_position_field(const std::string& name) {
    return name == "x" || name == "y" || name == "z" || name == "m";
  }

 private:
  // The state as it is about to be stepped, after writes through the views.
  static void check_written_state(Simulation& s) {
    const Particles<double> p = s.particles();
    try {
      validate_particles(p, "particles", [](std::size_t i) { return "body " + std::to_string(i); });
    } catch (const Error& e) {
      throw Error(e.kind(), std::string(e.what()) + ", written through a view (the step was not taken)");
    }
  }

  std::unique_ptr<Simulation> sim_;
  Diagnostics initial_;
  int writable_views_ = 0;
  int position_views_ = 0;
  bool written_ = false;            // a writable view was handed out since the last step
  bool positions_written_ = false;  // ... of x, y, z or m
  bool running_ = false;
  std::thread::id runner_;
};

// What a numpy view holds: the engine (the memory's owner), whether the view is writable and
// whether it is one of positions or masses.
struct ViewKeeper {
  std::shared_ptr<Engine> engine;
  bool writable;
  bool positions;
};

// `writable` false: a read-only view, which does not count as a write.
pb::array numpy_view(const std::shared_ptr<Engine>& self, const std::string& name, bool writable) {
  DeviceArray a = self->field(self, name);
  a.readonly = a.readonly || !writable;
  if (a.where.on_device()) {
    throw_input_error("view of " + name + ": the particles are on " + a.where.text() +
                      "; use to_numpy() for a copy, or the device array (sim.device_array) with CuPy, PyTorch or JAX");
  }
  auto* keeper = new ViewKeeper{self, !a.readonly, Engine::is_position_field(name)};
  if (keeper->writable) self->view_opened(keeper->positions);
  pb::capsule base(keeper, [](void* p) {
    auto* k = static_cast<ViewKeeper*>(p);
    if (k->writable) k->engine->view_closed(k->positions);
    delete k;
  });
  const std::string type = std::string("<") + a.kind + std::to_string(a.bytes);
  pb::array out(pb::dtype(type), std::vector<pb::ssize_t>{static_cast<pb::ssize_t>(a.n)},
                std::vector<pb::ssize_t>{static_cast<pb::ssize_t>(a.bytes)}, a.data, base);
  if (a.readonly) out.attr("flags").attr("writeable") = false;
  return out;
}

Checkpoint load_checkpoint(const std::filesystem::path& path, std::filesystem::path* file) {
  if (std::filesystem::is_directory(path)) {
    auto found = RunDirectory::latest_checkpoint(path);
    *file = found.file;
    return std::move(found.checkpoint);
  }
  *file = path;
  return read_checkpoint(path);
}

}  // namespace

void bind_engine(pb::module_& m) {
  pb::class_<Engine, std::shared_ptr<Engine>>(m, "Engine", "A simulation of the library (use nbody.Simulation).")
      .def_static(
          "create",
          [](const std::string& lines) {
            const RunConfig cfg = config_from_lines(lines, "configuration");
            pb::gil_scoped_release release;
            return std::make_shared<Engine>(Simulation::create(cfg));
          },
          "A simulation of the configuration's initial conditions.")
      .def_static(
          "from_particles",
          [](const std::string& lines, const pb::dict& p) {
            const RunConfig cfg = config_from_lines(lines, "configuration");
            Particles<double> parts =
                particles_from_arrays(p["m"], p["x"], p["y"], p["z"], p["vx"], p["vy"], p["vz"],
                                      p.contains("id") ? pb::object(p["id"]) : pb::object(pb::none()), "particles");
            components_from_dict(parts, p, "particles");
            pb::gil_scoped_release release;
            return std::make_shared<Engine>(Simulation::create(cfg, parts));
          },
          "A simulation of the given particles (float64 arrays m, x, y, z, vx, vy, vz and optional id).")
      .def_static(
          "from_checkpoint",
          [](const std::filesystem::path& path) {
            std::filesystem::path file;
            pb::gil_scoped_release release;
            Checkpoint ck = load_checkpoint(path, &file);
            auto sim = Simulation::create_from_checkpoint(ck);
            if (ck.progress.initial == Diagnostics{}) return std::make_shared<Engine>(std::move(sim));
            return std::make_shared<Engine>(std::move(sim), ck.progress.initial);
          },
          "A simulation continued from a checkpoint file, or from a run directory's newest checkpoint.")
      .def_property_readonly("config", [](Engine& e) { return config_to_lines(e.sim().config()); })
      .def_property_readonly("step", [](Engine& e) { return e.sim().step_count(); })
      .def_property_readonly("time", [](Engine& e) { return e.sim().time(); })
      .def_property_readonly("n", [](Engine& e) { return e.sim().size(); })
      .def_property_readonly("backend", [](Engine& e) { return e.sim().backend_name(); })
      .def_property_readonly("device", [](Engine& e) { return e.sim().device_name(); })
      .def_property_readonly("location", [](Engine& e) { return e.location().text(); })
      .def_property_readonly("on_device", [](Engine& e) { return e.location().on_device(); })
      .def_property_readonly("interactions", [](Engine& e) { return e.sim().interactions(); })
      .def_property_readonly("position_views", &Engine::position_views)
      .def("step_at_time", [](Engine& e, double t) { return step_at_time(e.sim().config(), t); })
      .def(
          "advance",
          [](Engine& e, std::int64_t last_step, pb::object log, pb::object progress, pb::object callback,
             std::int64_t every, pb::object target, double chunk_seconds) {
            PythonHooks hooks(std::move(log), std::move(progress), std::move(callback), every, std::move(target));
            hooks.hooks().announce = false;
            hooks.hooks().heartbeat_seconds = 0;
            hooks.hooks().chunk_seconds = chunk_seconds;
            const RunResult r = e.advance(last_step, hooks);
            hooks.rethrow();
            return run_result_to_dict(r);
          },
          pb::arg("last_step"), pb::arg("log") = pb::none(), pb::arg("progress") = pb::none(),
          pb::arg("callback") = pb::none(), pb::arg("every") = 1, pb::arg("target") = pb::none(),
          pb::arg("chunk_seconds") = 0.25)
      .def("diagnostics",
           [](Engine& e) {
             Diagnostics d;
             {
               pb::gil_scoped_release release;
               d = e.sim().diagnostics();
             }
             return diagnostics_to_dict(d, e.initial());
           })
      .def(
          "render",
          [](Engine& e, int width, int height, const std::string& camera, const pb::object& centre,
             const std::array<double, 3>& direction, const std::array<double, 3>& up, const pb::object& extent,
             double fov, const pb::object& distance, const std::string& colormap, double decades,
             const pb::object& components) {
            RenderRequest r;
            r.width = width, r.height = height;
            if (camera == "orthographic") {
              r.camera.projection = render::Projection::orthographic;
            } else if (camera == "perspective") {
              r.camera.projection = render::Projection::perspective;
            } else {
              throw_input_error("render: camera: unknown camera '" + camera + "' (choose orthographic or perspective)");
            }
            if (!centre.is_none()) r.camera.centre = centre.cast<std::array<double, 3>>();
            r.camera.direction = direction;
            r.camera.up = up;
            r.auto_width = extent.is_none();
            if (!extent.is_none()) r.camera.width = extent.cast<double>();
            r.camera.fov_degrees = fov;
            if (r.camera.projection == render::Projection::perspective && distance.is_none())
              throw_input_error("render: distance: a perspective camera needs a distance > 0");
            if (!distance.is_none()) r.camera.distance = distance.cast<double>();
            r.colormap = colormap;
            r.decades = decades;
            return render_image(e.sim(), r, components);
          },
          pb::arg("width"), pb::arg("height"), pb::arg("camera"), pb::arg("centre"), pb::arg("direction"),
          pb::arg("up"), pb::arg("extent"), pb::arg("fov"), pb::arg("distance"), pb::arg("colormap"),
          pb::arg("decades"), pb::arg("components"))
      .def("initial_diagnostics", [](Engine& e) { return diagnostics_to_dict(e.initial(), e.initial()); })
      .def("particles", [](Engine& e) { return particles_to_dict(e.sim().particles()); })
      .def_property_readonly("component_names", [](Engine& e) { return e.sim().component_names(); })
      .def("lagrangian_radii",
           [](Engine& e) {
             const auto p = e.sim().particles();
             const auto r = lagrangian_radii(p);
             return std::vector<double>(r.begin(), r.end());
           })
      .def(
          "checkpoint",
          [](Engine& e, const std::filesystem::path& path) {
            Checkpoint ck = e.sim().checkpoint();
            ck.progress.initial = e.initial();
            pb::gil_scoped_release release;
            write_checkpoint(path, ck);
          },
          pb::arg("path"))
      .def(
          "save",
          [](Engine& e, const std::filesystem::path& path, const std::string& format) {
            const RunConfig& cfg = e.sim().config();
            const ParticleFormat f = parse_particle_format(format, "format");
            const Particles<double> p = e.sim().particles();
            pb::gil_scoped_release release;
            write_particle_file(path, f, p, {parse_precision(cfg.precision), e.sim().time(), &cfg, std::nullopt});
          },
          pb::arg("path"), pb::arg("format"))
      .def(
          "field",
          [](const std::shared_ptr<Engine>& e, const std::string& name, bool for_writing) {
            return e->field(e, name, for_writing);
          },
          pb::arg("name"), pb::arg("for_writing") = false)
      .def(
          "with_particles",
          [](Engine& e, const pb::dict& p, const std::string& what) {
            Particles<double> parts =
                particles_from_arrays(p["m"], p["x"], p["y"], p["z"], p["vx"], p["vy"], p["vz"], p["id"], what);
            components_from_dict(parts, p, what);
            return e.with_particles(parts, what);
          },
          pb::arg("particles"), pb::arg("what"),
          "A new engine of these particles going on from this one's step and time (integrator restarted).")
      .def_property_readonly("running", &Engine::running)
      .def("view", &numpy_view, pb::arg("name"), pb::arg("writable") = true);
}

}  // namespace nbody::py
