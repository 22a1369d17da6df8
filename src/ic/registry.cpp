#include <cmath>
#include <string>

#include "core/strings.hpp"
#include "core/units.hpp"
#include "ic/ic.hpp"
#include "ic/setup_log.hpp"
#include "io/particle_file.hpp"
#include "nbody/error.hpp"

namespace nbody {

const std::vector<IcInfo>& initial_conditions() {
  using N = NativeUnits;
  static const std::vector<IcInfo> table = {
      {"cube", "the documents' set-up: positions and velocities uniform in [-1,1]^3, unit masses", &make_cube,
       N::model, "n bodies of mass 1", "NVIDIA DLI 01-nbody randomizeBodies", &draw_cube, {"bodies"}},
      {"plummer", "Plummer sphere in Henon units (G = M = 1, E = -1/4), Aarseth-Henon-Wielen sampling",
       &make_plummer, N::model, "n bodies of mass 1/n", "Aarseth, Henon & Wielen 1974, A&A 37, 183", &draw_plummer,
       {"stars"}},
      {"king", "King (1966) model of central potential W0 (--king-w0), Henon units", &make_king, N::model,
       "n bodies of mass 1/n", "King 1966, AJ 71, 64; Poisson equation by RK4, velocities from the DF", &draw_king,
       {"stars"}},
      {"hernquist", "Hernquist (1990) sphere, isotropic, inner 99 % of the mass, Henon units", &make_hernquist,
       N::model, "n bodies of mass 1/n", "Hernquist 1990, ApJ 356, 359 (eqs. 3, 17)", &draw_hernquist, {"stars"}},
      {"uniform-sphere", "homogeneous sphere, Maxwellian velocities at virial ratio --virial-ratio (0: cold collapse)",
       &make_uniform_sphere, N::model, "n bodies of mass 1/n", "homogeneous sphere, Gaussian velocities",
       &draw_uniform_sphere, {"stars"}},
      {"disk-galaxy", "exponential disk + Hernquist bulge + Hernquist halo, approximate equilibrium, Henon units",
       &make_disk_galaxy, N::model, "n bodies of mass 1/n, split among disk, bulge and halo by mass",
       "Hernquist 1993, ApJS 86, 389 (moment method, simplified); Freeman 1970 disk rotation", &draw_disk_galaxy,
       {"disk", "bulge", "halo"}},
      {"galaxy-collision", "two disk galaxies on a parabolic orbit (--pericentre, --separation, --incl1, --incl2)",
       &make_galaxy_collision, N::model, "n bodies in all: n - n/2 in galaxy 1, n/2 in galaxy 2",
       "two disk-galaxy models on a point-mass parabolic orbit", &draw_galaxy_collision,
       {"galaxy1.disk", "galaxy1.bulge", "galaxy1.halo", "galaxy2.disk", "galaxy2.bulge", "galaxy2.halo"}},
      {"solar-system", "the Sun, eight planets and Pluto at J2000.0 (JPL Horizons DE441), --units solar or galactic",
       &make_solar_system, N::solar, "exactly 10 bodies (n must be 10)",
       "JPL Horizons DE441 state vectors at JD 2451545.0 TDB (barycentric, ICRF rotated to the ecliptic of "
       "J2000.0 by eps = 84381.448 arcsec; Earth and Moon combined into the Earth-Moon barycentre); masses "
       "GM_i / GM_sun from NAIF gm_de440.tpc (system masses); Pluto from the J2000 Keplerian elements of JPL's "
       "Approximate Positions of the Planets (Standish), Table 1",
       nullptr, {"star", "planet", "dwarf-planet"}},
      {"shell", "the CUDA samples' shell: a rotating spherical shell (--cluster-scale, --velocity-scale)",
       &make_shell, N::model, "n bodies of mass 1", "NVIDIA CUDA samples nbody, NBODY_CONFIG_SHELL", &draw_shell,
       {"bodies"}},
      {"expand", "the CUDA samples' expanding sphere (--cluster-scale, --velocity-scale)", &make_expand,
       N::model, "n bodies of mass 1", "NVIDIA CUDA samples nbody, NBODY_CONFIG_EXPAND", &draw_expand, {"bodies"}},
  };
  return table;
}

std::vector<std::string> ic_names() {
  std::vector<std::string> names;
  for (const auto& i : initial_conditions()) names.push_back(i.name);
  return names;
}

const IcInfo& find_initial_conditions(std::string_view name) {
  for (const auto& i : initial_conditions()) {
    if (i.name == name) return i;
  }
  throw_input_error("ic: unknown initial condition '" + std::string(name) + "' (choose from " + join(ic_names()) +
                    ")");
}

void to_unit_system(Particles<double>& p, NativeUnits native, const RunConfig& cfg, std::string_view ic_name) {
  const UnitSystem& target = unit_system(cfg.units);
  double fl = 1, fm = 1, fv = 1;
  if (native == NativeUnits::model) {
    if (!target.cgs.physical) return;
    if (!(cfg.mass_scale > 0) || !(cfg.length_scale > 0)) {
      throw_input_error("mass_scale, length_scale: --units " + std::string(target.name) + " with ic " +
                        std::string(ic_name) + " needs --mass-scale (Msun per model mass unit) and --length-scale (" +
                        std::string(target.length) + " per model length unit)");
    }
    fm = cfg.mass_scale;
    fl = cfg.length_scale;
    fv = std::sqrt(effective_gravitational_constant(cfg) * fm / fl);
  } else {
    if (!target.cgs.physical) {
      throw_input_error("units: ic " + std::string(ic_name) +
                        " is made of physical state vectors with no Henon scaling: use --units solar (or galactic)");
    }
    const UnitSystemCgs& from = unit_system("solar").cgs;
    fl = from.UnitLength_in_cm / target.cgs.UnitLength_in_cm;
    fm = from.UnitMass_in_g / target.cgs.UnitMass_in_g;
    fv = from.UnitVelocity_in_cm_per_s / target.cgs.UnitVelocity_in_cm_per_s;
  }
  for (std::size_t i = 0; i < p.size(); ++i) {
    p.x[i] *= fl;
    p.y[i] *= fl;
    p.z[i] *= fl;
    p.vx[i] *= fv;
    p.vy[i] *= fv;
    p.vz[i] *= fv;
    p.m[i] *= fm;
  }
}

Particles<double> make_initial_conditions(const IcRequest& req) {
  const IcInfo& info = find_initial_conditions(req.name);
  (void)unit_system(req.model.units);  // an unknown unit system is refused before drawing
  const ic::SetupPhase phase(req.log, req.n > 0 ? static_cast<std::size_t>(req.n) : 0,
                             "drawing the initial conditions: " + info.name + ", " + std::to_string(req.n) + " bodies");
  Particles<double> p = info.make(req);
  p.component_names = info.components;
  to_unit_system(p, info.native, req.model, info.name);
  return p;
}

Particles<double> draw_bodies(const IcRequest& req, std::size_t begin, std::size_t end) {
  const IcInfo& info = find_initial_conditions(req.name);
  if (req.n < 0 || begin > end || end > static_cast<std::size_t>(req.n)) {
    throw_input_error("ic: body range [" + std::to_string(begin) + ", " + std::to_string(end) + ") is not inside [0, " +
                      std::to_string(req.n) + ")");
  }
  Particles<double> out;
  if (info.draw == nullptr) {
    const Particles<double> whole = info.make(req);
    out.resize(end - begin);
    for (std::size_t i = begin; i < end; ++i) {
      const std::size_t k = i - begin;
      out.x[k] = whole.x[i];
      out.y[k] = whole.y[i];
      out.z[k] = whole.z[i];
      out.vx[k] = whole.vx[i];
      out.vy[k] = whole.vy[i];
      out.vz[k] = whole.vz[i];
      out.m[k] = whole.m[i];
      out.id[k] = whole.id[i];
      out.component[k] = whole.component[i];
    }
    out.component_names = info.components;
    return out;
  }
  out.resize(end - begin);  // components 0: a draw of a model of several sets its bodies' own
  info.draw(req, out, begin, end);
  out.component_names = info.components;
  return out;
}

std::string ic_metadata_toml(const RunConfig& cfg) {
  const UnitSystem& u = unit_system(cfg.units);
  std::string out;
  out += "# The model of this run and its unit system (the parameters are in config.toml).\n";
  out += "[initial_conditions]\n";
  if (is_file_ic(cfg.ic)) {
    // Read, not drawn: the file's values are taken as they are, in the run's units.
    out += "name = \"file\"\n";
    out += "description = \"particles read from a file, taken to be in the run's unit system\"\n";
    out += "bodies = \"the file's bodies\"\n";
    out += "source = " + toml_string(cfg.ic.substr(kIcFilePrefix.size())) + "\n";
  } else {
    const IcInfo& info = find_initial_conditions(cfg.ic);
    out += "name = " + toml_string(info.name) + "\n";
    out += "description = " + toml_string(info.description) + "\n";
    out += "bodies = " + toml_string(info.bodies) + "\n";
    out += "source = " + toml_string(info.source) + "\n";
    out += "components = [";  // by index: the bodies' component tags in snapshots and checkpoints
    for (std::size_t c = 0; c < info.components.size(); ++c) {
      out += (c > 0 ? ", " : "") + toml_string(info.components[c]);
    }
    out += "]\n";
    if (info.native == NativeUnits::solar) {
      out += "epoch = \"J2000.0 = JD 2451545.0 TDB\"\n";
      out += "frame = \"barycentric, ecliptic and mean equinox of J2000.0\"\n";
    }
  }
  out += "\n[units]\n";
  out += "system = " + toml_string(u.name) + "\n";
  out += "G = " + toml_real(effective_gravitational_constant(cfg)) + "\n";
  out += "length = " + toml_string(u.length) + "\n";
  out += "mass = " + toml_string(u.mass) + "\n";
  out += "velocity = " + toml_string(u.velocity) + "\n";
  out += "time = " + toml_string(u.time) + "\n";
  out += "physical = " + std::string(u.cgs.physical ? "true" : "false") + "\n";
  out += "UnitLength_in_cm = " + toml_real(u.cgs.UnitLength_in_cm) + "\n";
  out += "UnitMass_in_g = " + toml_real(u.cgs.UnitMass_in_g) + "\n";
  out += "UnitVelocity_in_cm_per_s = " + toml_real(u.cgs.UnitVelocity_in_cm_per_s) + "\n";
  out += "UnitTime_in_s = " + toml_real(u.cgs.UnitTime_in_s) + "\n";
  return out;
}

void centre(Particles<double>& p) {
  double m = 0, x = 0, y = 0, z = 0, vx = 0, vy = 0, vz = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    m += p.m[i];
    x += p.m[i] * p.x[i];
    y += p.m[i] * p.y[i];
    z += p.m[i] * p.z[i];
    vx += p.m[i] * p.vx[i];
    vy += p.m[i] * p.vy[i];
    vz += p.m[i] * p.vz[i];
  }
  if (m <= 0) return;
  for (std::size_t i = 0; i < p.size(); ++i) {
    p.x[i] -= x / m;
    p.y[i] -= y / m;
    p.z[i] -= z / m;
    p.vx[i] -= vx / m;
    p.vy[i] -= vy / m;
    p.vz[i] -= vz / m;
  }
}

}  // namespace nbody
