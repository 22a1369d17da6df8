#pragma once
// The files of one run: config.toml (the resolved configuration, written first),
// diagnostics.csv, and snapshot_NNN.csv.
#include <cstdio>
#include <filesystem>
#include <string>

#include "nbody/config.hpp"
#include "nbody/diagnostics.hpp"
#include "nbody/particles.hpp"
#include "nbody/precision.hpp"

namespace nbody {

class RunDirectory {
 public:
  // Checks that `path` can hold a new run without writing anything: an input error when it is
  // a file, or a directory that already holds files (unless overwrite).
  static void check_usable(const std::filesystem::path& path, bool overwrite);

  // Creates the directory and writes config.toml.
  RunDirectory(std::filesystem::path path, const RunConfig& resolved);
  ~RunDirectory();
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;

  // One row of diagnostics.csv; drifts (energy, momenta) are measured from `initial`.
  void append_diagnostics(const Diagnostics& d, const Diagnostics& initial);
  // snapshot_NNN.csv with NNN = the count of snapshots written so far; values in `precision`.
  std::filesystem::path write_snapshot(const Particles<double>& p, Precision precision);

  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  [[nodiscard]] int snapshots_written() const noexcept { return snapshots_; }

 private:
  std::filesystem::path path_;
  std::FILE* diag_ = nullptr;
  int snapshots_ = 0;
};

}  // namespace nbody
