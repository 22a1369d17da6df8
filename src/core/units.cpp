#include "core/units.hpp"

#include <cmath>
#include <numbers>

#include "core/strings.hpp"
#include "nbody/error.hpp"

namespace nbody {

namespace constants {
double parsec_cm() { return 648000.0 / std::numbers::pi * au_cm; }
double msun_g() { return gm_sun_cgs / G_cgs; }
double gaussian_year_s() { return 2.0 * std::numbers::pi / gaussian_k * day_s; }
}  // namespace constants

namespace {

using namespace constants;

// G in a system with the given length, mass and velocity units: G_cgs M_u / (L_u V_u^2). GMsun
// is known far better than G or Msun separately, so with Msun as the mass unit the product
// G_cgs * Msun is GMsun exactly.
double g_in_units(double length_cm, double velocity_cm_s) { return gm_sun_cgs / (length_cm * velocity_cm_s * velocity_cm_s); }

UnitSystem make_henon() {
  UnitSystem u;
  u.name = "henon";
  u.length = "Henon length (virial radius)";
  u.mass = "total mass";
  u.velocity = "Henon velocity";
  u.time = "Henon time (a crossing time is 2 sqrt 2)";
  u.cgs = {};
  u.G = 1.0;
  return u;
}

UnitSystem make_galactic() {
  UnitSystem u;
  u.name = "galactic";
  u.length = "kpc";
  u.mass = "Msun";
  u.velocity = "km/s";
  u.time = "kpc/(km/s) = 0.9778 Gyr";
  const double kpc = 1e3 * parsec_cm();
  u.cgs = {kpc, msun_g(), km_cm, kpc / km_cm, true};
  u.G = g_in_units(kpc, km_cm);  // 4.30092e-6
  return u;
}

UnitSystem make_solar() {
  UnitSystem u;
  u.name = "solar";
  u.length = "au";
  u.mass = "Msun";
  u.velocity = "au/yr";
  u.time = "Gaussian year (2 pi / k days = 365.2568983 d)";
  const double year = gaussian_year_s();
  u.cgs = {au_cm, msun_g(), au_cm / year, year, true};
  // With the Gaussian year, G = k^2 (2 pi / k)^2 = 4 pi^2 by construction; the value from GMsun
  // (DE-era au and GMsun) agrees with it to 1e-9, so the defining value is used.
  u.G = 4.0 * std::numbers::pi * std::numbers::pi;
  return u;
}

const std::vector<UnitSystem>& systems() {
  static const std::vector<UnitSystem> table = {make_henon(), make_galactic(), make_solar()};
  return table;
}

}  // namespace

std::vector<std::string> unit_system_names() {
  std::vector<std::string> names;
  for (const auto& s : systems()) names.emplace_back(s.name);
  return names;
}

const UnitSystem& unit_system(std::string_view name) {
  for (const auto& s : systems()) {
    if (s.name == name) return s;
  }
  throw_input_error("units: unknown unit system '" + std::string(name) + "' (choose from " +
                    join(unit_system_names()) + ")");
}

UnitSystemCgs unit_system_cgs(std::string_view name) { return unit_system(name).cgs; }
UnitSystemCgs unit_system_cgs(const RunConfig& cfg) { return unit_system_cgs(cfg.units); }

double effective_gravitational_constant(const RunConfig& cfg) {
  return cfg.gravitational_constant > 0 ? cfg.gravitational_constant : unit_system(cfg.units).G;
}

}  // namespace nbody
