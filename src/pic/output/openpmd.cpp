#include "pic/output/openpmd.hpp"

#include <cstdio>
#include <filesystem>

#include "nbody/error.hpp"

#if NBODY_HAVE_HDF5
#include <hdf5.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "io/atomic_file.hpp"
#include "nbody/version.hpp"
#include "pic/physics/units.hpp"
#endif

namespace nbody::pic {

#if !NBODY_HAVE_HDF5
bool openpmd_available() { return false; }
std::string write_openpmd(const std::string&, const PicSimulation&, double) {
  throw_input_error("pic: openPMD output needs HDF5: this build has none (configure with -DNBODY_ENABLE_HDF5=ON)");
}
#else
bool openpmd_available() { return true; }

namespace {

// An HDF5 identifier closed when it goes out of scope.
class Id {
 public:
  Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  Id(Id&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), close_(o.close_) {}
  Id& operator=(Id&&) = delete;
  ~Id() {
    if (id_ >= 0) (void)close_(id_);
  }
  [[nodiscard]] hid_t get() const { return id_; }
  herr_t close() { return id_ >= 0 ? close_(std::exchange(id_, H5I_INVALID_HID)) : 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

class OpenPmdWriter {
 public:
  explicit OpenPmdWriter(std::string target) : target_(std::move(target)) {
    static const bool once = [] {
      H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
      return true;
    }();
    (void)once;
  }
  [[noreturn]] void fail(const std::string& what) const {
    const int err = errno;
    std::string why = (err == ENOSPC || err == EFBIG || err == EDQUOT || err == EIO) ? std::string(": ") + std::strerror(err) : "";
    throw_runtime_error("cannot write '" + target_ + "': HDF5 failed to " + what + why);
  }
  hid_t ok(hid_t id, const std::string& what) const {
    if (id < 0) fail(what);
    return id;
  }
  void ok(herr_t s, const std::string& what) const {
    if (s < 0) fail(what);
  }
  Id group(hid_t parent, const std::string& name) const {
    return Id(ok(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "create group " + name), H5Gclose);
  }
  void attr_string(hid_t obj, const char* name, const std::string& v) const {
    Id type(ok(H5Tcopy(H5T_C_S1), "copy a string type"), H5Tclose);
    ok(H5Tset_size(type.get(), v.size()), "size a string type");
    Id space(ok(H5Screate(H5S_SCALAR), "create a dataspace"), H5Sclose);
    Id a(ok(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), std::string("create attribute ") + name), H5Aclose);
    ok(H5Awrite(a.get(), type.get(), v.data()), std::string("write attribute ") + name);
  }
  void attr_doubles(hid_t obj, const char* name, const std::vector<double>& v, bool scalar = false) const {
    const hsize_t n = v.size();
    Id space(ok(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), "create a dataspace"), H5Sclose);
    Id a(ok(H5Acreate2(obj, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), std::string("create attribute ") + name), H5Aclose);
    ok(H5Awrite(a.get(), H5T_NATIVE_DOUBLE, v.data()), std::string("write attribute ") + name);
  }
  void attr_double(hid_t obj, const char* name, double v) const { attr_doubles(obj, name, {v}, true); }
  void attr_u32(hid_t obj, const char* name, std::uint32_t v) const {
    Id space(ok(H5Screate(H5S_SCALAR), "create a dataspace"), H5Sclose);
    Id a(ok(H5Acreate2(obj, name, H5T_STD_U32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), std::string("create attribute ") + name), H5Aclose);
    ok(H5Awrite(a.get(), H5T_NATIVE_UINT32, &v), std::string("write attribute ") + name);
  }
  void attr_u64(hid_t obj, const char* name, std::uint64_t v) const {
    Id space(ok(H5Screate(H5S_SCALAR), "create a dataspace"), H5Sclose);
    Id a(ok(H5Acreate2(obj, name, H5T_STD_U64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), std::string("create attribute ") + name), H5Aclose);
    ok(H5Awrite(a.get(), H5T_NATIVE_UINT64, &v), std::string("write attribute ") + name);
  }
  void dataset(hid_t parent, const std::string& name, const std::vector<hsize_t>& dims, const double* data) const {
    Id space(ok(H5Screate_simple(int(dims.size()), dims.data(), nullptr), "create a dataspace"), H5Sclose);
    Id d(ok(H5Dcreate2(parent, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
            "create dataset " + name),
         H5Dclose);
    if (dims[0] > 0)
      ok(H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "write dataset " + name);
  }
  // A constant record component: no data, a value and a shape.
  void constant(hid_t parent, const std::string& name, double value, std::uint64_t n, double unit_si) const {
    Id g = group(parent, name);
    attr_double(g.get(), "value", value);
    attr_doubles(g.get(), "unitSI", {unit_si}, true);
    const hsize_t one = 1;
    Id space(ok(H5Screate_simple(1, &one, nullptr), "create a dataspace"), H5Sclose);
    Id a(ok(H5Acreate2(g.get(), "shape", H5T_STD_U64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), "create attribute shape"), H5Aclose);
    ok(H5Awrite(a.get(), H5T_NATIVE_UINT64, &n), "write attribute shape");
  }

 private:
  std::string target_;
};

using Dim = std::array<double, 7>;  // L M T I theta N J
void record_attrs(const OpenPmdWriter& w, hid_t rec, const Dim& dim) {
  w.attr_doubles(rec, "unitDimension", std::vector<double>(dim.begin(), dim.end()));
  w.attr_double(rec, "timeOffset", 0.0);
}

}  // namespace

std::string write_openpmd(const std::string& dir, const PicSimulation& sim, double wavelength_m) {
  namespace fs = std::filesystem;
  char name[64];
  std::snprintf(name, sizeof name, "pic_%08lld.h5", static_cast<long long>(sim.step_count()));
  const fs::path path = fs::path(dir) / name;
  const SiUnits u = si_units(wavelength_m);
  const std::string step = std::to_string(sim.step_count());
  replace_file_atomic(path, [&](const fs::path& tmp) {
    const OpenPmdWriter w(path.string());
    Id file(w.ok(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), "create the file"), H5Fclose);
    const hid_t f = file.get();
    w.attr_string(f, "openPMD", "1.1.0");
    w.attr_u32(f, "openPMDextension", 0);
    w.attr_string(f, "basePath", "/data/%T/");
    w.attr_string(f, "meshesPath", "meshes/");
    w.attr_string(f, "particlesPath", "particles/");
    w.attr_string(f, "iterationEncoding", "fileBased");
    w.attr_string(f, "iterationFormat", "pic_%08T.h5");
    w.attr_string(f, "software", "nbody pic");
    w.attr_string(f, "softwareVersion", kVersion);
    {
      Id data = w.group(f, "data");
      Id it = w.group(data.get(), step);
      w.attr_double(it.get(), "time", sim.time());
      w.attr_double(it.get(), "dt", sim.settings().dt);
      w.attr_double(it.get(), "timeUnitSI", u.time_s);
      w.attr_double(it.get(), "wavelengthSI", wavelength_m);  // this code's own: the normalisation
      const GridGeometry& g = sim.settings().geom;
      const int nxe = g.nx + 1, nye = g.ny + 1;  // the nodes 0..n (the last a copy on a periodic axis)
      {
        Id meshes = w.group(it.get(), "meshes");
        auto mesh_attrs = [&](hid_t rec) {
          w.attr_string(rec, "geometry", "cartesian");
          w.attr_string(rec, "dataOrder", "C");
          // axisLabels as a fixed-length string array.
          {
            const char labels[2][2] = {{'y', 0}, {'x', 0}};
            Id type(w.ok(H5Tcopy(H5T_C_S1), "copy a string type"), H5Tclose);
            w.ok(H5Tset_size(type.get(), 2), "size a string type");
            const hsize_t two = 2;
            Id space(w.ok(H5Screate_simple(1, &two, nullptr), "create a dataspace"), H5Sclose);
            Id a(w.ok(H5Acreate2(rec, "axisLabels", type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), "create axisLabels"), H5Aclose);
            w.ok(H5Awrite(a.get(), type.get(), labels), "write axisLabels");
          }
          w.attr_doubles(rec, "gridSpacing", {g.dy, g.dx});
          w.attr_doubles(rec, "gridGlobalOffset", {g.y0, g.x0});
          w.attr_double(rec, "gridUnitSI", u.length_m);
          w.attr_string(rec, "fieldSmoothing", "none");
        };
        std::vector<double> buf(std::size_t(nxe) * std::size_t(nye));
        auto component = [&](hid_t rec, const char* cname, int c, double stag_x, double stag_y, double unit_si) {
          for (int j = 0; j < nye; ++j)
            for (int i = 0; i < nxe; ++i) buf[std::size_t(j) * nxe + std::size_t(i)] = sim.fields().at(c, i, j);
          w.dataset(rec, cname, {hsize_t(nye), hsize_t(nxe)}, buf.data());
          Id d(w.ok(H5Dopen2(rec, cname, H5P_DEFAULT), "open a dataset"), H5Dclose);
          w.attr_doubles(d.get(), "position", {stag_y, stag_x});
          w.attr_double(d.get(), "unitSI", unit_si);
        };
        const double e_unit = u.efield_V_m, b_unit = u.bfield_T;
        const double q_e = 1.602176634e-19, c_light = 299792458.0;
        const double rho_unit = q_e * u.density_m3, j_unit = rho_unit * c_light;
        struct Vec {
          const char* name;
          int first;
          Dim dim;
          double unit;
          double stag[3][2];
        };
        const Vec vecs[3] = {{"E", kEx, {1, 1, -3, -1, 0, 0, 0}, e_unit, {{0.5, 0}, {0, 0.5}, {0, 0}}},
                             {"B", kBx, {0, 1, -2, -1, 0, 0, 0}, b_unit, {{0, 0.5}, {0.5, 0}, {0.5, 0.5}}},
                             {"J", kJx, {-2, 0, 0, 1, 0, 0, 0}, j_unit, {{0.5, 0}, {0, 0.5}, {0, 0}}}};
        for (const Vec& v : vecs) {
          Id rec = w.group(meshes.get(), v.name);
          mesh_attrs(rec.get());
          record_attrs(w, rec.get(), v.dim);
          const char* comp[3] = {"x", "y", "z"};
          for (int k = 0; k < 3; ++k) component(rec.get(), comp[k], v.first + k, v.stag[k][0], v.stag[k][1], v.unit);
        }
        // rho: a scalar record (the dataset itself), from the particles' present positions.
        for (int j = 0; j < nye; ++j)
          for (int i = 0; i < nxe; ++i) buf[std::size_t(j) * nxe + std::size_t(i)] = sim.fields().at(kRho, i, j);
        w.dataset(meshes.get(), "rho", {hsize_t(nye), hsize_t(nxe)}, buf.data());
        Id rho(w.ok(H5Dopen2(meshes.get(), "rho", H5P_DEFAULT), "open rho"), H5Dclose);
        mesh_attrs(rho.get());
        record_attrs(w, rho.get(), {-3, 0, 1, 1, 0, 0, 0});
        w.attr_doubles(rho.get(), "position", {0, 0});
        w.attr_double(rho.get(), "unitSI", rho_unit);
      }
      {
        Id parts = w.group(it.get(), "particles");
        const double m_e = 9.1093837015e-31, q_e = 1.602176634e-19, c_light = 299792458.0;
        for (const Species& s : sim.species()) {
          Id sp = w.group(parts.get(), s.name);
          const std::uint64_t n = s.size();
          auto rec = [&](const char* rname, const Dim& dim, std::uint32_t macro, double power) {
            Id r = w.group(sp.get(), rname);
            record_attrs(w, r.get(), dim);
            w.attr_u32(r.get(), "macroWeighted", macro);
            w.attr_double(r.get(), "weightingPower", power);
            return r;
          };
          auto data = [&](hid_t r, const char* cname, const std::vector<double>& v, double unit) {
            w.dataset(r, cname, {hsize_t(n)}, v.data());
            Id d(w.ok(H5Dopen2(r, cname, H5P_DEFAULT), "open a dataset"), H5Dclose);
            w.attr_double(d.get(), "unitSI", unit);
          };
          {
            Id r = rec("position", {1, 0, 0, 0, 0, 0, 0}, 0, 0);
            data(r.get(), "x", s.x, u.length_m);
            data(r.get(), "y", s.y, u.length_m);
          }
          {
            Id r = rec("positionOffset", {1, 0, 0, 0, 0, 0, 0}, 0, 0);
            w.constant(r.get(), "x", 0, n, u.length_m);
            w.constant(r.get(), "y", 0, n, u.length_m);
          }
          {
            // u = gamma v / c per real particle, times m c: the momentum per real particle.
            Id r = rec("momentum", {1, 1, -1, 0, 0, 0, 0}, 0, 1);
            const double p_unit = s.mass * m_e * c_light;
            data(r.get(), "x", s.ux, p_unit);
            data(r.get(), "y", s.uy, p_unit);
            data(r.get(), "z", s.uz, p_unit);
          }
          {
            // A scalar record: real particles per metre of z (2D), w n_c (c/omega0)^2 x 1 m.
            w.dataset(sp.get(), "weighting", {hsize_t(n)}, s.w.data());
            Id d(w.ok(H5Dopen2(sp.get(), "weighting", H5P_DEFAULT), "open weighting"), H5Dclose);
            record_attrs(w, d.get(), {0, 0, 0, 0, 0, 0, 0});
            w.attr_u32(d.get(), "macroWeighted", 1);
            w.attr_double(d.get(), "weightingPower", 1.0);
            w.attr_double(d.get(), "unitSI", u.density_m3 * u.length_m * u.length_m);
          }
          // charge and mass per real particle: constant scalar records.
          auto constant_record = [&](const char* rname, double value, const Dim& dim, double unit) {
            Id g = w.group(sp.get(), rname);
            w.attr_double(g.get(), "value", value);
            w.attr_double(g.get(), "unitSI", unit);
            const hsize_t one = 1;
            Id space(w.ok(H5Screate_simple(1, &one, nullptr), "create a dataspace"), H5Sclose);
            Id a(w.ok(H5Acreate2(g.get(), "shape", H5T_STD_U64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), "create shape"),
                 H5Aclose);
            w.ok(H5Awrite(a.get(), H5T_NATIVE_UINT64, &n), "write shape");
            record_attrs(w, g.get(), dim);
            w.attr_u32(g.get(), "macroWeighted", 0);
            w.attr_double(g.get(), "weightingPower", 1.0);
          };
          constant_record("charge", s.charge, {0, 0, 1, 1, 0, 0, 0}, q_e);
          constant_record("mass", s.mass, {0, 1, 0, 0, 0, 0, 0}, m_e);
        }
      }
    }
    if (file.close() < 0) w.fail("close the file");
  });
  return path.string();
}
#endif

}  // namespace nbody::pic
