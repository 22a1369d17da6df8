#pragma once
// The files of one run:
//   config.toml              the resolved configuration (G resolved), written first
//   model.toml               the initial conditions' model, source and unit system (cgs factors)
//   run.log                  what the run printed, each line with a UTC timestamp
//   diagnostics.csv          one row per diagnostics step
//   lagrangian_radii.csv     one row per diagnostics step: radii holding 1 % ... 90 % of the mass
//   snapshot_NNN.<ext>       snapshots (.hdf5, .tipsy or .csv, from snapshot_format)
//   checkpoint_SSSSSSSSSS.ckpt  restart checkpoints at step S: the latest two are kept
//   stop                     created by the user: the run checkpoints and exits between steps
// Snapshots, checkpoints, config.toml and model.toml are replaced atomically. diagnostics.csv,
// lagrangian_radii.csv and run.log grow by whole lines (one write each), so a killed run leaves
// whole lines; a resumed run rewrites diagnostics.csv and lagrangian_radii.csv with exactly the
// rows its checkpoint had seen (the two files always hold the same steps).
#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "nbody/checkpoint.hpp"
#include "nbody/config.hpp"
#include "nbody/diagnostics.hpp"
#include "nbody/particles.hpp"

namespace nbody {

class RunDirectory {
 public:
  // Checks that `path` can hold a new run without writing anything: an input error when it is
  // a file, or a directory that already holds files (unless overwrite).
  static void check_usable(const std::filesystem::path& path, bool overwrite);

  // A new run: creates the directory (removing the files of an earlier run in it), writes
  // config.toml and model.toml, starts diagnostics.csv, lagrangian_radii.csv and run.log.
  RunDirectory(std::filesystem::path path, const RunConfig& resolved);
  // A run continued from a checkpoint with `progress`: removes what was written after it
  // (rows of diagnostics.csv and lagrangian_radii.csv, snapshots, newer checkpoints, temporary
  // files of a killed run, a stop file), rewrites config.toml, and appends from there.
  RunDirectory(std::filesystem::path path, const RunConfig& resolved, const RunProgress& progress);
  ~RunDirectory();
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;

  struct Found {
    std::filesystem::path file;
    Checkpoint checkpoint;
    std::vector<std::string> skipped;  // newer checkpoints that could not be read, and why
  };
  // The checkpoint with the highest step that reads back whole. An input error when `path` is
  // not a run directory or holds no usable checkpoint.
  [[nodiscard]] static Found latest_checkpoint(const std::filesystem::path& path);

  // One line in run.log with a timestamp.
  void log(std::string_view line);
  // One row of diagnostics.csv; drifts (energy, momenta) are measured from `initial`, the
  // step-0 diagnostics.
  void append_diagnostics(const Diagnostics& d, const Diagnostics& initial);
  // One row of lagrangian_radii.csv. Written with every diagnostics row (same steps): a resumed
  // run keeps as many rows of it as of diagnostics.csv.
  void append_lagrangian_radii(std::int64_t step, double time, const std::array<double, 7>& radii);
  // snapshot_NNN.<ext> with NNN = the count of snapshots so far, in the run's precision and
  // snapshot format, at simulation time `time`.
  std::filesystem::path write_snapshot(const Particles<double>& p, double time);
  // checkpoint_<step>.ckpt; once it is complete, checkpoints older than the previous one go.
  // diagnostics.csv, lagrangian_radii.csv and run.log are flushed to disk first.
  std::filesystem::path write_checkpoint(const Checkpoint& ck);

  [[nodiscard]] bool stop_requested() const;  // a file named "stop" exists
  void clear_stop();

  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  [[nodiscard]] int snapshots_written() const noexcept { return snapshots_; }
  [[nodiscard]] std::int64_t diagnostics_rows() const noexcept { return diag_rows_; }

 private:
  void open_appending();

  std::filesystem::path path_;
  RunConfig cfg_;
  std::FILE* diag_ = nullptr;
  std::FILE* radii_ = nullptr;
  std::FILE* log_ = nullptr;
  int snapshots_ = 0;
  std::int64_t diag_rows_ = 0;
  std::int64_t radii_rows_ = 0;
};

}  // namespace nbody
