#include "pic/output/hdf5_write.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "nbody/error.hpp"

namespace nbody::pic::h5 {

Handle::Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), close_(o.close_) {}

Handle& Handle::operator=(Handle&& o) noexcept {
  std::swap(id_, o.id_);
  std::swap(close_, o.close_);
  return *this;
}

herr_t Handle::close() noexcept {
  if (id_ < 0 || close_ == nullptr) return 0;
  return close_(std::exchange(id_, H5I_INVALID_HID));
}

namespace {

// Once per process, before the library's first use (HDF5 initialises itself on its first call):
// no exit handler, and no error stack printed on stderr (the error is reported as one line).
void prepare_hdf5() {
  static const bool once = [] {
    (void)H5dont_atexit();  // (fails, harmlessly, if another writer of this process came first)
    (void)H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)once;
}

}  // namespace

Writer::Writer(std::string target) : target_(std::move(target)) { prepare_hdf5(); }

void Writer::fail(const std::string& what) const {
  // The cause of a failed write (a full disk, a file size limit) is in errno.
  const int err = errno;
  std::string why;
  if (err == ENOSPC || err == EFBIG || err == EDQUOT || err == EIO || err == EROFS) why = std::string(": ") + std::strerror(err);
  throw_runtime_error("cannot write '" + target_ + "': HDF5 failed to " + what + why);
}

void Writer::check(herr_t status, const std::string& what) const {
  if (status < 0) fail(what);
  errno = 0;  // (a later failure's errno is its own)
}

Handle Writer::check(hid_t id, herr_t (*close)(hid_t), const std::string& what) const {
  if (id < 0) fail(what);
  errno = 0;
  return Handle(id, close);
}

void Writer::close(Handle& h, const std::string& what) const {
  if (h.close() < 0) fail("close " + what);
  errno = 0;
}

Handle Writer::untimed(hid_t cls) const {
  Handle plist = check(H5Pcreate(cls), H5Pclose, "create a property list");
  check(H5Pset_obj_track_times(plist.get(), false), "set a property list");
  return plist;
}

Handle Writer::create_file(const std::string& path) const {
  Handle fcpl = untimed(H5P_FILE_CREATE);  // (the root group's times)
  Handle file = check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), H5P_DEFAULT), H5Fclose, "create the file");
  close(fcpl, "a property list");
  return file;
}

Handle Writer::group(hid_t parent, const std::string& name) const {
  Handle gcpl = untimed(H5P_GROUP_CREATE);
  Handle g = check(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT), H5Gclose, "create group " + name);
  close(gcpl, "a property list");
  return g;
}

Handle Writer::dataset(hid_t parent, const std::string& name, const std::vector<hsize_t>& dims, hid_t mem_type,
                       hid_t file_type, const void* data) const {
  Handle space = check(H5Screate_simple(int(dims.size()), dims.data(), nullptr), H5Sclose, "create a dataspace");
  Handle dcpl = untimed(H5P_DATASET_CREATE);
  Handle d = check(H5Dcreate2(parent, name.c_str(), file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                   H5Dclose, "create dataset " + name);
  hsize_t n = 1;
  for (hsize_t k : dims) n *= k;
  if (n > 0) check(H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "write dataset " + name);
  close(dcpl, "a property list");
  close(space, "a dataspace");
  return d;
}

Handle Writer::dataset(hid_t parent, const std::string& name, const std::vector<hsize_t>& dims,
                       const double* data) const {
  return dataset(parent, name, dims, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, data);
}

Handle Writer::dataset(hid_t parent, const std::string& name, const std::vector<hsize_t>& dims,
                       const std::uint64_t* data) const {
  return dataset(parent, name, dims, H5T_NATIVE_UINT64, H5T_STD_U64LE, data);
}

void Writer::attribute(hid_t obj, const std::string& name, hid_t mem_type, hid_t file_type, const void* data,
                       const hsize_t* count) const {
  Handle space = count ? check(H5Screate_simple(1, count, nullptr), H5Sclose, "create a dataspace")
                       : check(H5Screate(H5S_SCALAR), H5Sclose, "create a dataspace");
  Handle a = check(H5Acreate2(obj, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                   "create attribute " + name);
  check(H5Awrite(a.get(), mem_type, data), "write attribute " + name);
  close(a, "attribute " + name);
  close(space, "a dataspace");
}

// A fixed-length string type of `width` characters, padded with NULs (none when the text fills it).
Handle string_type(const Writer& w, std::size_t width) {
  Handle type = w.check(H5Tcopy(H5T_C_S1), H5Tclose, "copy a string type");
  w.check(H5Tset_size(type.get(), width), "size a string type");
  w.check(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "pad a string type");
  return type;
}

void Writer::attr_string(hid_t obj, const std::string& name, const std::string& v) const {
  Handle type = string_type(*this, std::max<std::size_t>(v.size(), 1));  // (HDF5 has no empty string type)
  const std::string padded = v.empty() ? std::string(1, '\0') : v;
  attribute(obj, name, type.get(), type.get(), padded.data(), nullptr);
  close(type, "a string type");
}

void Writer::attr_strings(hid_t obj, const std::string& name, const std::vector<std::string>& v) const {
  std::size_t width = 1;
  for (const std::string& s : v) width = std::max(width, s.size());
  std::vector<char> packed(width * v.size(), '\0');
  for (std::size_t k = 0; k < v.size(); ++k) std::copy(v[k].begin(), v[k].end(), packed.begin() + std::ptrdiff_t(k * width));
  Handle type = string_type(*this, width);
  const hsize_t n = v.size();
  attribute(obj, name, type.get(), type.get(), packed.data(), &n);
  close(type, "a string type");
}

void Writer::attr_f64(hid_t obj, const std::string& name, double v) const {
  attribute(obj, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, &v, nullptr);
}

void Writer::attr_f64s(hid_t obj, const std::string& name, const std::vector<double>& v) const {
  const hsize_t n = v.size();
  attribute(obj, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, v.data(), &n);
}

void Writer::attr_u32(hid_t obj, const std::string& name, std::uint32_t v) const {
  attribute(obj, name, H5T_NATIVE_UINT32, H5T_STD_U32LE, &v, nullptr);
}

void Writer::attr_u64s(hid_t obj, const std::string& name, const std::vector<std::uint64_t>& v) const {
  const hsize_t n = v.size();
  attribute(obj, name, H5T_NATIVE_UINT64, H5T_STD_U64LE, v.data(), &n);
}

}  // namespace nbody::pic::h5
