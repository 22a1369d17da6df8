#pragma once
// Checked HDF5 writing for the PIC outputs (built only with HDF5). Every call's status is
// checked and a failure throws one runtime error naming the file (with the cause in errno: a
// full disk, a file size limit). Every identifier is owned by a Handle: the writer closes each
// one itself and checks the close (HDF5 writes metadata when closing), and an error unwinding
// closes whatever is left, so nothing is left for the library's exit handler, which it is kept
// from running (after a failed H5Fclose HDF5 1.10 keeps an identifier of a file it has freed,
// and closing that again at exit crashed the process). Objects record no modification times:
// the file's bytes depend on its contents alone.
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace nbody::pic::h5 {

// Owns an HDF5 identifier and closes it with the matching function.
class Handle {
 public:
  Handle() = default;
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Handle(Handle&& o) noexcept;
  Handle& operator=(Handle&& o) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { (void)close(); }
  [[nodiscard]] hid_t get() const noexcept { return id_; }
  // Closes now; the identifier is given up whatever the outcome (HDF5 must not be asked to
  // close it twice). Negative when the close failed.
  herr_t close() noexcept;

 private:
  hid_t id_ = H5I_INVALID_HID;
  herr_t (*close_)(hid_t) = nullptr;
};

class Writer {
 public:
  // `target`: the file's name in error messages (the data goes to a temporary name first).
  explicit Writer(std::string target);

  [[noreturn]] void fail(const std::string& what) const;
  void check(herr_t status, const std::string& what) const;
  [[nodiscard]] Handle check(hid_t id, herr_t (*close)(hid_t), const std::string& what) const;
  // Closes `h` now; a failed close is a failed write.
  void close(Handle& h, const std::string& what) const;

  // A new file at `path` (truncated), its root group without modification times.
  [[nodiscard]] Handle create_file(const std::string& path) const;
  [[nodiscard]] Handle group(hid_t parent, const std::string& name) const;
  // A dataset of the shape `dims` (C order), written whole; the caller adds attributes and
  // closes it.
  [[nodiscard]] Handle dataset(hid_t parent, const std::string& name, const std::vector<hsize_t>& dims,
                               const double* data) const;
  [[nodiscard]] Handle dataset(hid_t parent, const std::string& name, const std::vector<hsize_t>& dims,
                               const std::uint64_t* data) const;

  // Attributes. Strings are fixed-length, as long as the text (h5py reads them as bytes, as the
  // openPMD validator and yt expect); a string array holds strings of the longest one's length,
  // the shorter ones padded with NULs.
  void attr_string(hid_t obj, const std::string& name, const std::string& v) const;
  void attr_strings(hid_t obj, const std::string& name, const std::vector<std::string>& v) const;
  void attr_f64(hid_t obj, const std::string& name, double v) const;
  void attr_f64s(hid_t obj, const std::string& name, const std::vector<double>& v) const;
  void attr_u32(hid_t obj, const std::string& name, std::uint32_t v) const;
  void attr_u64s(hid_t obj, const std::string& name, const std::vector<std::uint64_t>& v) const;

 private:
  // An object creation property list of class `cls` that records no modification times.
  [[nodiscard]] Handle untimed(hid_t cls) const;
  void attribute(hid_t obj, const std::string& name, hid_t mem_type, hid_t file_type, const void* data,
                 const hsize_t* count) const;
  [[nodiscard]] Handle dataset(hid_t parent, const std::string& name, const std::vector<hsize_t>& dims,
                               hid_t mem_type, hid_t file_type, const void* data) const;

  std::string target_;
};

}  // namespace nbody::pic::h5
