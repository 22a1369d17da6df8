// nbody._core: the library's configuration schema, particle files and checkpoints, simulations
// and runs for the pure-Python package `nbody` (python/nbody/). This file is the module's entry
// point and binds the schema and the files; each other part is bound by its own file
// (common.hpp lists them).
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "common.hpp"
#include "converters.hpp"
#include "core/units.hpp"
#include "io/checkpoint.hpp"
#include "io/particle_file.hpp"
#include "io/run_directory.hpp"
#include "nbody/error.hpp"
#include "nbody/version.hpp"

namespace nbody::py {

void bind_config(pb::module_& m) {
  m.def(
      "parameters",
      []() {
        pb::list out;
        static const RunConfig defaults{};
        for (const auto& spec : run_params()) {
          pb::dict d;
          d["key"] = std::string(spec.key);
          d["flag"] = spec.flag();
          d["section"] = std::string(spec.section);
          d["kind"] = spec.kind == ParamKind::integer ? "int" : spec.kind == ParamKind::real ? "float" : "str";
          d["unit"] = std::string(spec.unit);
          d["help"] = std::string(spec.help);
          d["default"] = config_to_dict(defaults)[pb::str(std::string(spec.key))];
          if (spec.kind != ParamKind::text) {
            d["min"] = spec.min;
            d["max"] = spec.max;
            d["min_exclusive"] = spec.min_exclusive;
          }
          if (spec.choices != nullptr) d["choices"] = spec.choices();
          if (!spec.choice_prefix.empty()) d["choice_prefix"] = std::string(spec.choice_prefix);
          d["applies_to"] = spec.applicability.applies != nullptr ? pb::object(pb::str(std::string(spec.applicability.only)))
                                                                   : pb::object(pb::none());
          d["may_change_on_resume"] = spec.may_change_on_resume;
          out.append(d);
        }
        return out;
      },
      "The run parameters of the schema (the keyword arguments of Simulation and run): key, flag, section, kind, "
      "unit, help, default, range, choices, applicability.");
  m.def(
      "make_config",
      [](const pb::dict& kwargs, bool model_defaults, bool program_defaults, const pb::object& base_lines) {
        RunConfig base;
        if (!base_lines.is_none()) {
          base = config_from_lines(base_lines.cast<std::string>(), "configuration");
        } else if (program_defaults) {
          base.checkpoint_every_s = kDefaultCheckpointEverySeconds;
        }
        std::vector<std::string> given;
        RunConfig cfg = config_from_kwargs(kwargs, base, &given);
        const bool steps = kwargs.contains("steps"), t_end = kwargs.contains("t_end");
        if (steps && t_end) throw_input_error("t_end: give steps or t_end, not both (t_end sets the steps)");
        if (steps) cfg.t_end = 0;
        if (model_defaults) apply_model_defaults(cfg, given);
        validate(cfg);
        return pb::make_tuple(config_to_lines(cfg), given);
      },
      pb::arg("kwargs"), pb::arg("model_defaults") = true, pb::arg("program_defaults") = false,
      pb::arg("base") = pb::none(),
      "A configuration from keyword arguments, checked by the schema; returns (its lines, the keys given).");
  m.def(
      "config_dict", [](const std::string& lines) { return config_to_dict(config_from_lines(lines, "configuration")); },
      "{key: value} of a configuration's lines.");
  m.def(
      "config_toml", [](const std::string& lines) { return to_toml(config_from_lines(lines, "configuration")); },
      "A configuration's lines as the TOML of config.toml.");
  m.def(
      "softening_warning",
      [](const std::string& lines) { return softening_warning(config_from_lines(lines, "configuration")); });
  m.def("unit_system", [](const std::string& name) {
    const UnitSystem& u = unit_system(name);
    pb::dict d;
    d["name"] = std::string(u.name);
    d["length"] = std::string(u.length);
    d["mass"] = std::string(u.mass);
    d["velocity"] = std::string(u.velocity);
    d["time"] = std::string(u.time);
    d["G"] = u.G;
    d["physical"] = u.cgs.physical;
    d["UnitLength_in_cm"] = u.cgs.UnitLength_in_cm;
    d["UnitMass_in_g"] = u.cgs.UnitMass_in_g;
    d["UnitVelocity_in_cm_per_s"] = u.cgs.UnitVelocity_in_cm_per_s;
    d["UnitTime_in_s"] = u.cgs.UnitTime_in_s;
    return d;
  });
  m.def("lagrangian_fractions", []() {
    return std::vector<double>(kLagrangianFractions.begin(), kLagrangianFractions.end());
  });
  m.def("snapshot_formats", &snapshot_format_names);
  m.def("hdf5_available", &hdf5_available);
  m.def("render_available", []() { return NBODY_HAVE_RENDER != 0; });
  m.def("cuda_available", []() { return NBODY_HAVE_CUDA != 0; });
}

namespace {

pb::object units_dict(const std::optional<UnitSystemCgs>& u) {
  if (!u) return pb::none();
  pb::dict d;
  d["UnitLength_in_cm"] = u->UnitLength_in_cm;
  d["UnitMass_in_g"] = u->UnitMass_in_g;
  d["UnitVelocity_in_cm_per_s"] = u->UnitVelocity_in_cm_per_s;
  d["UnitTime_in_s"] = u->UnitTime_in_s;
  d["physical"] = u->physical;
  return d;
}

}  // namespace

void bind_files(pb::module_& m) {
  m.def(
      "read_particle_file",
      [](const std::filesystem::path& path) {
        ParticleFileData data;
        {
          pb::gil_scoped_release release;
          data = read_particle_file(path);
        }
        pb::dict d = particles_to_dict(data.particles);
        d["time"] = data.info.time;
        d["format"] = std::string(to_string(data.info.format));
        d["precision"] = data.info.precision ? pb::object(pb::str(std::string(to_string(*data.info.precision))))
                                             : pb::object(pb::none());
        d["units"] = units_dict(data.info.units);
        return d;
      },
      pb::arg("path"), "Reads a particle file (HDF5, Tipsy, CSV) with the library's reader and checks.");
  m.def(
      "write_particle_file",
      [](const std::filesystem::path& path, const std::string& format, const pb::dict& p, double time,
         const std::string& precision, const pb::object& config_lines) {
        Particles<double> parts =
            particles_from_arrays(p["m"], p["x"], p["y"], p["z"], p["vx"], p["vy"], p["vz"],
                                  p.contains("id") ? pb::object(p["id"]) : pb::object(pb::none()), "particles");
        components_from_dict(parts, p, "particles");
        RunConfig cfg;
        if (!config_lines.is_none()) cfg = config_from_lines(config_lines.cast<std::string>(), "configuration");
        const ParticleFormat f = parse_particle_format(format, "format");
        SnapshotMeta meta{parse_precision(precision), time, config_lines.is_none() ? nullptr : &cfg, std::nullopt};
        pb::gil_scoped_release release;
        write_particle_file(path, f, parts, meta);
      },
      pb::arg("path"), pb::arg("format"), pb::arg("particles"), pb::arg("time") = 0.0, pb::arg("precision") = "fp64",
      pb::arg("config") = pb::none());
  m.def(
      "format_of", [](const std::filesystem::path& path) -> pb::object {
        const auto f = format_from_extension(path);
        if (!f) return pb::none();
        return pb::str(std::string(to_string(*f)));
      });
  m.def(
      "read_checkpoint",
      [](const std::filesystem::path& path) {
        std::filesystem::path file = path;
        Checkpoint ck;
        {
          pb::gil_scoped_release release;
          if (std::filesystem::is_directory(path)) {
            auto found = RunDirectory::latest_checkpoint(path);
            file = found.file;
            ck = std::move(found.checkpoint);
          } else {
            ck = read_checkpoint(path);
          }
        }
        pb::dict d;
        d["file"] = file.string();
        d["config"] = config_to_lines(ck.config);
        d["step"] = ck.step;
        d["time"] = ck.time;
        d["particles"] = particles_to_dict(std::visit([](const auto& p) { return p.template as<double>(); }, ck.state));
        d["integrator"] = ck.integrator.tag;
        d["run_id"] = ck.run_id;
        return d;
      },
      pb::arg("path"), "A checkpoint file (or a run directory's newest checkpoint): its step, time, configuration, state.");
}

}  // namespace nbody::py

PYBIND11_MODULE(_core, m) {
  namespace pb = pybind11;
  m.doc() = "nbody's engine: the C++ library behind the nbody package (use the package, not this module).";
  static pb::exception<nbody::Error> input_error(m, "InputError", PyExc_ValueError);
  pb::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const nbody::Error& e) {
      if (e.kind() == nbody::ErrorKind::input) {
        PyErr_SetString(input_error.ptr(), e.what());
      } else {
        PyErr_SetString(PyExc_RuntimeError, e.what());
      }
    }
  });
  m.attr("__version__") = nbody::kVersion;
  nbody::py::bind_config(m);
  nbody::py::bind_files(m);
  nbody::py::bind_run_state(m);  // before Engine, whose callbacks are given a RunState
  nbody::py::bind_engine(m);
  nbody::py::bind_runs(m);
  nbody::py::bind_render(m);
  nbody::py::bind_ensembles(m);
  nbody::py::bind_device_arrays(m);
}
