#include "pic/output/openpmd.hpp"

#include <cstdio>
#include <filesystem>

#include "nbody/error.hpp"

#if NBODY_HAVE_HDF5
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "io/atomic_file.hpp"
#include "nbody/version.hpp"
#include "pic/output/hdf5_write.hpp"
#include "pic/physics/units.hpp"
#endif

namespace nbody::pic {

#if !NBODY_HAVE_HDF5
bool openpmd_available() { return false; }
std::string write_openpmd(const std::string&, const PicSimulation&, double, const OpenPmdOrigin&) {
  throw_input_error("pic: openPMD output needs HDF5: this build has none (configure with -DNBODY_ENABLE_HDF5=ON)");
}
std::string write_openpmd(const std::string&, const PicSimulation&, double, const OpenPmdSelection&,
                          const OpenPmdOrigin&) {
  throw_input_error("pic: openPMD output needs HDF5: this build has none (configure with -DNBODY_ENABLE_HDF5=ON)");
}
#else
bool openpmd_available() { return true; }

namespace {

using h5::Handle;
using h5::Writer;

constexpr double kElementaryCharge = 1.602176634e-19;  // C
constexpr double kElectronMass = 9.1093837015e-31;     // kg
constexpr double kSpeedOfLight = 299792458.0;          // m/s

using Dim = std::array<double, 7>;  // powers of L M T I theta N J

// When each record is defined. The iteration's `time` is t = t0 + n dt after n steps: the state
// PicSimulation::step leaves (pic/cpu/simulation.hpp), which is what the driver writes (the
// slab-decomposed and GPU paths gather or copy the same state). Step n - 1 -> n, from x^{n-1},
// u^{n-3/2}, E^{n-1}, B^{n-1}:
//   push     E, B gathered at x^{n-1}; u^{n-3/2} -> u^{n-1/2}; x^{n-1} -> x^n; the current of
//            that move deposited: J^{n-1/2}
//   fields   B^{n-1} -> B^{n-1/2} (half a step), E^{n-1} -> E^n with J^{n-1/2}, B^{n-1/2} -> B^n
// So after it, x, E and B are at t; u and J at t - dt/2; rho (compute_rho, from the present
// positions) at t. Before the first step the loaded momenta stand for u^{-1/2} and J is still
// zero: the same offsets. openPMD's timeOffset is in the unit of `time` (1/omega0 here, times
// timeUnitSI for seconds).
double half_step_back(const PicSimulation& sim) { return -0.5 * sim.settings().dt; }

// The attributes every record has.
void record_attrs(const Writer& w, hid_t rec, const Dim& dim, double time_offset) {
  w.attr_f64s(rec, "unitDimension", std::vector<double>(dim.begin(), dim.end()));
  w.attr_f64(rec, "timeOffset", time_offset);
}

// The root group's attributes: those openPMD requires, those it recommends (author and date when
// known), and the optional softwareDependencies and comment. Nothing from the clock or the
// machine: the same state gives the same bytes.
void write_root(const Writer& w, hid_t f, const OpenPmdOrigin& origin) {
  w.attr_string(f, "openPMD", "1.1.0");
  w.attr_u32(f, "openPMDextension", 0);
  w.attr_string(f, "basePath", "/data/%T/");
  w.attr_string(f, "meshesPath", "meshes/");
  w.attr_string(f, "particlesPath", "particles/");
  w.attr_string(f, "iterationEncoding", "fileBased");
  // (%T as the standard defines it; readers match it against digits, the zero padding included)
  w.attr_string(f, "iterationFormat", "pic_%T.h5");
  if (!origin.author.empty()) w.attr_string(f, "author", origin.author);
  w.attr_string(f, "software", "nbody pic");
  w.attr_string(f, "softwareVersion", std::string(kVersion) + " (" + kGitRevision + ")");
  if (!origin.date.empty()) w.attr_string(f, "date", origin.date);
  unsigned major = 0, minor = 0, release = 0;
  w.check(H5get_libversion(&major, &minor, &release), "query the HDF5 version");
  w.attr_string(f, "softwareDependencies",
                "hdf5@" + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release));
  w.attr_string(f, "comment",
                "2D (x, y) particle-in-cell data in units of the laser: time 1/omega0, length c/omega0 "
                "(omega0 = 2 pi c / wavelengthSI), density n_c, E m_e c omega0 / e, B m_e omega0 / e; "
                "unitSI converts each to SI. Along z the box is taken 1 m deep (the weighting).");
}

// The box [lo, lo + extent) along one axis holding every coordinate in `c`, at least the grid's
// [lo, lo + len): a particle patch's offset and extent (openPMD excludes the upper bound).
void patch_axis(const std::vector<double>& c, double lo, double len, double& offset, double& extent) {
  offset = lo, extent = len;
  if (c.empty()) return;
  const auto [mn, mx] = std::minmax_element(c.begin(), c.end());
  offset = std::min(lo, *mn);
  extent = std::max(lo + len, *mx) - offset;
  while (!(offset + extent > *mx)) extent = std::nextafter(extent, HUGE_VAL);
}

// The meshes E, B, J (vector records) and rho (a scalar record) on the nodes 0..n of each axis
// (the last a copy of the first on a periodic axis). Stored A[i][j] (x the first index, y the
// second, varying fastest: C order), axisLabels (x, y) and every per-axis attribute in that
// order: openPMD's order of the index operator, and the one yt's openPMD frontend assumes (it
// reads the first array axis as x whatever axisLabels says). The grid's own arrays run the other
// way (row j, x fastest: pic/physics/grid.hpp), so the fields are transposed on the way out.
// Only the components `sel` asks for (a vector record with none of its components is left out).
void write_meshes(const Writer& w, hid_t it, const PicSimulation& sim, const SiUnits& u, const OpenPmdSelection& sel) {
  Handle meshes = w.group(it, "meshes");
  const GridGeometry& g = sim.settings().geom;
  const int nxe = g.nx + 1, nye = g.ny + 1;
  const std::vector<hsize_t> dims = {hsize_t(nxe), hsize_t(nye)};
  auto mesh_attrs = [&](hid_t rec) {
    w.attr_string(rec, "geometry", "cartesian");
    w.attr_string(rec, "dataOrder", "C");
    w.attr_strings(rec, "axisLabels", {"x", "y"});
    w.attr_f64s(rec, "gridSpacing", {g.dx, g.dy});
    w.attr_f64s(rec, "gridGlobalOffset", {g.x0, g.y0});
    w.attr_f64(rec, "gridUnitSI", u.length_m);
    w.attr_string(rec, "fieldSmoothing", "none");
  };
  std::vector<double> buf(std::size_t(nxe) * std::size_t(nye));
  auto fill = [&](int c) {
    for (int i = 0; i < nxe; ++i)
      for (int j = 0; j < nye; ++j) buf[std::size_t(i) * std::size_t(nye) + std::size_t(j)] = sim.fields().at(c, i, j);
  };
  const double rho_unit = kElementaryCharge * u.density_m3, j_unit = rho_unit * kSpeedOfLight;
  struct Vec {
    const char* name;
    int first;
    Dim dim;
    double unit;
    double time_offset;
    double stag[3][2];  // per component: x, y
    const char* comment;  // the unit of the values (openPMD's advice), and what is not obvious
  };
  const Vec vecs[3] = {{"E", kEx, {1, 1, -3, -1, 0, 0, 0}, u.efield_V_m, 0.0, {{0.5, 0}, {0, 0.5}, {0, 0}},
                        "in m_e c omega0 / e"},
                       {"B", kBx, {0, 1, -2, -1, 0, 0, 0}, u.bfield_T, 0.0, {{0, 0.5}, {0.5, 0}, {0.5, 0.5}},
                        "in m_e omega0 / e"},
                       {"J", kJx, {-2, 0, 0, 1, 0, 0, 0}, j_unit, half_step_back(sim), {{0.5, 0}, {0, 0.5}, {0, 0}},
                        "in e n_c c; deposited by the particles' moves of the last step, half a step behind"}};
  const char* comp[3] = {"x", "y", "z"};
  for (const Vec& v : vecs) {
    if (!sel.fields[std::size_t(v.first)] && !sel.fields[std::size_t(v.first) + 1] && !sel.fields[std::size_t(v.first) + 2])
      continue;
    Handle rec = w.group(meshes.get(), v.name);
    mesh_attrs(rec.get());
    record_attrs(w, rec.get(), v.dim, v.time_offset);
    w.attr_string(rec.get(), "comment", v.comment);
    for (int k = 0; k < 3; ++k) {
      if (!sel.fields[std::size_t(v.first + k)]) continue;
      fill(v.first + k);
      Handle d = w.dataset(rec.get(), comp[k], dims, buf.data());
      w.attr_f64s(d.get(), "position", {v.stag[k][0], v.stag[k][1]});
      w.attr_f64(d.get(), "unitSI", v.unit);
      w.close(d, std::string(v.name) + "/" + comp[k]);
    }
    w.close(rec, v.name);
  }
  // rho, from the particles' positions when the caller last ran compute_rho.
  if (!sel.fields[kRho]) {
    w.close(meshes, "meshes");
    return;
  }
  fill(kRho);
  Handle rho = w.dataset(meshes.get(), "rho", dims, buf.data());
  mesh_attrs(rho.get());
  record_attrs(w, rho.get(), {-3, 0, 1, 1, 0, 0, 0}, 0.0);
  w.attr_f64s(rho.get(), "position", {0, 0});
  w.attr_string(rho.get(), "comment", "in e n_c; from the particles' present positions");
  w.attr_f64(rho.get(), "unitSI", rho_unit);
  w.close(rho, "rho");
  w.close(meshes, "meshes");
}

// One particle patch (recommended by openPMD for parallel readers): every particle of the
// species, in the grid's box (widened if a particle sits on its upper edge).
void write_patch(const Writer& w, hid_t sp, const Species& s, const GridGeometry& g, const SiUnits& u) {
  Handle patches = w.group(sp, "particlePatches");
  auto count = [&](const char* cname, std::uint64_t v) {
    Handle d = w.dataset(patches.get(), cname, {1}, &v);
    w.attr_f64(d.get(), "unitSI", 1.0);
    w.close(d, cname);
  };
  count("numParticles", s.size());
  count("numParticlesOffset", 0);
  double box[2][2];  // x, y: offset, extent
  patch_axis(s.x, g.x0, g.lx(), box[0][0], box[0][1]);
  patch_axis(s.y, g.y0, g.ly(), box[1][0], box[1][1]);
  for (int part = 0; part < 2; ++part) {
    const char* pname = part == 0 ? "offset" : "extent";
    Handle r = w.group(patches.get(), pname);
    record_attrs(w, r.get(), {1, 0, 0, 0, 0, 0, 0}, 0.0);
    for (int axis = 0; axis < 2; ++axis) {
      const char* cname = axis == 0 ? "x" : "y";
      Handle d = w.dataset(r.get(), cname, {1}, &box[axis][part]);
      w.attr_f64(d.get(), "unitSI", u.length_m);
      w.close(d, std::string(pname) + "/" + cname);
    }
    w.close(r, pname);
  }
  w.close(patches, "particlePatches");
}

// Whether `sel` writes a part of each species' particles (else all of them, as they are).
bool subsamples(const OpenPmdSelection& sel) { return sel.every_kth > 1 || sel.fraction < 1; }

// The particles of species k that `sel` keeps (subsamples(sel)), with their ids when the state
// has them and the selection writes them. Without ids the draw is on the particles' indices.
Species selected_particles(const PicSimulation& sim, std::size_t k, const OpenPmdSelection& sel,
                           std::vector<std::uint64_t>& ids) {
  const Species& all = sim.species()[k];
  const bool have_ids = sim.has_particle_ids();
  ids.clear();
  Species s = all.without_particles();
  for (std::size_t p = 0; p < all.size(); ++p) {
    const std::uint64_t id = have_ids ? sim.particle_ids()[k][p] : std::uint64_t(p);
    if (!sel.keeps(id)) continue;
    s.x.push_back(all.x[p]), s.y.push_back(all.y[p]);
    s.ux.push_back(all.ux[p]), s.uy.push_back(all.uy[p]), s.uz.push_back(all.uz[p]);
    s.w.push_back(all.w[p]);
    if (have_ids && sel.ids) ids.push_back(id);
  }
  return s;
}

// One species' records (the id record from `ids` when with_ids).
void write_species(const Writer& w, hid_t parts, const PicSimulation& sim, const Species& s,
                   const std::vector<std::uint64_t>& ids, bool with_ids, const SiUnits& u) {
  Handle sp = w.group(parts, s.name);
  const std::uint64_t n = s.size();
  const std::vector<hsize_t> dims = {hsize_t(n)};
  auto rec = [&](const char* rname, const Dim& dim, std::uint32_t macro, double power, double time_offset = 0.0) {
    Handle r = w.group(sp.get(), rname);
    record_attrs(w, r.get(), dim, time_offset);
    w.attr_u32(r.get(), "macroWeighted", macro);
    w.attr_f64(r.get(), "weightingPower", power);
    return r;
  };
  auto data = [&](hid_t r, const char* cname, const std::vector<double>& v, double unit) {
    Handle d = w.dataset(r, cname, dims, v.data());
    w.attr_f64(d.get(), "unitSI", unit);
    w.close(d, cname);
  };
  // A constant record component: no data, a value and a shape.
  auto constant = [&](hid_t g, double value, double unit) {
    w.attr_f64(g, "value", value);
    w.attr_f64(g, "unitSI", unit);
    w.attr_u64s(g, "shape", {n});
  };
  {
    Handle r = rec("position", {1, 0, 0, 0, 0, 0, 0}, 0, 0);
    data(r.get(), "x", s.x, u.length_m);
    data(r.get(), "y", s.y, u.length_m);
    w.close(r, "position");
  }
  {
    Handle r = rec("positionOffset", {1, 0, 0, 0, 0, 0, 0}, 0, 0);
    for (const char* c : {"x", "y"}) {
      Handle g = w.group(r.get(), c);
      constant(g.get(), 0, u.length_m);
      w.close(g, c);
    }
    w.close(r, "positionOffset");
  }
  {
    // u = gamma v / c per real particle, times m c: the momentum per real particle, half a step
    // behind the positions (the leapfrog).
    Handle r = rec("momentum", {1, 1, -1, 0, 0, 0, 0}, 0, 1, half_step_back(sim));
    w.attr_string(r.get(), "comment", "per real particle, half a step behind the positions (leapfrog)");
    const double p_unit = s.mass * kElectronMass * kSpeedOfLight;
    data(r.get(), "x", s.ux, p_unit);
    data(r.get(), "y", s.uy, p_unit);
    data(r.get(), "z", s.uz, p_unit);
    w.close(r, "momentum");
  }
  {
    // A scalar record: the real particles a macroparticle stands for. openPMD has it a plain
    // number (unitSI 1, no dimension); ours, w in n_c (c/omega0)^2, counts them per unit length
    // of z (2D): written as the count in a box 1 m deep, w n_c (c/omega0)^2 x 1 m.
    std::vector<double> count(s.w.size());
    const double per_metre = u.density_m3 * u.length_m * u.length_m;
    for (std::size_t p = 0; p < count.size(); ++p) count[p] = s.w[p] * per_metre;
    Handle d = w.dataset(sp.get(), "weighting", dims, count.data());
    record_attrs(w, d.get(), {0, 0, 0, 0, 0, 0, 0}, 0.0);
    w.attr_u32(d.get(), "macroWeighted", 1);
    w.attr_f64(d.get(), "weightingPower", 1.0);
    w.attr_f64(d.get(), "unitSI", 1.0);
    w.attr_string(d.get(), "comment", "real particles per macroparticle in a box 1 m deep along z");
    w.close(d, "weighting");
  }
  if (with_ids) {
    // The stable ids: each particle's index in its species' load, never reused (an absorbed
    // particle's id goes with it), the same on any number of processes (the slabs gather the
    // particles in id order). Without them (a state that lost them: pic/cpu/simulation.hpp,
    // set_time) there is no id record rather than a made-up one; openPMD makes it optional.
    Handle d = w.dataset(sp.get(), "id", dims, ids.data());
    record_attrs(w, d.get(), {0, 0, 0, 0, 0, 0, 0}, 0.0);
    w.attr_u32(d.get(), "macroWeighted", 0);
    w.attr_f64(d.get(), "weightingPower", 0.0);
    w.attr_f64(d.get(), "unitSI", 1.0);
    w.attr_string(d.get(), "comment", "the particle's index in its species' load: unique within the species");
    w.close(d, "id");
  }
  // charge and mass per real particle: constant scalar records.
  auto constant_record = [&](const char* rname, double value, const Dim& dim, double unit) {
    Handle g = rec(rname, dim, 0, 1);
    constant(g.get(), value, unit);
    w.close(g, rname);
  };
  constant_record("charge", s.charge, {0, 0, 1, 1, 0, 0, 0}, kElementaryCharge);
  constant_record("mass", s.mass, {0, 1, 0, 0, 0, 0, 0}, kElectronMass);
  write_patch(w, sp.get(), s, sim.settings().geom, u);
  w.close(sp, s.name);
}

}  // namespace

std::string write_openpmd(const std::string& dir, const PicSimulation& sim, double wavelength_m,
                          const OpenPmdOrigin& origin) {
  return write_openpmd(dir, sim, wavelength_m, OpenPmdSelection::everything(), origin);
}

std::string write_openpmd(const std::string& dir, const PicSimulation& sim, double wavelength_m,
                          const OpenPmdSelection& sel, const OpenPmdOrigin& origin) {
  namespace fs = std::filesystem;
  if (!origin.date.empty() && !is_openpmd_date(origin.date))
    throw_input_error("openPMD date '" + origin.date + "': not YYYY-MM-DD HH:mm:ss +hhmm");
  char name[64];
  std::snprintf(name, sizeof name, "pic_%08lld.h5", static_cast<long long>(sim.step_count()));
  const fs::path path = fs::path(dir) / name;
  const SiUnits u = si_units(wavelength_m);
  replace_file_atomic(path, [&](const fs::path& tmp) {
    const Writer w(path.string());
    Handle file = w.create_file(tmp.string());
    write_root(w, file.get(), origin);
    Handle data = w.group(file.get(), "data");
    Handle it = w.group(data.get(), std::to_string(sim.step_count()));
    w.attr_f64(it.get(), "time", sim.time());
    w.attr_f64(it.get(), "dt", sim.settings().dt);
    w.attr_f64(it.get(), "timeUnitSI", u.time_s);
    w.attr_f64(it.get(), "wavelengthSI", wavelength_m);  // this code's own: the normalisation
    if (sel.any_field()) write_meshes(w, it.get(), sim, u, sel);
    if (sel.particles) {
      Handle parts = w.group(it.get(), "particles");
      const bool with_ids = sel.ids && sim.has_particle_ids();
      const std::vector<std::uint64_t> none;
      for (std::size_t k = 0; k < sim.species().size(); ++k) {
        if (!sel.has_species(sim.species()[k].name)) continue;
        if (!subsamples(sel)) {  // (the state's own arrays: no copy of a large run's particles)
          write_species(w, parts.get(), sim, sim.species()[k], with_ids ? sim.particle_ids()[k] : none, with_ids, u);
          continue;
        }
        std::vector<std::uint64_t> ids;
        const Species s = selected_particles(sim, k, sel, ids);
        write_species(w, parts.get(), sim, s, ids, with_ids, u);
      }
      w.close(parts, "particles");
    }
    w.close(it, "the iteration");
    w.close(data, "data");
    // Every object of the file is closed: this close releases it (and writes what is left).
    w.close(file, "the file");
  });
  return path.string();
}
#endif

}  // namespace nbody::pic
