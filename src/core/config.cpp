#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include "core/strings.hpp"
#include "core/units.hpp"
#include "gravity/names.hpp"
#include "gravity/params.hpp"
#include "ic/ic.hpp"
#include "integrate/names.hpp"
#include "io/particle_file.hpp"
#include "nbody/config.hpp"
#include "nbody/error.hpp"

namespace nbody {
namespace {

constexpr double kIntMax = double(std::numeric_limits<std::int64_t>::max());
constexpr double kRealMax = std::numeric_limits<double>::max();
// Kernels index bodies with 32-bit integers.
constexpr double kMaxBodies = double(std::numeric_limits<std::int32_t>::max());

std::vector<std::string> precision_names() { return {"fp32", "fp64", "mixed"}; }

// The shortest of 15, 16 or 17 significant digits that reads back as the same double, so that
// 0.15 is written 0.15 and every value still round-trips exactly.
std::string format_number(double v) {
  char buf[32];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

[[noreturn]] void bad_value(std::string_view source, const std::string& what) {
  throw_input_error(std::string(source) + ": " + what);
}

void check_range(const ParamSpec& spec, double v, std::string_view text, std::string_view source) {
  const bool below = spec.min_exclusive ? !(v > spec.min) : v < spec.min;
  if (below || v > spec.max) {
    std::string range;
    if (spec.max >= (spec.kind == ParamKind::integer ? kIntMax : kRealMax)) {
      range = std::string("must be ") + (spec.min_exclusive ? "> " : ">= ") + format_number(spec.min);
    } else {
      range = std::string("must be in ") + (spec.min_exclusive ? "(" : "[") + format_number(spec.min) + ", " +
              format_number(spec.max) + "]";
    }
    bad_value(source, range + " (got " + std::string(text) + ")");
  }
}

}  // namespace

std::string ParamSpec::flag() const {
  std::string f = "--" + std::string(key);
  for (auto& c : f) {
    if (c == '_') c = '-';
  }
  return f;
}

const std::vector<ParamSpec>& run_params() {
  using K = ParamKind;
  static const std::vector<ParamSpec> table = {
      {"ic", "", K::text, "",
       "initial conditions (file:PATH reads them from a .hdf5/.h5, .tipsy/.std/.bin or .csv file)", 0, 0, false,
       &ic_names, &RunConfig::ic, kIcFilePrefix},
      {"n", "-n", K::integer, "", "number of bodies (with --ic file:PATH, taken from the file)", 1, kMaxBodies, false,
       nullptr, &RunConfig::n},
      {"seed", "", K::integer, "", "random seed of the initial conditions", 0, kIntMax, false, nullptr,
       &RunConfig::seed},
      {"gravitational_constant", "-G", K::real, "",
       "the gravitational constant G (0: the unit system's: 1 henon, 4.30092e-6 galactic, 4 pi^2 solar)", 0,
       kRealMax, false, nullptr, &RunConfig::gravitational_constant},
      {"softening", "", K::real, "length",
       "Plummer softening length eps (the documents' eps^2 = 1e-9 is eps = 3.1623e-5)", 0, kRealMax, false,
       nullptr, &RunConfig::softening},
      {"backend", "", K::text, "", "where gravity is computed", 0, 0, false, &backend_names, &RunConfig::backend},
      {"precision", "", K::text, "", "arithmetic: fp32, fp64, or mixed (float64 state, float32 pair terms summed in float64)", 0, 0, false, &precision_names,
       &RunConfig::precision},
      {"integrator", "", K::text, "", "time integrator", 0, 0, false, &integrator_names, &RunConfig::integrator},
      {"dt", "", K::real, "time", "time step", 0, kRealMax, true, nullptr, &RunConfig::dt},
      {"steps", "", K::integer, "", "number of steps", 0, kIntMax, false, nullptr, &RunConfig::steps},
      {"out", "", K::text, "", "run directory for the configuration, diagnostics and snapshots (none: no files)",
       0, 0, false, nullptr, &RunConfig::out},
      {"snapshot_every", "", K::integer, "steps", "write a snapshot every K steps (0: first and last only)", 0,
       kIntMax, false, nullptr, &RunConfig::snapshot_every},
      {"diag_every", "", K::integer, "steps", "record diagnostics every K steps (0: first and last only)", 0,
       kIntMax, false, nullptr, &RunConfig::diag_every},
      // snapshots, checkpoints and restart
      {"snapshot_every_t", "", K::real, "time",
       "also write a snapshot each time the simulation time passes a multiple of T (0: off)", 0, kRealMax, false,
       nullptr, &RunConfig::snapshot_every_t},
      {"snapshot_format", "", K::text, "", "file format of the snapshots", 0, 0, false, &snapshot_format_names,
       &RunConfig::snapshot_format},
      {"checkpoint_every", "", K::integer, "steps",
       "write a restart checkpoint every K steps (0: only at the end and when stopped)", 0, kIntMax, false, nullptr,
       &RunConfig::checkpoint_every},
      {"checkpoint_every_s", "", K::real, "s", "also write a checkpoint every S seconds of wall-clock time (0: off)", 0,
       kRealMax, false, nullptr, &RunConfig::checkpoint_every_s},
      // integrators
      {"softening_law", "", K::text, "",
       "softening law: plummer, or spline (GADGET's cubic spline: Newtonian beyond 2.8 eps, the same central "
       "potential -Gm/eps as plummer)",
       0, 0, false, &softening_law_names, &RunConfig::softening_law},
      {"dt_mode", "", K::text, "",
       "time steps: fixed (one step of dt), auto (shared substeps from the integrator's criterion, none longer than "
       "dt; leapfrog, hermite4), block (individual power-of-two fractions of dt; hermite4). dt remains the unit of "
       "steps and of the outputs",
       0, 0, false, &dt_mode_names, &RunConfig::dt_mode},
      {"eta", "", K::real, "",
       "accuracy parameter of the step criterion: hermite4 Aarseth's eta; leapfrog auto dt = eta sqrt(eps/|a|max)",
       0, 1, true, nullptr, &RunConfig::eta},
      // models and units
      {"units", "", K::text, "", "unit system: henon (G = M = 1, E = -1/4), galactic (kpc, Msun, km/s), solar "
       "(au, Msun, yr)", 0, 0, false, &unit_system_names, &RunConfig::units},
      {"mass_scale", "", K::real, "Msun", "physical units: Msun per model mass unit (a Henon model's total mass; "
       "one body of cube, shell, expand)", 0, kRealMax, false, nullptr, &RunConfig::mass_scale},
      {"length_scale", "", K::real, "kpc or au", "physical units: length of one model length unit (a Henon "
       "model's virial radius)", 0, kRealMax, false, nullptr, &RunConfig::length_scale},
      {"king_w0", "", K::real, "", "king: dimensionless central potential W0", 0, 18, true, nullptr,
       &RunConfig::king_w0},
      {"virial_ratio", "", K::real, "", "uniform-sphere: virial ratio Q = 2K/|W| (0: cold collapse; < 2)", 0, 2,
       false, nullptr, &RunConfig::virial_ratio},
      {"disk_fraction", "", K::real, "", "disk-galaxy, galaxy-collision: disk mass fraction", 0, 1, true, nullptr,
       &RunConfig::disk_fraction},
      {"bulge_fraction", "", K::real, "", "disk-galaxy, galaxy-collision: bulge mass fraction (halo: the rest)", 0,
       1, false, nullptr, &RunConfig::bulge_fraction},
      {"toomre_q", "", K::real, "", "disk-galaxy, galaxy-collision: Toomre Q of the disk at 2.43 scale lengths", 0,
       kRealMax, true, nullptr, &RunConfig::toomre_q},
      {"pericentre", "", K::real, "length", "galaxy-collision: pericentre distance of the parabolic orbit", 0,
       kRealMax, true, nullptr, &RunConfig::pericentre},
      {"separation", "", K::real, "length", "galaxy-collision: initial distance between the galaxies' centres", 0,
       kRealMax, true, nullptr, &RunConfig::separation},
      {"incl1", "", K::real, "degrees", "galaxy-collision: inclination of disk 1 to the orbital plane", -180, 180,
       false, nullptr, &RunConfig::incl1},
      {"incl2", "", K::real, "degrees", "galaxy-collision: inclination of disk 2 to the orbital plane", -180, 180,
       false, nullptr, &RunConfig::incl2},
      {"cluster_scale", "", K::real, "length", "shell, expand: the CUDA samples' clusterScale", 0, kRealMax, true,
       nullptr, &RunConfig::cluster_scale},
      {"velocity_scale", "", K::real, "", "shell, expand: the CUDA samples' velocityScale", 0, kRealMax, false,
       nullptr, &RunConfig::velocity_scale},
  };
  return table;
}

const ParamSpec* find_run_param(std::string_view key) {
  for (const auto& p : run_params()) {
    if (p.key == key) return &p;
  }
  return nullptr;
}

void set_param_integer(RunConfig& cfg, const ParamSpec& spec, std::int64_t value, std::string_view source) {
  if (spec.kind == ParamKind::real) {
    set_param_real(cfg, spec, double(value), source);
    return;
  }
  if (spec.kind != ParamKind::integer) bad_value(source, "expected text, got a number");
  check_range(spec, double(value), std::to_string(value), source);
  cfg.*std::get<std::int64_t RunConfig::*>(spec.field) = value;
}

void set_param_real(RunConfig& cfg, const ParamSpec& spec, double value, std::string_view source) {
  if (spec.kind != ParamKind::real) {
    bad_value(source, spec.kind == ParamKind::integer ? "expected a whole number, got " + format_number(value)
                                                      : "expected text, got a number");
  }
  if (!std::isfinite(value)) bad_value(source, "must be a finite number (got " + format_number(value) + ")");
  check_range(spec, value, format_number(value), source);
  cfg.*std::get<double RunConfig::*>(spec.field) = value;
}

void set_param_from_text(RunConfig& cfg, const ParamSpec& spec, std::string_view text, std::string_view source) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  switch (spec.kind) {
    case ParamKind::integer: {
      std::int64_t v = 0;
      const auto [ptr, ec] = std::from_chars(first, last, v);
      if (ec == std::errc::result_out_of_range) bad_value(source, "number out of range (got " + std::string(text) + ")");
      if (ec != std::errc() || ptr != last || text.empty()) {
        bad_value(source, "expected a whole number, got '" + std::string(text) + "'");
      }
      set_param_integer(cfg, spec, v, source);
      return;
    }
    case ParamKind::real: {
      double v = 0;
      const auto [ptr, ec] = std::from_chars(first, last, v);
      if (ec == std::errc::result_out_of_range) bad_value(source, "number out of range (got " + std::string(text) + ")");
      if (ec != std::errc() || ptr != last || text.empty()) {
        bad_value(source, "expected a number, got '" + std::string(text) + "'");
      }
      if (!std::isfinite(v)) bad_value(source, "must be a finite number (got " + std::string(text) + ")");
      set_param_real(cfg, spec, v, source);
      return;
    }
    case ParamKind::text: {
      const auto& prefix = spec.choice_prefix;
      if (!prefix.empty() && text.substr(0, prefix.size()) == prefix) {
        if (text.size() == prefix.size()) bad_value(source, "'" + std::string(text) + "' needs a path after it");
      } else if (spec.choices != nullptr) {
        auto allowed = spec.choices();
        bool ok = false;
        for (const auto& c : allowed) ok = ok || c == text;
        if (!prefix.empty()) allowed.push_back(std::string(prefix) + "PATH");
        if (!ok) bad_value(source, "unknown value '" + std::string(text) + "' (choose from " + join(allowed) + ")");
      }
      cfg.*std::get<std::string RunConfig::*>(spec.field) = std::string(text);
      return;
    }
  }
}

std::string param_value_text(const RunConfig& cfg, const ParamSpec& spec) {
  return std::visit(
      [&](auto member) -> std::string {
        const auto& v = cfg.*member;
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::string>) {
          return v;
        } else if constexpr (std::is_same_v<V, double>) {
          return format_number(v);
        } else {
          return std::to_string(v);
        }
      },
      spec.field);
}

void validate(const RunConfig& cfg) {
  // Every value through the same checks as a flag or a TOML key, so a configuration built in
  // code (tests, the Python API) is held to the same rules.
  RunConfig scratch;
  for (const auto& spec : run_params()) {
    set_param_from_text(scratch, spec, param_value_text(cfg, spec), spec.key);
  }
  check_integrator_options(cfg);
}

}  // namespace nbody
