#include "io/run_directory.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/fnv1a.hpp"
#include "io/atomic_file.hpp"
#include "io/checkpoint.hpp"
#include "io/particle_file.hpp"
#include "core/strings.hpp"
#include "nbody/error.hpp"

namespace nbody {

namespace fs = std::filesystem;

namespace {

constexpr const char* kConfig = "config.toml";
constexpr const char* kModel = "model.toml";
constexpr const char* kDiagnostics = "diagnostics.csv";
constexpr const char* kLagrangian = "lagrangian_radii.csv";

std::optional<std::int64_t> snapshot_index(const std::string& name) {
  for (const auto f : {ParticleFormat::hdf5, ParticleFormat::tipsy, ParticleFormat::csv}) {
    if (auto i = RunFiles::numbered(name, "snapshot_", file_extension(f))) return i;
  }
  return std::nullopt;
}


}  // namespace

std::string RunDirectory::run_id_of(const RunConfig& cfg, const Particles<double>& initial) {
  // What may change on resume is left out (set to the defaults), so that every part of one run
  // has the same id.
  RunConfig fixed = cfg;
  const RunConfig defaults{};
  for (const auto& spec : run_params()) {
    if (spec.may_change_on_resume) std::visit([&](auto field) { fixed.*field = defaults.*field; }, spec.field);
  }
  Fnv1a64 h;
  h.update(config_to_lines(fixed));
  const auto add = [&](const auto& v) {
    if (!v.empty()) h.update({reinterpret_cast<const char*>(v.data()), v.size() * sizeof v[0]});
  };
  for (const auto* v : {&initial.x, &initial.y, &initial.z, &initial.vx, &initial.vy, &initial.vz, &initial.m}) add(*v);
  add(initial.id);
  char text[24];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h.value()));
  return text;
}

std::string RunDirectory::stored_run_id(const fs::path& path) { return RunFiles::stored_run_id(path); }

bool RunDirectory::has_checkpoint_files(const fs::path& path) { return !RunFiles::checkpoints(path).empty(); }

void RunDirectory::check_usable(const fs::path& path, bool overwrite) { RunFiles::check_usable(path, overwrite); }

RunDirectory::RunDirectory(fs::path path, const RunConfig& resolved, const NewRun& how)
    : files_(std::move(path), how.run_id, how.replace_existing,
             [](const std::string& name) {
               return name == kDiagnostics || name == kLagrangian || name == kModel || snapshot_index(name);
             }),
      cfg_(resolved) {
  const fs::path& dir = files_.path();
  write_file_atomic(dir / kConfig, to_toml(resolved));
  write_file_atomic(dir / kModel, how.model);
  write_file_atomic(dir / kDiagnostics, diagnostics_csv_header() + "\n");
  write_file_atomic(dir / kLagrangian, lagrangian_csv_header() + "\n");
  open_appending();
}

RunDirectory::RunDirectory(fs::path path, const RunConfig& resolved, const RunProgress& progress,
                           const std::string& run_id)
    : files_(std::move(path), "resume"), cfg_(resolved) {
  const fs::path& dir = files_.path();
  // diagnostics.csv and lagrangian_radii.csv: the header and the rows the checkpoint had seen,
  // no more (read before anything is removed, so a refusal leaves the directory as it was).
  const fs::path diag = dir / kDiagnostics, radii = dir / kLagrangian;
  const std::string kept = RunFiles::csv_rows(diag, progress.diagnostics_rows);
  const std::string kept_radii = RunFiles::csv_rows(radii, progress.diagnostics_rows);

  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const auto snap = snapshot_index(entry.path().filename().string());
    if (snap && *snap >= progress.snapshots) RunFiles::remove(entry.path());
  }
  files_.continue_run(run_id);
  write_file_atomic(diag, kept);
  write_file_atomic(radii, kept_radii);
  write_file_atomic(dir / kConfig, to_toml(resolved));
  diag_rows_ = progress.diagnostics_rows;
  radii_rows_ = progress.diagnostics_rows;
  snapshots_ = static_cast<int>(progress.snapshots);
  open_appending();
}

void RunDirectory::open_appending() {
  diag_ = RunFiles::open_for_append(files_.path() / kDiagnostics);
  radii_ = RunFiles::open_for_append(files_.path() / kLagrangian);
}

RunDirectory::~RunDirectory() {
  if (diag_ != nullptr) std::fclose(diag_);
  if (radii_ != nullptr) std::fclose(radii_);
}

RunDirectory::Found RunDirectory::latest_checkpoint(const fs::path& path) {
  RunFiles::check_resumable(path);
  if (!fs::exists(path / kConfig) || !fs::exists(path / kDiagnostics)) {
    throw_input_error("resume: '" + path.string() + "' is not a run directory (no config.toml or diagnostics.csv)");
  }
  RunDirectoryLock::check_free(path, "resume");
  const std::string id = stored_run_id(path);
  Found found;
  for (const auto& [step, file] : RunFiles::checkpoints(path)) {
    try {
      found.checkpoint = read_checkpoint(file);
      found.file = file;
      // A checkpoint copied from another run would replace this run's files with that run's.
      if (found.checkpoint.run_id != id) {
        throw_input_error("resume: " + file.string() + " belongs to another run (run id " +
                          (found.checkpoint.run_id.empty() ? std::string("none") : printable(found.checkpoint.run_id)) +
                          ", this directory's is " + (id.empty() ? std::string("none") : printable(id)) +
                          "); remove it, or start a new run from it with: nbody run --from " + file.string() +
                          " --out NEW_DIR");
      }
      // Newer ones that did not read back are superseded by what this run writes next.
      return found;
    } catch (const Error& e) {
      if (found.file == file) throw;  // it reads back, but is not this run's
      found.skipped.push_back(e.what());
    }
  }
  if (found.skipped.empty()) throw_input_error("resume: no checkpoint in '" + path.string() + "'");
  throw_input_error("resume: no usable checkpoint in '" + path.string() + "': " + found.skipped.front());
}

void RunDirectory::log(std::string_view line) { files_.log(line); }

void RunDirectory::append_diagnostics(const Diagnostics& d, const Diagnostics& initial) {
  if (std::fprintf(diag_, "%s\n", diagnostics_csv_row(d, initial).c_str()) < 0 || std::fflush(diag_) != 0) {
    throw_runtime_error("cannot write '" + (files_.path() / kDiagnostics).string() + "': " + std::strerror(errno));
  }
  ++diag_rows_;
}

void RunDirectory::append_lagrangian_radii(std::int64_t step, double time, const std::array<double, 7>& radii) {
  if (std::fprintf(radii_, "%s\n", lagrangian_csv_row(step, time, radii).c_str()) < 0 || std::fflush(radii_) != 0) {
    throw_runtime_error("cannot write '" + (files_.path() / kLagrangian).string() + "': " + std::strerror(errno));
  }
  ++radii_rows_;
}

fs::path RunDirectory::write_snapshot(const Particles<double>& p, double time) {
  return write_snapshot(time, [&](const fs::path& file, ParticleFormat format, const SnapshotMeta& meta) {
    write_particle_file(file, format, p, meta);
  });
}

fs::path RunDirectory::write_snapshot(double time, const SnapshotWriter& write) {
  const ParticleFormat format = parse_particle_format(cfg_.snapshot_format, "snapshot_format");
  char name[48];
  std::snprintf(name, sizeof name, "snapshot_%03d%s", snapshots_, std::string(file_extension(format)).c_str());
  const fs::path file = files_.path() / name;
  write(file, format, {parse_precision(cfg_.precision), time, &cfg_, std::nullopt});
  ++snapshots_;
  return file;
}

fs::path RunDirectory::write_checkpoint(const Checkpoint& ck) {
  if (radii_rows_ != diag_rows_ || ck.progress.diagnostics_rows != diag_rows_) {
    throw_runtime_error("run directory: " + std::to_string(diag_rows_) + " diagnostics rows, " +
                        std::to_string(radii_rows_) + " Lagrangian-radii rows, the checkpoint counts " +
                        std::to_string(ck.progress.diagnostics_rows));
  }
  RunFiles::flush_to_disk(diag_, files_.path() / kDiagnostics);
  RunFiles::flush_to_disk(radii_, files_.path() / kLagrangian);
  files_.sync_log();
  const fs::path file = files_.checkpoint_path(ck.step);
  nbody::write_checkpoint(file, ck);
  files_.keep_latest_checkpoints(ck.step);
  return file;
}

bool RunDirectory::stop_requested() const { return files_.stop_requested(); }

void RunDirectory::clear_stop() { files_.clear_stop(); }

}  // namespace nbody
