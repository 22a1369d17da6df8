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
//   run_id                   the run's id (16 hex digits): every checkpoint carries it, and a
//                            checkpoint of another run is refused (directories of earlier releases
//                            have none; their checkpoints neither)
//   .nbody.lock              held (flock) by the process writing the directory, with its pid and
//                            host: a second run, --overwrite or --resume of it is refused
// Snapshots, checkpoints, config.toml and model.toml are replaced atomically. diagnostics.csv,
// lagrangian_radii.csv and run.log grow by whole lines (one write each), so a killed run leaves
// whole lines; a resumed run rewrites diagnostics.csv and lagrangian_radii.csv with exactly the
// rows its checkpoint had seen (the two files always hold the same steps).
#include <array>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/particle_file.hpp"
#include "io/run_files.hpp"
#include "nbody/checkpoint.hpp"
#include "nbody/config.hpp"
#include "nbody/diagnostics.hpp"
#include "nbody/particles.hpp"

namespace nbody {

class RunDirectory {
 public:
  // How a new run starts its directory.
  struct NewRun {
    std::string run_id;            // see run_id_of
    bool replace_existing = false;  // --overwrite: the files of an earlier run are removed
    std::string model;              // model.toml: the initial conditions' model, units and source
  };

  // Checks that `path` can hold a new run without writing anything: an input error when it is
  // a file, or a directory that already holds files (unless overwrite).
  static void check_usable(const std::filesystem::path& path, bool overwrite);

  // A new run: creates the directory and takes its lock (an input error when another process
  // holds it, or when the directory holds files and !replace_existing), removes the files of an
  // earlier run in it, writes run_id, config.toml and model.toml, starts diagnostics.csv,
  // lagrangian_radii.csv and run.log.
  RunDirectory(std::filesystem::path path, const RunConfig& resolved, const NewRun& how);
  // A run continued from a checkpoint with `progress`: takes the lock, removes what was written
  // after it (rows of diagnostics.csv and lagrangian_radii.csv, snapshots, newer checkpoints,
  // temporary files of a killed run, a stop file), rewrites config.toml (and run_id when the
  // directory had none), and appends from there.
  RunDirectory(std::filesystem::path path, const RunConfig& resolved, const RunProgress& progress,
               const std::string& run_id);

  // The id of a run: 16 hex digits of FNV-1a 64 over the parameters a resumed run may not change
  // (the run directory's path among them) and the initial state. Deterministic, so that a run and
  // the same run interrupted and resumed write the same checkpoints, byte for byte; two
  // directories share an id only when they hold the same run.
  [[nodiscard]] static std::string run_id_of(const RunConfig& cfg, const Particles<double>& initial);
  // The run_id file of `path`; empty when there is none (a directory of an earlier release).
  [[nodiscard]] static std::string stored_run_id(const std::filesystem::path& path);
  ~RunDirectory();
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;

  struct Found {
    std::filesystem::path file;
    Checkpoint checkpoint;
    std::vector<std::string> skipped;  // newer checkpoints that could not be read, and why
  };
  // The checkpoint with the highest step that reads back whole. An input error when `path` is
  // not a run directory or holds no usable checkpoint, when another process holds its lock, or
  // when that checkpoint belongs to another run (its run id is not the directory's).
  [[nodiscard]] static Found latest_checkpoint(const std::filesystem::path& path);
  // Whether `path` holds any file named like a checkpoint (readable or not).
  [[nodiscard]] static bool has_checkpoint_files(const std::filesystem::path& path);

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
  // The same with the particles written by `write` (given the path, the run's snapshot format
  // and the metadata): for a snapshot that several processes write together.
  using SnapshotWriter =
      std::function<void(const std::filesystem::path&, ParticleFormat, const SnapshotMeta&)>;
  std::filesystem::path write_snapshot(double time, const SnapshotWriter& write);
  // checkpoint_<step>.ckpt; once it is complete, checkpoints older than the previous one go.
  // diagnostics.csv, lagrangian_radii.csv and run.log are flushed to disk first.
  std::filesystem::path write_checkpoint(const Checkpoint& ck);

  [[nodiscard]] bool stop_requested() const;  // a file named "stop" exists
  void clear_stop();

  [[nodiscard]] const std::filesystem::path& path() const noexcept { return files_.path(); }
  [[nodiscard]] const std::string& run_id() const noexcept { return files_.run_id(); }
  [[nodiscard]] int snapshots_written() const noexcept { return snapshots_; }
  [[nodiscard]] std::int64_t diagnostics_rows() const noexcept { return diag_rows_; }

 private:
  void open_appending();

  RunFiles files_;  // the lock, run_id, run.log, the stop file, the checkpoints' names
  RunConfig cfg_;
  std::FILE* diag_ = nullptr;
  std::FILE* radii_ = nullptr;
  int snapshots_ = 0;
  std::int64_t diag_rows_ = 0;
  std::int64_t radii_rows_ = 0;
};

}  // namespace nbody
