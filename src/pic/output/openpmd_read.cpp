#include "pic/output/openpmd_read.hpp"

#include <cmath>
#include <vector>

#include "nbody/error.hpp"

#if NBODY_HAVE_HDF5
#include "pic/output/hdf5_write.hpp"
#include "pic/physics/units.hpp"
#endif

namespace nbody::pic {

#if !NBODY_HAVE_HDF5
void read_openpmd(const std::string& path, PicSimulation&) {
  throw_input_error("pic: '" + path + "': reading openPMD dumps needs HDF5: this build has none");
}
OpenPmdContents read_openpmd_contents(const std::string& path) {
  throw_input_error("pic: '" + path + "': reading openPMD dumps needs HDF5: this build has none");
}
#else
namespace {

using h5::Handle;

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const { throw_input_error("pic: '" + path_ + "': " + what); }

  [[nodiscard]] Handle open_file() const {
    const hid_t f = H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) fail("not a readable HDF5 file");
    return Handle(f, H5Fclose);
  }
  [[nodiscard]] bool exists(hid_t parent, const std::string& name) const {
    return H5Lexists(parent, name.c_str(), H5P_DEFAULT) > 0;
  }
  [[nodiscard]] Handle group(hid_t parent, const std::string& name) const {
    if (!exists(parent, name)) fail("no group " + name);
    const hid_t g = H5Gopen2(parent, name.c_str(), H5P_DEFAULT);
    if (g < 0) fail("cannot open group " + name);
    return Handle(g, H5Gclose);
  }
  // The names of a group's members, in name order.
  [[nodiscard]] std::vector<std::string> members(hid_t g, const std::string& what) const {
    H5G_info_t info;
    if (H5Gget_info(g, &info) < 0) fail("cannot list " + what);
    std::vector<std::string> names;
    for (hsize_t k = 0; k < info.nlinks; ++k) {
      const ssize_t n = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, k, nullptr, 0, H5P_DEFAULT);
      if (n <= 0) fail("cannot list " + what);
      std::string name(std::size_t(n) + 1, '\0');
      (void)H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, k, name.data(), name.size(), H5P_DEFAULT);
      name.resize(std::size_t(n));
      names.push_back(name);
    }
    return names;
  }
  [[nodiscard]] double attr_f64(hid_t obj, const std::string& name) const {
    if (H5Aexists(obj, name.c_str()) <= 0) fail("no attribute " + name);
    Handle a(H5Aopen(obj, name.c_str(), H5P_DEFAULT), H5Aclose);
    double v = 0;
    if (a.get() < 0 || H5Aread(a.get(), H5T_NATIVE_DOUBLE, &v) < 0) fail("cannot read attribute " + name);
    return v;
  }
  // A dataset of doubles, whole, with its shape.
  [[nodiscard]] std::vector<double> doubles(hid_t parent, const std::string& name, std::vector<hsize_t>& dims) const {
    if (!exists(parent, name)) fail("no dataset " + name);
    Handle d(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose);
    if (d.get() < 0) fail("cannot open dataset " + name);
    Handle space(H5Dget_space(d.get()), H5Sclose);
    const int rank = space.get() < 0 ? -1 : H5Sget_simple_extent_ndims(space.get());
    if (rank < 0) fail("cannot read the shape of " + name);
    dims.assign(std::size_t(rank), 0);
    if (rank > 0) (void)H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    std::size_t n = 1;
    for (hsize_t k : dims) n *= std::size_t(k);
    std::vector<double> v(n);
    if (n > 0 && H5Dread(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
      fail("cannot read dataset " + name);
    return v;
  }

 private:
  std::string path_;
};

void read_meshes(const Reader& r, hid_t it, PicSimulation& sim) {
  Handle meshes = r.group(it, "meshes");
  const GridGeometry& g = sim.settings().geom;
  const hsize_t nxe = hsize_t(g.nx) + 1, nye = hsize_t(g.ny) + 1;
  for (const char* rec : {"E", "B"}) {
    Handle h = r.group(meshes.get(), rec);
    const char* comp[3] = {"x", "y", "z"};
    for (int k = 0; k < 3; ++k) {
      std::vector<hsize_t> dims;
      const std::string name = std::string(rec) + "/" + comp[k];
      const std::vector<double> v = r.doubles(h.get(), comp[k], dims);
      if (dims != std::vector<hsize_t>{nxe, nye}) {
        std::string shape;
        for (hsize_t n : dims) shape += (shape.empty() ? "" : " x ") + std::to_string(n);
        r.fail("meshes/" + name + " has " + shape + " nodes, the deck's grid (deck.toml) " + std::to_string(nxe) +
               " x " + std::to_string(nye));
      }
      const int c = (rec[0] == 'E' ? kEx : kBx) + k;
      for (hsize_t i = 0; i < nxe; ++i)  // stored A[i][j], y fastest (openpmd.cpp)
        for (hsize_t j = 0; j < nye; ++j) sim.fields().at(c, int(i), int(j)) = v[std::size_t(i * nye + j)];
    }
  }
}

// A weight back from the real particles it stands for: the w whose product with the factor is
// the stored count (w itself, unless another double within an ulp of it has the same product).
double weight_of(double count, double per_metre) {
  double w = count / per_metre;
  for (double next : {std::nextafter(w, 0.0), std::nextafter(w, HUGE_VAL)})
    if (!(w * per_metre == count) && next * per_metre == count) w = next;
  return w;
}

void read_species(const Reader& r, hid_t parts, Species& s, double per_metre) {
  if (!r.exists(parts, s.name)) r.fail("no particles of species '" + s.name + "' (the deck's) in the dump");
  Handle sp = r.group(parts, s.name);
  std::vector<hsize_t> dims;
  Handle pos = r.group(sp.get(), "position"), mom = r.group(sp.get(), "momentum");
  s.x = r.doubles(pos.get(), "x", dims);
  const std::size_t n = s.x.size();
  auto same = [&](std::vector<double> v, const std::string& what) {
    if (v.size() != n) r.fail(s.name + "/" + what + " has " + std::to_string(v.size()) + " values, position/x " +
                              std::to_string(n));
    return v;
  };
  s.y = same(r.doubles(pos.get(), "y", dims), "position/y");
  s.ux = same(r.doubles(mom.get(), "x", dims), "momentum/x");
  s.uy = same(r.doubles(mom.get(), "y", dims), "momentum/y");
  s.uz = same(r.doubles(mom.get(), "z", dims), "momentum/z");
  s.w = same(r.doubles(sp.get(), "weighting", dims), "weighting");
  for (double& w : s.w) w = weight_of(w, per_metre);
}

// HDF5's printing of its error stack switched off while it lives (a file that is not HDF5, a
// missing object: one error line of ours instead), then restored.
class QuietErrors {
 public:
  QuietErrors() {
    (void)H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    (void)H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietErrors() { (void)H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

}  // namespace

// The one iteration of a dump: its step and group.
static std::int64_t only_iteration(const Reader& r, hid_t data, std::string& name) {
  const std::vector<std::string> iterations = r.members(data, "/data");
  if (iterations.size() != 1) r.fail("holds " + std::to_string(iterations.size()) + " iterations under /data, not one");
  name = iterations[0];
  std::int64_t step = 0;
  try {
    std::size_t used = 0;
    step = std::stoll(name, &used);
    if (used != name.size() || step < 0) throw std::invalid_argument(name);
  } catch (const std::exception&) {
    r.fail("the iteration '" + name + "' is not a step number");
  }
  return step;
}

OpenPmdContents read_openpmd_contents(const std::string& path) {
  const QuietErrors quiet;
  const Reader r(path);
  Handle file = r.open_file();
  Handle data = r.group(file.get(), "data");
  std::string name;
  OpenPmdContents c;
  c.step = only_iteration(r, data.get(), name);
  Handle it = r.group(data.get(), name);
  if (r.exists(it.get(), "meshes")) {
    Handle meshes = r.group(it.get(), "meshes");
    for (int k = 0; k < kComponents; ++k) {
      const std::string n = kComponentNames[k];
      const std::string link = n == "rho" ? n : n.substr(0, 1) + "/" + n.substr(1);
      if (r.exists(meshes.get(), n == "rho" ? n : n.substr(0, 1)) && r.exists(meshes.get(), link)) c.fields.push_back(n);
    }
  }
  if (r.exists(it.get(), "particles")) {
    Handle parts = r.group(it.get(), "particles");
    for (const std::string& sp : r.members(parts.get(), "the species")) {
      Handle g = r.group(parts.get(), sp);
      Handle pos = r.group(g.get(), "position");
      std::vector<hsize_t> dims;
      OpenPmdContents::Particles& p = c.species[sp];
      p.x = r.doubles(pos.get(), "x", dims);
      p.has_ids = r.exists(g.get(), "id");
      if (p.has_ids) {
        Handle d(H5Dopen2(g.get(), "id", H5P_DEFAULT), H5Dclose);
        p.ids.resize(p.x.size());
        if (d.get() < 0 || (!p.ids.empty() && H5Dread(d.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                                      p.ids.data()) < 0))
          r.fail("cannot read " + sp + "/id");
      }
    }
  }
  return c;
}

void read_openpmd(const std::string& path, PicSimulation& sim) {
  const QuietErrors quiet;
  const Reader r(path);
  Handle file = r.open_file();
  Handle data = r.group(file.get(), "data");
  std::string name;
  const std::int64_t step = only_iteration(r, data.get(), name);
  Handle it = r.group(data.get(), name);
  const double time = r.attr_f64(it.get(), "time");
  const SiUnits u = si_units(r.attr_f64(it.get(), "wavelengthSI"));
  read_meshes(r, it.get(), sim);
  Handle parts = r.group(it.get(), "particles");
  for (Species& s : sim.species()) read_species(r, parts.get(), s, u.density_m3 * u.length_m * u.length_m);
  for (const std::string& sp : r.members(parts.get(), "the species")) {
    bool known = false;
    for (const Species& s : sim.species()) known = known || s.name == sp;
    if (!known) r.fail("species '" + sp + "' is not in the deck (deck.toml)");
  }
  sim.set_time(time, step);
}
#endif

}  // namespace nbody::pic
