// [model]: which initial conditions, how many bodies, the unit system, and each model's own
// parameters, which apply to that model only.
#include "ic/parameters.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "core/units.hpp"
#include "ic/ic.hpp"
#include "io/particle_file.hpp"
#include "nbody/error.hpp"

namespace nbody {
namespace {

// Kernels index bodies with 32-bit integers.
constexpr double kMaxBodies = double(std::numeric_limits<std::int32_t>::max());

std::string ic_in_use(const RunConfig& cfg) { return cfg.ic; }
std::string units_in_use(const RunConfig& cfg) { return cfg.units; }

bool is_king(const RunConfig& cfg) { return cfg.ic == "king"; }
bool is_uniform_sphere(const RunConfig& cfg) { return cfg.ic == "uniform-sphere"; }
bool has_disks(const RunConfig& cfg) { return cfg.ic == "disk-galaxy" || cfg.ic == "galaxy-collision"; }
bool is_collision(const RunConfig& cfg) { return cfg.ic == "galaxy-collision"; }
bool is_cuda_sample(const RunConfig& cfg) { return cfg.ic == "shell" || cfg.ic == "expand"; }
// A model in G = 1 units goes to physical units through the scales (to_unit_system).
bool physical_units(const RunConfig& cfg) {
  for (const auto& name : unit_system_names()) {
    if (name == cfg.units) return unit_system(cfg.units).cgs.physical;
  }
  return true;  // an unknown name is refused by its own check
}

constexpr Applicability kKing{&is_king, "--ic king", &ic_in_use};
constexpr Applicability kUniformSphere{&is_uniform_sphere, "--ic uniform-sphere", &ic_in_use};
constexpr Applicability kDisks{&has_disks, "--ic disk-galaxy and galaxy-collision", &ic_in_use};
constexpr Applicability kCollision{&is_collision, "--ic galaxy-collision", &ic_in_use};
constexpr Applicability kCudaSample{&is_cuda_sample, "--ic shell and expand", &ic_in_use};
constexpr Applicability kPhysical{&physical_units, "physical --units (galactic, solar)", &units_in_use};

// A model's native units of length and time in the run's units: Henon (or the CUDA samples')
// G = 1 units through the scales, the Solar System's au and year through cgs. None for a file or
// physical units without the scales (which the model refuses when drawn).
struct Scales {
  double length = 1, time = 1;
};
std::optional<Scales> native_scales(const RunConfig& cfg) {
  if (is_file_ic(cfg.ic)) return std::nullopt;
  bool known_units = false;
  for (const auto& name : unit_system_names()) known_units = known_units || name == cfg.units;
  if (!known_units) return std::nullopt;
  const UnitSystem& target = unit_system(cfg.units);
  if (cfg.ic == "solar-system") {
    if (!target.cgs.physical) return std::nullopt;
    const UnitSystemCgs& from = unit_system("solar").cgs;
    return Scales{from.UnitLength_in_cm / target.cgs.UnitLength_in_cm, from.UnitTime_in_s / target.cgs.UnitTime_in_s};
  }
  if (!target.cgs.physical) return Scales{};
  if (!(cfg.mass_scale > 0) || !(cfg.length_scale > 0)) return std::nullopt;
  // t = sqrt(L^3 / (G M)): the model's unit of time (its dynamical time sqrt(R^3 / GM) with R
  // the virial radius for a Henon model).
  const double G = cfg.gravitational_constant > 0 ? cfg.gravitational_constant : target.G;
  return Scales{cfg.length_scale, std::sqrt(cfg.length_scale * cfg.length_scale * cfg.length_scale /
                                            (G * cfg.mass_scale))};
}

// In the model's native units. The Solar System: Mercury's orbit (0.24 yr) in 12,000 steps (10.5
// minutes each), which keeps its longitude within ~4 arcseconds a decade with leapfrog (1e-4 yr:
// 100"; tests/test_dynamics.cpp), and no softening (point masses). Every other model: 1/100 of
// its unit of time and of length.
constexpr double kSolarSystemDt = 2e-5;            // yr
constexpr double kSolarSystemSmallestScale = 0.3;  // au: Mercury's perihelion distance (0.307 au)

bool given_key(const std::vector<std::string>& given, std::string_view key) {
  return std::find(given.begin(), given.end(), key) != given.end();
}

}  // namespace

std::vector<std::string> apply_model_defaults(RunConfig& cfg, const std::vector<std::string>& given) {
  std::vector<std::string> notes;
  if (is_file_ic(cfg.ic)) {
    if (given_key(given, "softening")) return notes;
    const std::string path = cfg.ic.substr(kIcFilePrefix.size());
    ParticleFileInfo info;
    try {
      info = read_particle_file_info(path);
    } catch (const Error& e) {
      throw Error(e.kind(), "ic: " + std::string(e.what()));
    }
    char buf[512];
    if (info.softening) {
      cfg.softening = *info.softening;
      std::snprintf(buf, sizeof buf, "softening %.17g: as recorded in %s (give --softening to change it)",
                    cfg.softening, path.c_str());
    } else {
      std::snprintf(buf, sizeof buf,
                    "warning: %s records no softening: the default %g is used (give --softening to choose)",
                    path.c_str(), cfg.softening);
    }
    notes.emplace_back(buf);
    return notes;
  }
  const auto scales = native_scales(cfg);
  if (!scales) return notes;
  const bool solar = cfg.ic == "solar-system";
  if (!given_key(given, "dt")) cfg.dt = (solar ? kSolarSystemDt : 0.01) * scales->time;
  if (!given_key(given, "softening")) cfg.softening = solar ? 0.0 : 0.01 * scales->length;
  return notes;
}

std::string softening_warning(const RunConfig& cfg) {
  const auto scales = native_scales(cfg);
  if (!scales || !(cfg.softening > 0)) return {};
  const bool solar = cfg.ic == "solar-system";
  // The Solar System is point masses: 1e-3 of Mercury's perihelion distance already bends its
  // orbit. A stellar system's softening of 1/10 of the length unit (the virial radius) smooths
  // its core away.
  const double limit = (solar ? 1e-3 * kSolarSystemSmallestScale : 0.1) * scales->length;
  if (cfg.softening <= limit) return {};
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "warning: softening %g is large for %s (above %g, %s): the forces are smoothed at the model's own "
                "scales; give --softening%s",
                cfg.softening, cfg.ic.c_str(), limit,
                solar ? "1e-3 of Mercury's perihelion distance" : "1/10 of the model's length unit",
                solar ? " 0 (point masses)" : " smaller (the default is 1/100 of the length unit)");
  return buf;
}

ParamSection model_parameters() {
  using K = ParamKind;
  return {
      "model",
      "Model",
      {
          {.key = "ic", .kind = K::text,
           .help = "initial conditions (file:PATH reads them from a .hdf5/.h5, .tipsy/.std/.bin or .csv file)",
           .choices = &ic_names, .field = &RunConfig::ic, .choice_prefix = kIcFilePrefix},
          {.key = "n", .short_flag = "-n", .kind = K::integer,
           .help = "number of bodies (with --ic file:PATH, taken from the file)", .min = 1, .max = kMaxBodies,
           .field = &RunConfig::n},
          {.key = "seed", .kind = K::integer, .help = "random seed of the initial conditions", .min = 0,
           .max = kIntMax, .field = &RunConfig::seed},
          {.key = "units", .kind = K::text,
           .help = "unit system: henon (G = M = 1, E = -1/4), galactic (kpc, Msun, km/s), solar (au, Msun, yr)",
           .choices = &unit_system_names, .field = &RunConfig::units},
          {.key = "mass_scale", .kind = K::real, .unit = "Msun",
           .help = "physical units: Msun per model mass unit (a Henon model's total mass; one body of cube, shell, "
                   "expand)",
           .min = 0, .max = kRealMax, .field = &RunConfig::mass_scale, .applicability = kPhysical},
          {.key = "length_scale", .kind = K::real, .unit = "kpc or au",
           .help = "physical units: length of one model length unit (a Henon model's virial radius)", .min = 0,
           .max = kRealMax, .field = &RunConfig::length_scale, .applicability = kPhysical},
          {.key = "king_w0", .kind = K::real, .help = "king: dimensionless central potential W0", .min = 0,
           .max = 18, .min_exclusive = true, .field = &RunConfig::king_w0, .applicability = kKing},
          {.key = "virial_ratio", .kind = K::real,
           .help = "uniform-sphere: virial ratio Q = 2K/|W| (0: cold collapse; < 2)", .min = 0, .max = 2,
           .field = &RunConfig::virial_ratio, .applicability = kUniformSphere},
          {.key = "disk_fraction", .kind = K::real, .help = "disk-galaxy, galaxy-collision: disk mass fraction",
           .min = 0, .max = 1, .min_exclusive = true, .field = &RunConfig::disk_fraction, .applicability = kDisks},
          {.key = "bulge_fraction", .kind = K::real,
           .help = "disk-galaxy, galaxy-collision: bulge mass fraction (halo: the rest)", .min = 0, .max = 1,
           .field = &RunConfig::bulge_fraction, .applicability = kDisks},
          {.key = "toomre_q", .kind = K::real,
           .help = "disk-galaxy, galaxy-collision: Toomre Q of the disk at 2.43 scale lengths", .min = 0,
           .max = kRealMax, .min_exclusive = true, .field = &RunConfig::toomre_q, .applicability = kDisks},
          {.key = "pericentre", .kind = K::real, .unit = "length",
           .help = "galaxy-collision: pericentre distance of the parabolic orbit", .min = 0, .max = kRealMax,
           .min_exclusive = true, .field = &RunConfig::pericentre, .applicability = kCollision},
          {.key = "separation", .kind = K::real, .unit = "length",
           .help = "galaxy-collision: initial distance between the galaxies' centres", .min = 0, .max = kRealMax,
           .min_exclusive = true, .field = &RunConfig::separation, .applicability = kCollision},
          {.key = "incl1", .kind = K::real, .unit = "degrees",
           .help = "galaxy-collision: inclination of disk 1 to the orbital plane", .min = -180, .max = 180,
           .field = &RunConfig::incl1, .applicability = kCollision},
          {.key = "incl2", .kind = K::real, .unit = "degrees",
           .help = "galaxy-collision: inclination of disk 2 to the orbital plane", .min = -180, .max = 180,
           .field = &RunConfig::incl2, .applicability = kCollision},
          {.key = "cluster_scale", .kind = K::real, .unit = "length",
           .help = "shell, expand: the CUDA samples' clusterScale", .min = 0, .max = kRealMax,
           .min_exclusive = true, .field = &RunConfig::cluster_scale, .applicability = kCudaSample},
          {.key = "velocity_scale", .kind = K::real, .help = "shell, expand: the CUDA samples' velocityScale",
           .min = 0, .max = kRealMax, .field = &RunConfig::velocity_scale, .applicability = kCudaSample},
      },
  };
}

}  // namespace nbody
