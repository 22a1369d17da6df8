#include "io/run_directory.hpp"

#include <cerrno>
#include <cstring>

#include "io/atomic_file.hpp"
#include "io/csv_snapshot.hpp"
#include "nbody/error.hpp"

namespace nbody {

namespace fs = std::filesystem;

void RunDirectory::check_usable(const fs::path& path, bool overwrite) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) return;
  if (!fs::is_directory(status)) throw_input_error("out: '" + path.string() + "' exists and is not a directory");
  if (!overwrite && !fs::is_empty(path, ec)) {
    throw_input_error("out: directory '" + path.string() +
                      "' is not empty (choose another, or pass --overwrite to reuse it)");
  }
}

RunDirectory::RunDirectory(fs::path path, const RunConfig& resolved) : path_(std::move(path)) {
  std::error_code ec;
  fs::create_directories(path_, ec);
  if (ec) throw_input_error("out: cannot create directory '" + path_.string() + "': " + ec.message());
  write_file_atomic(path_ / "config.toml", to_toml(resolved));
  const fs::path diag = path_ / "diagnostics.csv";
  diag_ = std::fopen(diag.c_str(), "w");
  if (diag_ == nullptr) throw_runtime_error("cannot write '" + diag.string() + "': " + std::strerror(errno));
  std::fprintf(diag_, "%s\n", diagnostics_csv_header().c_str());
  std::fflush(diag_);
}

RunDirectory::~RunDirectory() {
  if (diag_ != nullptr) std::fclose(diag_);
}

void RunDirectory::append_diagnostics(const Diagnostics& d, const Diagnostics& initial) {
  if (std::fprintf(diag_, "%s\n", diagnostics_csv_row(d, initial).c_str()) < 0 || std::fflush(diag_) != 0) {
    throw_runtime_error("cannot write '" + (path_ / "diagnostics.csv").string() + "': " + std::strerror(errno));
  }
}

fs::path RunDirectory::write_snapshot(const Particles<double>& p, Precision precision) {
  char name[32];
  std::snprintf(name, sizeof name, "snapshot_%03d.csv", snapshots_);
  const fs::path file = path_ / name;
  if (precision == Precision::fp32) {
    write_csv_snapshot(file, p.as<float>());
  } else {
    write_csv_snapshot(file, p);
  }
  ++snapshots_;
  return file;
}

}  // namespace nbody
