#pragma once
// Initial conditions, chosen by name, each drawn from an explicit seed. Generated in float64;
// the simulation rounds them to its precision.
//
// Every generator returns its model in the model's own units: Henon units (G = M = 1, E = -1/4)
// for the stellar-dynamical models, the CUDA samples' units (G = 1, unit masses) for cube, shell
// and expand, physical units (au, Msun, yr) for solar-system. make_initial_conditions then
// converts to the run's unit system (--units); see to_unit_system.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "nbody/config.hpp"
#include "nbody/particles.hpp"

namespace nbody {

class Logger;

struct IcRequest {
  std::string name;
  std::int64_t n = 0;
  std::uint64_t seed = 0;
  // The model parameters of the run (king_w0, virial_ratio, the galaxy and orbit parameters,
  // units, mass_scale, length_scale). Its ic, n and seed fields are not used.
  RunConfig model{};
  // Where a set-up long enough to be waited for says what it is doing (ic/setup_log.hpp); none
  // when null.
  Logger* log = nullptr;
};

// The units a generator returns its particles in.
enum class NativeUnits {
  model,  // G = 1 (Henon units, or the documents' / CUDA samples' unit masses)
  solar,  // au, Msun, Gaussian year (G = 4 pi^2)
};

// Writes the bodies [begin, end) of a model as drawn, before its global steps, into out (of
// size end - begin; body i at place i - begin, id i).
using IcDraw = void (*)(const IcRequest&, Particles<double>& out, std::size_t begin, std::size_t end);

struct IcInfo {
  std::string name;
  std::string description;
  Particles<double> (*make)(const IcRequest&);
  NativeUnits native = NativeUnits::model;
  std::string bodies;  // what n means for this model
  std::string source;  // where the model's recipe or numbers come from (for model.toml)
  IcDraw draw = nullptr;  // the per-body draws; null for a model without random draws
  // The model's components by index (Particles::component_names): make and draw tag each body
  // with its index here. A model of one component tags every body 0.
  std::vector<std::string> components;
};

[[nodiscard]] const std::vector<IcInfo>& initial_conditions();
[[nodiscard]] std::vector<std::string> ic_names();
[[nodiscard]] const IcInfo& find_initial_conditions(std::string_view name);  // input error if unknown
// Draws the model and converts it to request.model.units; the bodies carry their components and
// the set the model's component names (IcInfo::components). Throws an input error for an unknown
// name, an n the model cannot have, or physical units without the scales a model needs.
[[nodiscard]] Particles<double> make_initial_conditions(const IcRequest& request);

// Initial conditions are drawn body by body: body i's random values come from the counter-based
// stream (seed, component, i) (core/rng.hpp, BodyRng), whatever n, the number of ranks or
// threads, and the order of drawing. A model is made in two stages:
//   1. the per-body draws (in parallel over the bodies), which any index range gives alone:
//      draw_bodies(request, begin, end) equals the slice [begin, end) of the whole model's draws;
//   2. the model's global steps over all n bodies in index order (centring, scaling to Henon
//      units, the galaxies' placement), which need every body and so the whole set.
// draw_bodies returns stage 1 for [begin, end) (0 <= begin <= end <= n), in the model's native
// units; a model without random draws (solar-system) returns the slice of the whole model.
[[nodiscard]] Particles<double> draw_bodies(const IcRequest& request, std::size_t begin, std::size_t end);

// Converts particles in `native` units to the unit system `cfg.units`, with G the run's G
// (effective_gravitational_constant). A model in G = 1 units goes to physical units through
// cfg.mass_scale (Msun per model mass unit) and cfg.length_scale (system length units per model
// length unit); the velocity unit follows from G: sqrt(G M / L). Physical to physical is a change
// of units through cgs. Physical to henon is refused (no scale to divide by).
void to_unit_system(Particles<double>& p, NativeUnits native, const RunConfig& cfg, std::string_view ic_name);

// Text describing the model of a run for the run directory's model.toml (source, epoch, frame
// for solar-system; the parameters that were used for the others). TOML key = value lines.
[[nodiscard]] std::string ic_metadata_toml(const RunConfig& cfg);

// The per-body draws of each model (IcDraw; see draw_bodies).
void draw_cube(const IcRequest&, Particles<double>&, std::size_t, std::size_t);
void draw_plummer(const IcRequest&, Particles<double>&, std::size_t, std::size_t);
void draw_king(const IcRequest&, Particles<double>&, std::size_t, std::size_t);
void draw_hernquist(const IcRequest&, Particles<double>&, std::size_t, std::size_t);
void draw_uniform_sphere(const IcRequest&, Particles<double>&, std::size_t, std::size_t);
void draw_disk_galaxy(const IcRequest&, Particles<double>&, std::size_t, std::size_t);
void draw_galaxy_collision(const IcRequest&, Particles<double>&, std::size_t, std::size_t);
void draw_shell(const IcRequest&, Particles<double>&, std::size_t, std::size_t);
void draw_expand(const IcRequest&, Particles<double>&, std::size_t, std::size_t);

// The radius of the uniform sphere of virial ratio model.virial_ratio in Henon units (an input
// error for a ratio outside [0, 2)).
[[nodiscard]] double uniform_sphere_radius(const IcRequest& request);

// The documents' set-up: positions and velocities uniform in [-1, 1]^3, unit masses (G = 1).
Particles<double> make_cube(const IcRequest& request);
// Plummer sphere (Aarseth, Henon & Wielen 1974) in Henon units: G = M = 1, E = -1/4, centred,
// zero net momentum.
Particles<double> make_plummer(const IcRequest& request);
// King (1966) model of central potential model.king_w0, Henon units.
Particles<double> make_king(const IcRequest& request);
// Hernquist (1990) sphere, isotropic, Henon units.
Particles<double> make_hernquist(const IcRequest& request);
// Homogeneous sphere with Maxwellian velocities at virial ratio model.virial_ratio, Henon units.
Particles<double> make_uniform_sphere(const IcRequest& request);
// Exponential disk + Hernquist bulge + Hernquist halo, approximate equilibrium, Henon units.
Particles<double> make_disk_galaxy(const IcRequest& request);
// Two disk galaxies on a parabolic orbit, total M = 1, E ~ -1/4.
Particles<double> make_galaxy_collision(const IcRequest& request);
// The Sun, the eight planets and Pluto at J2000.0 (DE441 via JPL Horizons), au, Msun, yr.
Particles<double> make_solar_system(const IcRequest& request);
// Names of the solar-system bodies by index (0 the Sun, 3 the Earth-Moon barycentre, 9 Pluto).
[[nodiscard]] const char* solar_system_body_name(std::size_t i);
// The CUDA samples' nbody configurations NBODY_CONFIG_SHELL and NBODY_CONFIG_EXPAND.
Particles<double> make_shell(const IcRequest& request);
Particles<double> make_expand(const IcRequest& request);

// Moves the centre of mass to the origin and removes the net momentum.
void centre(Particles<double>& p);

}  // namespace nbody
