// The only translation unit that includes the HDF5 headers.
#include "io/gadget_hdf5.hpp"

#include <hdf5.h>
#include <unistd.h>
#if NBODY_HAVE_PARALLEL_HDF5
#include <mpi.h>
#endif

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "comm/communicator.hpp"
#include "core/units.hpp"
#include "io/atomic_file.hpp"
#include "io/components.hpp"
#include "nbody/error.hpp"
#include "nbody/version.hpp"
#include "particles/memory.hpp"

namespace nbody {
namespace {

constexpr int kTypes = 6;       // GADGET particle types 0..5
constexpr int kDarkMatter = 1;  // our bodies are collisionless: PartType1

// The GADGET particle type of each component (gadget_hdf5.hpp): by the name's last part.
std::vector<int> component_types(const std::vector<std::string>& names) {
  std::vector<int> types;
  for (const auto& name : names) {
    const auto dot = name.rfind('.');
    const std::string kind = dot == std::string::npos ? name : name.substr(dot + 1);
    int t = kDarkMatter;
    if (kind == "disk") t = 2;
    if (kind == "bulge") t = 3;
    if (kind == "star") t = 4;
    if (kind == "planet" || kind == "dwarf-planet") t = 5;
    types.push_back(t);
  }
  return types;
}

// The bodies of each particle type, in the set's order: bodies[t] holds their indices in p.
struct TypeSplit {
  std::array<std::vector<std::size_t>, kTypes> bodies;
  std::vector<int> type_of_component;
  [[nodiscard]] int types_used() const {
    int used = 0;
    for (const auto& b : bodies) used += b.empty() ? 0 : 1;
    return used;
  }
};

TypeSplit split_by_type(const Particles<double>& p) {
  TypeSplit s;
  s.type_of_component = component_types(p.component_names);
  for (std::size_t i = 0; i < p.size(); ++i) {
    const std::size_t c = p.component_of(i);
    const int t = c < s.type_of_component.size() ? s.type_of_component[c] : kDarkMatter;
    s.bodies[std::size_t(t)].push_back(i);
  }
  return s;
}

// Set while the handles of a failed collective write unwind: closing a file opened with MPI-IO
// is collective, and ranks that failed at different calls would each wait in another collective
// of the close. Their identifiers are dropped instead (the run ends: the program's handler ends
// every rank), and the flag is cleared once the write's handles are gone.
bool abandon_handles = false;

// Owns an HDF5 identifier and closes it with the matching function. A writer closes each one
// with close() and checks the status; the destructor closes what an error left open.
class Handle {
 public:
  Handle() = default;
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& o) noexcept {
    std::swap(id_, o.id_);
    std::swap(close_, o.close_);
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (!abandon_handles) (void)close();
  }
  [[nodiscard]] hid_t get() const noexcept { return id_; }
  [[nodiscard]] bool valid() const noexcept { return id_ >= 0; }
  // Closes now; the identifier is given up whatever the outcome (HDF5 must not be asked to close
  // it twice). Negative when the close failed (for a file: its last writes did not reach disk).
  herr_t close() noexcept {
    if (id_ < 0 || close_ == nullptr) return 0;
    const hid_t id = std::exchange(id_, H5I_INVALID_HID);
    return close_(id);
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  herr_t (*close_)(hid_t) = nullptr;
};

// HDF5 prints its error stack on stderr by default; we report one line of our own instead.
// Also keeps the library from closing, at exit, identifiers whose close failed: after a failed
// H5Fclose (a full disk) HDF5 1.10 keeps the identifier of a file it has already freed, and
// closing it again in its atexit handler crashes the process. Every identifier is closed here
// explicitly, so nothing is left for the handler to do.
void silence_hdf5() {
  static const bool once = [] {
    (void)H5dont_atexit();  // effective before the library's first use, which this is
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)once;
}

// ---- writing -------------------------------------------------------------------------

// The rows of the particle datasets this process writes: [first, first + count) of total. One
// process writes them all (first 0, count total); in a collective write each rank writes its
// block through `dxpl` (collective MPI-IO transfers) and every rank makes the same metadata.
struct Rows {
  hsize_t total = 0, first = 0, count = 0;
  bool collective = false;
  hid_t dxpl = H5P_DEFAULT;
};

// Who writes: one process (ranks 1), or rank `rank` of `ranks` collectively through `dxpl`.
struct Writers {
  int ranks = 1, rank = 0;
  bool collective = false;
  hid_t dxpl = H5P_DEFAULT;
  // This process's rows of a dataset of `total` rows (its block of them, comm::block_of).
  [[nodiscard]] Rows rows(std::size_t total) const {
    const comm::Block b = comm::block_of(static_cast<std::int64_t>(total), ranks, rank);
    return {total, static_cast<hsize_t>(b.first), static_cast<hsize_t>(b.count), collective, dxpl};
  }
};

class Writer {
 public:
  explicit Writer(std::string target, bool collective = false) : target_(std::move(target)), collective_(collective) {}

  [[noreturn]] void fail(const std::string& what) const {
    if (collective_) abandon_handles = true;
    // The cause of a failed write (a full disk, a file size limit) is in errno.
    const int err = errno;
    std::string why;
    if (err == ENOSPC || err == EFBIG || err == EDQUOT || err == EIO || err == EROFS) {
      why = std::string(": ") + std::strerror(err);
    }
    throw_runtime_error("cannot write '" + target_ + "': HDF5 failed to " + what + why);
  }
  void check(herr_t status, const std::string& what) const {
    if (status < 0) fail("write " + what);
    errno = 0;
  }
  Handle check(hid_t id, herr_t (*close)(hid_t), const std::string& what) const {
    if (id < 0) fail("create " + what);
    errno = 0;
    return Handle(id, close);
  }
  // Closes `h` now: a failed close is a failed write (HDF5 writes metadata when closing).
  void close(Handle& h, const std::string& what) const {
    if (h.close() < 0) fail("close " + what);
    errno = 0;
  }

  // An object creation property list that records no modification times, so the file's bytes
  // depend only on its contents.
  Handle untimed(hid_t cls) const {
    Handle plist = check(H5Pcreate(cls), H5Pclose, "a property list");
    check(H5Pset_obj_track_times(plist.get(), false), "a property list");
    return plist;
  }

  Handle group(hid_t parent, const char* name) const {
    Handle gcpl = untimed(H5P_GROUP_CREATE);
    Handle g = check(H5Gcreate2(parent, name, H5P_DEFAULT, gcpl.get(), H5P_DEFAULT), H5Gclose, name);
    close(gcpl, "a property list");
    return g;
  }

  void attribute(hid_t obj, const char* name, hid_t mem_type, hid_t file_type, const void* data, hsize_t count) const {
    Handle space = count == 0 ? check(H5Screate(H5S_SCALAR), H5Sclose, name)
                              : check(H5Screate_simple(1, &count, nullptr), H5Sclose, name);
    Handle attr = check(H5Acreate2(obj, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose, name);
    check(H5Awrite(attr.get(), mem_type, data), name);
    close(attr, name);
    close(space, name);
  }
  void attribute(hid_t obj, const char* name, double v) const {
    attribute(obj, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, &v, 0);
  }
  void attribute(hid_t obj, const char* name, std::int32_t v) const {
    attribute(obj, name, H5T_NATIVE_INT32, H5T_STD_I32LE, &v, 0);
  }
  void attribute(hid_t obj, const char* name, std::int64_t v) const {
    attribute(obj, name, H5T_NATIVE_INT64, H5T_STD_I64LE, &v, 0);
  }
  // Fixed-length, NUL-terminated (what GADGET writes; h5py reads it as bytes, yt expects that).
  void attribute(hid_t obj, const char* name, const std::string& text) const {
    Handle type = check(H5Tcopy(H5T_C_S1), H5Tclose, name);
    check(H5Tset_size(type.get(), text.size() + 1), name);
    check(H5Tset_strpad(type.get(), H5T_STR_NULLTERM), name);
    attribute(obj, name, type.get(), type.get(), text.c_str(), 0);
    close(type, name);
  }

  // `data` holds this process's rows (r.count x cols values).
  template <class T>
  void dataset(hid_t parent, const char* name, const std::vector<T>& data, const Rows& r, hsize_t cols,
               hid_t mem_type, hid_t file_type) const {
    const int rank = cols == 1 ? 1 : 2;
    const hsize_t dims[2] = {r.total, cols};
    Handle space = check(H5Screate_simple(rank, dims, nullptr), H5Sclose, name);
    Handle dcpl = untimed(H5P_DATASET_CREATE);
    // The data's space is allocated when the dataset is made (as parallel HDF5 always does) and
    // never filled (every value is written): the file's layout, and so its bytes, are the same
    // whether one process writes it or several.
    check(H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY), "a property list");
    check(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), "a property list");
    Handle set =
        check(H5Dcreate2(parent, name, file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), H5Dclose, name);
    if (r.total > 0 && !r.collective) {
      check(H5Dwrite(set.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), name);
    } else if (r.total > 0) {
      // Every rank takes part in the transfer; one without rows selects nothing.
      const hsize_t start[2] = {r.first, 0}, count[2] = {r.count, cols};
      Handle memory = check(H5Screate_simple(rank, count, nullptr), H5Sclose, name);
      if (r.count > 0) {
        check(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr), name);
      } else {
        check(H5Sselect_none(space.get()), name);
        check(H5Sselect_none(memory.get()), name);
      }
      const T none{};
      check(H5Dwrite(set.get(), mem_type, memory.get(), space.get(), r.dxpl, r.count > 0 ? data.data() : &none), name);
      close(memory, name);
    }
    close(set, name);
    close(dcpl, "a property list");
    close(space, name);
  }

 private:
  std::string target_;
  bool collective_ = false;
};

// The rows [r.first, r.first + r.count) of a type's bodies: bodies[k] is row k's index in p
// (which holds every body). With components, the tags (Component) and, where the bodies are
// split over several types, each body's index in the set (BodyIndex), by which a reader puts
// them back in order.
template <class T>
void write_particle_type(const Writer& w, hid_t group, const Particles<double>& p,
                         const std::vector<std::size_t>& bodies, const Rows& r, bool body_index) {
  const hid_t mem = sizeof(T) == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  const hid_t file = sizeof(T) == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
  const auto first = static_cast<std::size_t>(r.first);
  const auto n = static_cast<std::size_t>(r.count);
  const auto at = [&](std::size_t k) { return bodies[first + k]; };
  std::vector<T> rows(3 * n);
  for (std::size_t k = 0; k < n; ++k) {
    rows[3 * k] = static_cast<T>(p.x[at(k)]);
    rows[3 * k + 1] = static_cast<T>(p.y[at(k)]);
    rows[3 * k + 2] = static_cast<T>(p.z[at(k)]);
  }
  w.dataset(group, "Coordinates", rows, r, 3, mem, file);
  for (std::size_t k = 0; k < n; ++k) {
    rows[3 * k] = static_cast<T>(p.vx[at(k)]);
    rows[3 * k + 1] = static_cast<T>(p.vy[at(k)]);
    rows[3 * k + 2] = static_cast<T>(p.vz[at(k)]);
  }
  w.dataset(group, "Velocities", rows, r, 3, mem, file);
  rows.resize(n);
  for (std::size_t k = 0; k < n; ++k) rows[k] = static_cast<T>(p.m[at(k)]);
  w.dataset(group, "Masses", rows, r, 1, mem, file);
  std::vector<std::uint64_t> ids(n);
  for (std::size_t k = 0; k < n; ++k) ids[k] = p.id[at(k)];
  w.dataset(group, "ParticleIDs", ids, r, 1, H5T_NATIVE_UINT64, H5T_STD_U64LE);
  if (!p.component_names.empty()) {
    std::vector<std::uint8_t> tags(n);
    for (std::size_t k = 0; k < n; ++k) tags[k] = p.component_of(at(k));
    w.dataset(group, "Component", tags, r, 1, H5T_NATIVE_UINT8, H5T_STD_U8LE);
  }
  if (body_index) {
    for (std::size_t k = 0; k < n; ++k) ids[k] = at(k);
    w.dataset(group, "BodyIndex", ids, r, 1, H5T_NATIVE_UINT64, H5T_STD_U64LE);
  }
}

// GADGET-4's optional output fields (its OUTPUT_ACCELERATION and OUTPUT_POTENTIAL): the
// accelerations and potentials the run's solver computed at the snapshot's time, in the run's
// precision and units (as the state's datasets).
template <class T>
void write_force_fields(const Writer& w, hid_t group, const SnapshotMeta& meta, std::size_t bodies_in_set,
                        const std::vector<std::size_t>& bodies, const Rows& r) {
  const hid_t mem = sizeof(T) == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  const hid_t file = sizeof(T) == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
  const auto first = static_cast<std::size_t>(r.first);
  const auto n = static_cast<std::size_t>(r.count);
  const auto at = [&](std::size_t k) { return bodies[first + k]; };
  if (const Accelerations<double>* a = meta.acceleration) {
    if (a->size() < bodies_in_set) throw_runtime_error("snapshot: fewer accelerations than bodies");
    std::vector<T> rows(3 * n);
    for (std::size_t k = 0; k < n; ++k) {
      rows[3 * k] = static_cast<T>(a->ax[at(k)]);
      rows[3 * k + 1] = static_cast<T>(a->ay[at(k)]);
      rows[3 * k + 2] = static_cast<T>(a->az[at(k)]);
    }
    w.dataset(group, "Acceleration", rows, r, 3, mem, file);
  }
  if (const std::vector<double>* phi = meta.potential) {
    if (phi->size() < bodies_in_set) throw_runtime_error("snapshot: fewer potentials than bodies");
    std::vector<T> rows(n);
    for (std::size_t k = 0; k < n; ++k) rows[k] = static_cast<T>((*phi)[at(k)]);
    w.dataset(group, "Potential", rows, r, 1, mem, file);
  }
}

// Fixed-length, NUL-terminated strings, one per name (h5py reads them as an array of bytes).
void string_array_attribute(const Writer& w, hid_t obj, const char* name, const std::vector<std::string>& values) {
  std::size_t width = 1;
  for (const auto& v : values) width = std::max(width, v.size() + 1);
  std::string packed(width * values.size(), '\0');
  for (std::size_t k = 0; k < values.size(); ++k) {
    std::memcpy(packed.data() + k * width, values[k].data(), values[k].size());
  }
  Handle type = w.check(H5Tcopy(H5T_C_S1), H5Tclose, name);
  w.check(H5Tset_size(type.get(), width), name);
  w.check(H5Tset_strpad(type.get(), H5T_STR_NULLTERM), name);
  w.attribute(obj, name, type.get(), type.get(), packed.data(), values.size());
  w.close(type, name);
}

// The whole file at `tmp`. `fapl`: the file access list (H5P_DEFAULT for one process, MPI-IO for
// a collective write, where every rank runs this with the same metadata and its own rows).
void write_file(const std::string& tmp, const std::string& target, const Particles<double>& p,
                const SnapshotMeta& meta, const Writers& writers, hid_t fapl = H5P_DEFAULT) {
  silence_hdf5();
  const Writer w(target, writers.collective);
  const TypeSplit split = split_by_type(p);
  Handle fcpl = w.untimed(H5P_FILE_CREATE);
  Handle file = w.check(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl), H5Fclose, "the file");
  w.close(fcpl, "a property list");
  {
    Handle header = w.group(file.get(), "Header");
    std::array<std::uint64_t, kTypes> count{};
    std::array<std::uint32_t, kTypes> high{};
    for (std::size_t t = 0; t < kTypes; ++t) {
      count[t] = split.bodies[t].size();
      high[t] = static_cast<std::uint32_t>(count[t] >> 32);
    }
    const std::array<double, kTypes> mass_table{};
    w.attribute(header.get(), "NumPart_ThisFile", H5T_NATIVE_UINT64, H5T_STD_U64LE, count.data(), kTypes);
    w.attribute(header.get(), "NumPart_Total", H5T_NATIVE_UINT64, H5T_STD_U64LE, count.data(), kTypes);
    w.attribute(header.get(), "NumPart_Total_HighWord", H5T_NATIVE_UINT32, H5T_STD_U32LE, high.data(), kTypes);
    w.attribute(header.get(), "MassTable", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, mass_table.data(), kTypes);
    w.attribute(header.get(), "Time", meta.time);
    w.attribute(header.get(), "Redshift", 0.0);
    w.attribute(header.get(), "BoxSize", 0.0);
    w.attribute(header.get(), "NumFilesPerSnapshot", std::int32_t{1});
    w.attribute(header.get(), "Flag_DoublePrecision", std::int32_t{meta.precision == Precision::fp64 ? 1 : 0});
    w.attribute(header.get(), "Code", std::string("nbody"));
    w.attribute(header.get(), "Code_Version", std::string(kVersion) + " (" + kGitRevision + ")");
    if (!p.component_names.empty()) {
      string_array_attribute(w, header.get(), "ComponentNames", p.component_names);
      std::vector<std::int32_t> types(split.type_of_component.begin(), split.type_of_component.end());
      w.attribute(header.get(), "ComponentTypes", H5T_NATIVE_INT32, H5T_STD_I32LE, types.data(), types.size());
    }
    w.close(header, "/Header");
  }
  // PartType1 even when there are no bodies (as before components); the other types when used.
  const bool body_index = split.types_used() > 1;
  for (std::size_t t = 0; t < kTypes; ++t) {
    const std::vector<std::size_t>& bodies = split.bodies[t];
    if (bodies.empty() && int(t) != kDarkMatter) continue;
    const std::string name = "PartType" + std::to_string(t);
    Handle part = w.group(file.get(), name.c_str());
    const Rows rows = writers.rows(bodies.size());
    if (meta.precision == Precision::fp32) {
      write_particle_type<float>(w, part.get(), p, bodies, rows, body_index);
      write_force_fields<float>(w, part.get(), meta, p.size(), bodies, rows);
    } else {
      write_particle_type<double>(w, part.get(), p, bodies, rows, body_index);
      write_force_fields<double>(w, part.get(), meta, p.size(), bodies, rows);
    }
    w.close(part, "/" + name);
  }
  {
    Handle units = w.group(file.get(), "Units");
    // The run's unit system in cgs (all 1 for henon units, or with neither units nor a configuration).
    const UnitSystemCgs u = snapshot_units(meta);
    w.attribute(units.get(), "UnitLength_in_cm", u.UnitLength_in_cm);
    w.attribute(units.get(), "UnitMass_in_g", u.UnitMass_in_g);
    w.attribute(units.get(), "UnitVelocity_in_cm_per_s", u.UnitVelocity_in_cm_per_s);
    w.attribute(units.get(), "UnitTime_in_s", u.UnitTime_in_s);
    w.close(units, "/Units");
  }
  if (meta.config != nullptr) {
    Handle params = w.group(file.get(), "Parameters");
    for (const auto& spec : run_params()) {
      const std::string key(spec.key);
      std::visit([&](auto member) { w.attribute(params.get(), key.c_str(), (*meta.config).*member); }, spec.field);
    }
    // Where GADGET-4 itself records its unit system, and readers of its snapshots look for it.
    const UnitSystemCgs u = snapshot_units(meta);
    w.attribute(params.get(), "UnitLength_in_cm", u.UnitLength_in_cm);
    w.attribute(params.get(), "UnitMass_in_g", u.UnitMass_in_g);
    w.attribute(params.get(), "UnitVelocity_in_cm_per_s", u.UnitVelocity_in_cm_per_s);
    w.close(params, "/Parameters");
  }
  w.check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), "the file");
  // Every object of the file is closed: this close releases it (and writes what is left).
  w.close(file, "the file");
}

// ---- reading -------------------------------------------------------------------------

std::string number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

class Reader {
 public:
  explicit Reader(std::filesystem::path path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const { throw_file_error(path_, what); }

  Handle open_group(hid_t parent, const std::string& name) const {
    if (H5Lexists(parent, name.c_str(), H5P_DEFAULT) <= 0) fail("no group /" + name + " (not a GADGET snapshot)");
    const hid_t id = H5Gopen2(parent, name.c_str(), H5P_DEFAULT);
    if (id < 0) fail("cannot open group /" + name + " (corrupt file?)");
    return Handle(id, H5Gclose);
  }

  // A numeric attribute of exactly `count` values (1 for a scalar), converted to `mem_type`.
  void attribute(hid_t obj, const std::string& where, const char* name, hid_t mem_type, void* out,
                 hssize_t count) const {
    if (H5Aexists(obj, name) <= 0) fail("missing attribute " + where + "/" + name);
    const Handle attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
    if (!attr.valid()) fail("cannot open attribute " + where + "/" + name + " (corrupt file?)");
    const Handle space(H5Aget_space(attr.get()), H5Sclose);
    if (H5Sget_simple_extent_npoints(space.get()) != count) {
      fail("attribute " + where + "/" + name + " has " + std::to_string(H5Sget_simple_extent_npoints(space.get())) +
           " values, expected " + std::to_string(count));
    }
    if (H5Aread(attr.get(), mem_type, out) < 0) fail("cannot read attribute " + where + "/" + name);
  }

  // Opens dataset `name` of `group` and checks, before anything is read, that it is `rows` x
  // `cols` as the header says and that the file really holds that many values: a header may
  // declare more bodies than were ever written (chunked datasets allocate nothing until written)
  // or than memory can address. Its stored element size in *stored_bytes when asked.
  Handle probe(hid_t group, const std::string& where, const char* name, hsize_t rows, hsize_t cols,
               std::size_t* stored_bytes = nullptr) const {
    const std::string full = where + "/" + name;
    if (H5Lexists(group, name, H5P_DEFAULT) <= 0) fail("missing dataset " + full);
    Handle set(H5Dopen2(group, name, H5P_DEFAULT), H5Dclose);
    if (!set.valid()) fail("cannot open dataset " + full + " (corrupt file?)");
    const Handle space(H5Dget_space(set.get()), H5Sclose);
    const int rank = H5Sget_simple_extent_ndims(space.get());
    hsize_t dims[2] = {0, 0};
    if (rank < 1 || rank > 2 || H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 0) {
      fail("dataset " + full + " has an unexpected shape");
    }
    const hsize_t got_cols = rank == 2 ? dims[1] : 1;
    if (dims[0] != rows || got_cols != cols) {
      fail("dataset " + full + " is " + std::to_string(dims[0]) + " x " + std::to_string(got_cols) + ", expected " +
           std::to_string(rows) + " x " + std::to_string(cols) + " (from /Header/NumPart_ThisFile)");
    }
    const Handle type(H5Dget_type(set.get()), H5Tclose);
    const std::size_t element = type.valid() ? H5Tget_size(type.get()) : 0;
    if (element == 0) fail("dataset " + full + " has an unreadable type (corrupt file?)");
    if (stored_bytes != nullptr) *stored_bytes = element;
    // Values converted to at most 8 bytes each must fit in one array in memory.
    const hsize_t max_values = std::numeric_limits<std::ptrdiff_t>::max() / 8;
    if (rows > max_values / cols) {
      fail("dataset " + full + " declares " + std::to_string(rows) + " rows, more than can be held in memory");
    }
    if (rows == 0) return set;
    const hsize_t declared = rows * cols * element;
    const hsize_t stored = H5Dget_storage_size(set.get());
    const Handle dcpl(H5Dget_create_plist(set.get()), H5Pclose);
    const int filters = dcpl.valid() ? H5Pget_nfilters(dcpl.get()) : 0;
    if (stored == 0) {
      fail("dataset " + full + " declares " + std::to_string(rows) + " rows but holds no data (never written)");
    }
    // Uncompressed data takes its whole size on disk; compressed data less, but not more than the file.
    if ((filters == 0 && stored < declared) || stored > file_size_) {
      fail("dataset " + full + " declares " + std::to_string(rows) + " rows (" + std::to_string(declared) +
           " bytes) but the file holds " + std::to_string(std::min<hsize_t>(stored, file_size_)) +
           " bytes of it (truncated or never written)");
    }
    return set;
  }

  // The values of a probed dataset converted to `mem_type`.
  template <class V>
  std::vector<V> read(const Handle& set, const std::string& where, const char* name, hsize_t rows, hsize_t cols,
                      hid_t mem_type) const {
    std::vector<V> out(rows * cols);
    if (rows > 0 && H5Dread(set.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) {
      fail("cannot read dataset " + where + "/" + name + " (truncated or corrupt file?)");
    }
    return out;
  }

  // An attribute holding an array of strings (fixed-length or variable-length).
  std::vector<std::string> strings(hid_t obj, const std::string& where, const char* name) const {
    const std::string full = where + "/" + name;
    const Handle attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
    if (!attr.valid()) fail("cannot open attribute " + full + " (corrupt file?)");
    const Handle type(H5Aget_type(attr.get()), H5Tclose);
    if (!type.valid() || H5Tget_class(type.get()) != H5T_STRING) {
      fail("attribute " + full + " is not an array of strings");
    }
    const Handle space(H5Aget_space(attr.get()), H5Sclose);
    const hssize_t count = H5Sget_simple_extent_npoints(space.get());
    if (count < 0 || count > hssize_t(kMaxComponents)) {
      fail("attribute " + full + " has " + std::to_string(count) + " strings, at most " +
           std::to_string(kMaxComponents));
    }
    std::vector<std::string> out;
    if (H5Tis_variable_str(type.get()) > 0) {
      const Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
      H5Tset_size(mem.get(), H5T_VARIABLE);
      H5Tset_cset(mem.get(), H5Tget_cset(type.get()));  // h5py writes UTF-8
      std::vector<char*> texts(std::size_t(count), nullptr);
      if (count > 0 && H5Aread(attr.get(), mem.get(), texts.data()) < 0) fail("cannot read attribute " + full);
      for (char* t : texts) out.emplace_back(t != nullptr ? t : "");
      if (count > 0) (void)H5Dvlen_reclaim(mem.get(), space.get(), H5P_DEFAULT, texts.data());
    } else {
      const std::size_t width = H5Tget_size(type.get());
      if (width == 0) fail("attribute " + full + " has an unreadable type (corrupt file?)");
      std::string packed(width * std::size_t(count), '\0');
      if (count > 0 && H5Aread(attr.get(), type.get(), packed.data()) < 0) fail("cannot read attribute " + full);
      for (hssize_t k = 0; k < count; ++k) {
        const std::string_view v(packed.data() + std::size_t(k) * width, width);
        out.emplace_back(v.substr(0, v.find('\0')));
      }
    }
    return out;
  }

  void set_file_size(std::uintmax_t size) noexcept { file_size_ = size; }

 private:
  std::filesystem::path path_;
  std::uintmax_t file_size_ = std::numeric_limits<std::uintmax_t>::max();
};

}  // namespace

void write_gadget_hdf5(const std::filesystem::path& path, const Particles<double>& p, const SnapshotMeta& meta) {
  const Writers one;
  replace_file_atomic(path,
                      [&](const std::filesystem::path& tmp) { write_file(tmp.string(), path.string(), p, meta, one); });
}

void write_gadget_hdf5_collective(const std::filesystem::path& path, const Particles<double>& p,
                                  const SnapshotMeta& meta, comm::Communicator& c) {
#if NBODY_HAVE_PARALLEL_HDF5
  const auto* mpi_comm = static_cast<const MPI_Comm*>(c.native_handle());
  if (mpi_comm == nullptr) {
    throw_runtime_error("cannot write '" + path.string() + "' collectively: the run's communicator (" + c.name() +
                        ") is not MPI");
  }
  // Rank 0 names the temporary (its process id), so every rank opens the same file.
  const std::string tmp = c.broadcast_bytes(c.rank() == 0 ? temporary_path_for(path).string() : std::string(), 0);
  try {
    silence_hdf5();
    const Writer w(path.string(), true);
    Handle fapl = w.check(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "a property list");
    w.check(H5Pset_fapl_mpio(fapl.get(), *mpi_comm, MPI_INFO_NULL), "the MPI-IO file access list");
    // Every rank makes the same metadata; HDF5 writes it out with its default (independent)
    // strategy. (Collective metadata writes, H5Pset_coll_metadata_write, made HDF5 1.10.8 put
    // 24 bytes of uninitialised memory into unused file space for some splits of the bodies:
    // the same datasets, but not the single process's bytes.)
    Handle dxpl = w.check(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "a property list");
    w.check(H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE), "the MPI-IO transfer list");
    const Writers ranks{c.size(), c.rank(), true, dxpl.get()};
    write_file(tmp, path.string(), p, meta, ranks, fapl.get());
    w.close(dxpl, "a property list");
    w.close(fapl, "a property list");
  } catch (...) {
    abandon_handles = false;  // the write's handles are gone
    // Whichever rank fails removes the temporary (every rank sees the same file system), then
    // ends the run naming itself (the program's handler ends the other ranks).
    ::unlink(tmp.c_str());
    throw;
  }
  // The file was closed collectively (H5Fclose returned on every rank): rank 0 flushes it and
  // renames it, and no rank goes on before the snapshot is in place.
  if (c.rank() == 0) commit_temporary(path, tmp);
  c.barrier();
#else
  (void)p;
  (void)meta;
  (void)c;
  throw_runtime_error("cannot write '" + path.string() + "' collectively: this build has no parallel HDF5");
#endif
}

ParticleFileData read_gadget_hdf5(const std::filesystem::path& path, FileRead what) {
  silence_hdf5();
  Reader r(path);
  {
    std::ifstream in(path, std::ios::binary);
    char head[8] = {};
    in.read(head, sizeof head);
    if (in.gcount() != 8 || std::string_view(head, 8) != std::string_view(kHdf5Signature, 8)) {
      r.fail("not an HDF5 file (wrong signature in the first 8 bytes)");
    }
  }
  std::error_code ec;
  const auto file_size = std::filesystem::file_size(path, ec);
  if (!ec) r.set_file_size(file_size);
  const Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) r.fail("cannot open as HDF5: truncated or corrupt file");
  const Handle header = r.open_group(file.get(), "Header");
  std::array<std::uint64_t, kTypes> count{};
  std::array<double, kTypes> mass_table{};
  std::int32_t files = 1;
  ParticleFileData data;
  r.attribute(header.get(), "/Header", "NumPart_ThisFile", H5T_NATIVE_UINT64, count.data(), kTypes);
  r.attribute(header.get(), "/Header", "MassTable", H5T_NATIVE_DOUBLE, mass_table.data(), kTypes);
  r.attribute(header.get(), "/Header", "Time", H5T_NATIVE_DOUBLE, &data.info.time, 1);
  if (!std::isfinite(data.info.time)) r.fail("/Header/Time is not a finite number (" + number(data.info.time) + ")");
  if (H5Aexists(header.get(), "NumFilesPerSnapshot") > 0) {
    r.attribute(header.get(), "/Header", "NumFilesPerSnapshot", H5T_NATIVE_INT32, &files, 1);
  }
  if (files != 1) r.fail("a snapshot split over " + std::to_string(files) + " files is not supported");
  for (int type = 0; type < kTypes; ++type) {
    const double m = mass_table[std::size_t(type)];
    if (!std::isfinite(m) || m < 0) {
      r.fail("/Header/MassTable[" + std::to_string(type) + "] is not a finite number >= 0 (" + number(m) + ")");
    }
  }

  if (H5Lexists(file.get(), "Units", H5P_DEFAULT) > 0) {
    const Handle units = r.open_group(file.get(), "Units");
    UnitSystemCgs u;
    const std::pair<const char*, double*> fields[] = {
        {"UnitLength_in_cm", &u.UnitLength_in_cm},
        {"UnitMass_in_g", &u.UnitMass_in_g},
        {"UnitVelocity_in_cm_per_s", &u.UnitVelocity_in_cm_per_s},
        {"UnitTime_in_s", &u.UnitTime_in_s}};
    for (const auto& [name, value] : fields) {
      r.attribute(units.get(), "/Units", name, H5T_NATIVE_DOUBLE, value, 1);
      if (!std::isfinite(*value) || !(*value > 0)) {
        r.fail("/Units/" + std::string(name) + " is not a finite number > 0 (" + number(*value) + ")");
      }
    }
    u.physical = u.UnitLength_in_cm != 1 || u.UnitMass_in_g != 1 || u.UnitVelocity_in_cm_per_s != 1;
    data.info.units = u;
  }
  // The softening of the run that wrote the file (our /Parameters; GADGET-4 has no single one).
  if (H5Lexists(file.get(), "Parameters", H5P_DEFAULT) > 0) {
    const Handle params = r.open_group(file.get(), "Parameters");
    if (H5Aexists(params.get(), "softening") > 0) {
      double eps = 0;
      r.attribute(params.get(), "/Parameters", "softening", H5T_NATIVE_DOUBLE, &eps, 1);
      if (!std::isfinite(eps) || eps < 0) r.fail("/Parameters/softening is not a finite number >= 0 (" + number(eps) + ")");
      data.info.softening = eps;
    }
  }
  if (what == FileRead::metadata) return data;

  // The component names of our snapshots (gadget_hdf5.hpp).
  auto& p = data.particles;
  const bool named = H5Aexists(header.get(), "ComponentNames") > 0;
  if (named) {
    p.component_names = r.strings(header.get(), "/Header", "ComponentNames");
    check_component_names(p.component_names, path, "/Header/ComponentNames");
  }

  // Every dataset checked against what the file holds, and the whole read against memory,
  // before anything large is allocated.
  struct TypeSets {
    Handle group, pos, vel, ids, mass, component, order;
  };
  std::array<TypeSets, kTypes> sets;
  std::size_t widest = 0;
  std::uint64_t total = 0, largest = 0;
  for (int type = 0; type < kTypes; ++type) {
    const hsize_t n = count[std::size_t(type)];
    if (n == 0) continue;
    const std::string name = "PartType" + std::to_string(type);
    const std::string where = "/" + name;
    TypeSets& t = sets[std::size_t(type)];
    t.group = r.open_group(file.get(), name);
    std::size_t bytes = 0;
    t.pos = r.probe(t.group.get(), where, "Coordinates", n, 3, &bytes);
    widest = std::max(widest, bytes);
    t.vel = r.probe(t.group.get(), where, "Velocities", n, 3);
    t.ids = r.probe(t.group.get(), where, "ParticleIDs", n, 1);
    if (H5Lexists(t.group.get(), "Component", H5P_DEFAULT) > 0) {
      t.component = r.probe(t.group.get(), where, "Component", n, 1);
    }
    if (H5Lexists(t.group.get(), "BodyIndex", H5P_DEFAULT) > 0) {
      t.order = r.probe(t.group.get(), where, "BodyIndex", n, 1);
    }
    if (H5Lexists(t.group.get(), "Masses", H5P_DEFAULT) > 0) {
      t.mass = r.probe(t.group.get(), where, "Masses", n, 1);
    } else if (!(mass_table[std::size_t(type)] > 0)) {
      r.fail(where + " has no Masses and /Header/MassTable gives it none");
    }
    total += n;  // each n is below 2^60 (probe): no overflow
    largest = std::max<std::uint64_t>(largest, n);
  }
  // The particles (8 values of 8 bytes and a tag per body, their order) and one type's datasets
  // read beside them.
  const std::uint64_t values = total + largest;
  const std::size_t need = values > SIZE_MAX / 80 ? SIZE_MAX : std::size_t(values) * 80;
  require_memory(Location::host(), need,
                 path.string() + ": " + std::to_string(total) + " bodies");

  // Without names, a file of several particle types (GADGET's own) has one component per type
  // used, named after it; a file of one type has one unnamed component.
  std::array<std::uint8_t, kTypes> type_component{};
  int types_used = 0, with_order = 0;
  for (int type = 0; type < kTypes; ++type) {
    if (count[std::size_t(type)] == 0) continue;
    ++types_used;
    if (sets[std::size_t(type)].order.valid()) ++with_order;
  }
  if (!named && types_used > 1) {
    for (int type = 0; type < kTypes; ++type) {
      if (count[std::size_t(type)] == 0) continue;
      type_component[std::size_t(type)] = static_cast<std::uint8_t>(p.component_names.size());
      p.component_names.push_back("PartType" + std::to_string(type));
    }
  }
  for (auto* v : {&p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz, &p.m}) v->reserve(total);
  p.id.reserve(total);
  p.component.reserve(total);
  const bool reorder = with_order == types_used && types_used > 0;
  std::vector<std::uint64_t> order;
  if (reorder) order.reserve(total);
  for (int type = 0; type < kTypes; ++type) {
    const hsize_t n = count[std::size_t(type)];
    if (n == 0) continue;
    const std::string where = "/PartType" + std::to_string(type);
    TypeSets& t = sets[std::size_t(type)];
    const auto pos = r.read<double>(t.pos, where, "Coordinates", n, 3, H5T_NATIVE_DOUBLE);
    const auto vel = r.read<double>(t.vel, where, "Velocities", n, 3, H5T_NATIVE_DOUBLE);
    const auto ids = r.read<std::uint64_t>(t.ids, where, "ParticleIDs", n, 1, H5T_NATIVE_UINT64);
    std::vector<double> mass;
    if (t.mass.valid()) {
      mass = r.read<double>(t.mass, where, "Masses", n, 1, H5T_NATIVE_DOUBLE);
    } else {
      mass.assign(n, mass_table[std::size_t(type)]);
    }
    std::vector<std::uint8_t> tags;
    if (named && t.component.valid()) {
      tags = r.read<std::uint8_t>(t.component, where, "Component", n, 1, H5T_NATIVE_UINT8);
    } else {
      tags.assign(n, type_component[std::size_t(type)]);
    }
    p.component.insert(p.component.end(), tags.begin(), tags.end());
    if (reorder) {
      const auto index = r.read<std::uint64_t>(t.order, where, "BodyIndex", n, 1, H5T_NATIVE_UINT64);
      order.insert(order.end(), index.begin(), index.end());
    }
    for (hsize_t i = 0; i < n; ++i) {
      p.x.push_back(pos[3 * i]);
      p.y.push_back(pos[3 * i + 1]);
      p.z.push_back(pos[3 * i + 2]);
      p.vx.push_back(vel[3 * i]);
      p.vy.push_back(vel[3 * i + 1]);
      p.vz.push_back(vel[3 * i + 2]);
      p.m.push_back(mass[i]);
      p.id.push_back(ids[i]);
    }
  }
  data.info.precision = widest == 4 ? Precision::fp32 : Precision::fp64;
  // Name a particle by its group and index there.
  validate_particles(p, path, [&](std::size_t k) {
    for (int type = 0; type < kTypes; ++type) {
      if (k < count[std::size_t(type)]) return "PartType" + std::to_string(type) + " record " + std::to_string(k + 1);
      k -= count[std::size_t(type)];
    }
    return "record " + std::to_string(k + 1);
  });
  // Back in the order of the set that was written (BodyIndex: a permutation of 0 .. total - 1).
  if (reorder) {
    std::vector<std::size_t> from(total, SIZE_MAX);
    for (std::size_t k = 0; k < order.size(); ++k) {
      if (order[k] >= total || from[order[k]] != SIZE_MAX) {
        r.fail("the PartType groups' BodyIndex values are not each of 0 .. " + std::to_string(total - 1) + " once");
      }
      from[order[k]] = k;
    }
    Particles<double> sorted;
    sorted.resize(total);
    sorted.component_names = p.component_names;
    for (std::size_t i = 0; i < total; ++i) {
      const std::size_t k = from[i];
      sorted.x[i] = p.x[k], sorted.y[i] = p.y[k], sorted.z[i] = p.z[k];
      sorted.vx[i] = p.vx[k], sorted.vy[i] = p.vy[k], sorted.vz[i] = p.vz[k];
      sorted.m[i] = p.m[k], sorted.id[i] = p.id[k], sorted.component[i] = p.component[k];
    }
    p = std::move(sorted);
  }
  return data;
}

}  // namespace nbody
