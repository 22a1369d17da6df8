#include "io/run_directory.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/fnv1a.hpp"
#include "ic/ic.hpp"
#include "io/atomic_file.hpp"
#include "io/checkpoint.hpp"
#include "io/particle_file.hpp"
#include "nbody/error.hpp"

namespace nbody {

namespace fs = std::filesystem;

namespace {

constexpr const char* kConfig = "config.toml";
constexpr const char* kModel = "model.toml";
constexpr const char* kDiagnostics = "diagnostics.csv";
constexpr const char* kLagrangian = "lagrangian_radii.csv";
constexpr const char* kLog = "run.log";
constexpr const char* kStop = "stop";
constexpr const char* kRunId = "run_id";
constexpr std::size_t kCheckpointsKept = 2;

// The number in "<prefix><digits><suffix>", or nullopt when `name` is not of that form.
std::optional<std::int64_t> numbered(const std::string& name, std::string_view prefix, std::string_view suffix) {
  if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return std::nullopt;
  }
  const char* first = name.data() + prefix.size();
  const char* last = name.data() + name.size() - suffix.size();
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last) return std::nullopt;
  return v;
}

std::optional<std::int64_t> snapshot_index(const std::string& name) {
  for (const auto f : {ParticleFormat::hdf5, ParticleFormat::tipsy, ParticleFormat::csv}) {
    if (auto i = numbered(name, "snapshot_", file_extension(f))) return i;
  }
  return std::nullopt;
}

std::optional<std::int64_t> checkpoint_step(const std::string& name) { return numbered(name, "checkpoint_", ".ckpt"); }

std::string checkpoint_name(std::int64_t step) {
  char name[48];
  std::snprintf(name, sizeof name, "checkpoint_%010lld.ckpt", static_cast<long long>(step));
  return name;
}

// Checkpoint files in `dir`, highest step first.
std::vector<std::pair<std::int64_t, fs::path>> checkpoints_in(const fs::path& dir) {
  std::vector<std::pair<std::int64_t, fs::path>> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (const auto s = checkpoint_step(entry.path().filename().string())) out.emplace_back(*s, entry.path());
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  return out;
}

void remove_file(const fs::path& p) {
  std::error_code ec;
  fs::remove(p, ec);
  if (ec) throw_runtime_error("cannot remove '" + p.string() + "': " + ec.message());
}

std::FILE* open_for_append(const fs::path& p) {
  std::FILE* f = std::fopen(p.c_str(), "a");
  if (f == nullptr) throw_runtime_error("cannot write '" + p.string() + "': " + std::strerror(errno));
  return f;
}

// The header and the first `rows` complete rows of the CSV file `p` (a last line without its
// newline is incomplete); an input error when it has fewer.
std::string csv_rows(const fs::path& p, std::int64_t rows) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw_input_error("resume: cannot read '" + p.string() + "'");
  std::string kept, line;
  std::int64_t have = -1;  // the header is not a row
  while (have < rows && std::getline(in, line)) {
    if (in.eof()) break;
    kept += line + "\n";
    ++have;
  }
  if (have < rows) {
    throw_input_error("resume: '" + p.string() + "' has " + std::to_string(std::max<std::int64_t>(have, 0)) +
                      " complete rows, the checkpoint expects " + std::to_string(rows));
  }
  return kept;
}

void flush_to_disk(std::FILE* f, const fs::path& p) {
  if (f == nullptr) return;
  if (std::fflush(f) != 0 || ::fsync(::fileno(f)) != 0) {
    throw_runtime_error("cannot write '" + p.string() + "': " + std::strerror(errno));
  }
}

// What the lock file of a held lock says about its holder.
std::string holder_of(const fs::path& lock_file) {
  std::ifstream in(lock_file);
  std::string line;
  std::getline(in, line);
  return line.empty() ? std::string("holder unknown") : line;
}

[[noreturn]] void refuse_in_use(const fs::path& dir, const std::string& what) {
  throw_input_error(what + ": run directory '" + dir.string() + "' is in use by another nbody process (" +
                    holder_of(dir / RunDirectoryLock::kFileName) +
                    "); wait for it to end or stop it (create the file 'stop' in it)");
}

}  // namespace

RunDirectoryLock::RunDirectoryLock(const fs::path& dir, const std::string& what) {
  const fs::path file = dir / kFileName;
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw_input_error(what + ": cannot create the lock file '" + file.string() + "': " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK) refuse_in_use(dir, what);
    throw_runtime_error("cannot lock '" + file.string() + "': " + std::strerror(err));
  }
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "unknown");
  const std::string holder = "pid " + std::to_string(::getpid()) + " on host " + host + "\n";
  // Best effort: the lock is what counts; the text only names the holder in a refusal.
  if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, holder.data(), holder.size(), 0);
}

RunDirectoryLock::~RunDirectoryLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

void RunDirectoryLock::check_free(const fs::path& dir, const std::string& what) {
  const int fd = ::open((dir / kFileName).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;  // no lock file: no run has written here since locks exist
  const bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  if (held) refuse_in_use(dir, what);
}

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

std::string RunDirectory::stored_run_id(const fs::path& path) {
  std::ifstream in(path / kRunId);
  std::string id;
  in >> id;
  return id;
}

bool RunDirectory::has_checkpoint_files(const fs::path& path) { return !checkpoints_in(path).empty(); }

void RunDirectory::check_usable(const fs::path& path, bool overwrite) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) {
    // It will be created: its nearest existing ancestor must be a directory that takes entries.
    fs::path parent = fs::absolute(path, ec).parent_path();
    while (!parent.empty() && !fs::exists(parent, ec) && parent != parent.parent_path()) parent = parent.parent_path();
    if (!fs::is_directory(parent, ec)) {
      throw_input_error("out: cannot create directory '" + path.string() + "': '" + parent.string() +
                        "' is not a directory");
    }
    if (::access(parent.c_str(), W_OK | X_OK) != 0) {
      throw_input_error("out: cannot create directory '" + path.string() + "': '" + parent.string() +
                        "' is not writable (" + std::strerror(errno) + ")");
    }
    return;
  }
  if (!fs::is_directory(status)) throw_input_error("out: '" + path.string() + "' exists and is not a directory");
  if (!overwrite) {
    // A lock file alone is what a run that failed before writing anything leaves: not a run.
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      if (entry.path().filename() != RunDirectoryLock::kFileName) {
        throw_input_error("out: directory '" + path.string() +
                          "' is not empty (choose another, or pass --overwrite to reuse it)");
      }
    }
  }
  // Writable, tried for real (permission bits say nothing to root, nor of a read-only mount):
  // a file created and removed before anything is drawn or computed.
  const fs::path probe = path / (".nbody-write-test." + std::to_string(::getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw_input_error("out: directory '" + path.string() + "' is not writable (" + std::strerror(errno) + ")");
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

RunDirectory::RunDirectory(fs::path path, const RunConfig& resolved, const NewRun& how)
    : path_(std::move(path)), run_id_(how.run_id), cfg_(resolved) {
  std::error_code ec;
  fs::create_directories(path_, ec);
  if (ec) throw_input_error("out: cannot create directory '" + path_.string() + "': " + ec.message());
  lock_ = std::make_unique<RunDirectoryLock>(path_, "out");
  // Checked again under the lock: another run may have filled it since check_usable.
  if (!how.replace_existing) {
    for (const auto& entry : fs::directory_iterator(path_, ec)) {
      if (entry.path().filename() != RunDirectoryLock::kFileName) {
        throw_input_error("out: directory '" + path_.string() +
                          "' is not empty (choose another, or pass --overwrite to reuse it)");
      }
    }
  }
  // A reused directory (--overwrite) starts over: the files of an earlier run would otherwise
  // mix with this one's (an old checkpoint would be taken for this run's latest).
  for (const auto& entry : fs::directory_iterator(path_, ec)) {
    const std::string name = entry.path().filename().string();
    if (name == kDiagnostics || name == kLagrangian || name == kModel || name == kLog || name == kStop ||
        snapshot_index(name) || checkpoint_step(name) || is_temporary_file(entry.path())) {
      remove_file(entry.path());
    }
  }
  write_file_atomic(path_ / kRunId, run_id_ + "\n");
  write_file_atomic(path_ / kConfig, to_toml(resolved));
  write_file_atomic(path_ / kModel, ic_metadata_toml(resolved) + how.model_extra);
  write_file_atomic(path_ / kDiagnostics, diagnostics_csv_header() + "\n");
  write_file_atomic(path_ / kLagrangian, lagrangian_csv_header() + "\n");
  open_appending();
}

RunDirectory::RunDirectory(fs::path path, const RunConfig& resolved, const RunProgress& progress,
                           const std::string& run_id)
    : path_(std::move(path)), cfg_(resolved) {
  lock_ = std::make_unique<RunDirectoryLock>(path_, "resume");
  run_id_ = stored_run_id(path_);
  // diagnostics.csv and lagrangian_radii.csv: the header and the rows the checkpoint had seen,
  // no more (read before anything is removed, so a refusal leaves the directory as it was).
  const fs::path diag = path_ / kDiagnostics, radii = path_ / kLagrangian;
  const std::string kept = csv_rows(diag, progress.diagnostics_rows);
  const std::string kept_radii = csv_rows(radii, progress.diagnostics_rows);

  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(path_, ec)) {
    const std::string name = entry.path().filename().string();
    const auto snap = snapshot_index(name);
    if ((snap && *snap >= progress.snapshots) || is_temporary_file(entry.path()) || name == kStop) {
      remove_file(entry.path());
    }
  }
  if (run_id_.empty()) {  // a directory of an earlier release: its checkpoints from now on carry an id
    run_id_ = run_id;
    write_file_atomic(path_ / kRunId, run_id_ + "\n");
  }
  write_file_atomic(diag, kept);
  write_file_atomic(radii, kept_radii);
  write_file_atomic(path_ / kConfig, to_toml(resolved));
  diag_rows_ = progress.diagnostics_rows;
  radii_rows_ = progress.diagnostics_rows;
  snapshots_ = static_cast<int>(progress.snapshots);
  open_appending();
}

void RunDirectory::open_appending() {
  diag_ = open_for_append(path_ / kDiagnostics);
  radii_ = open_for_append(path_ / kLagrangian);
  log_ = open_for_append(path_ / kLog);
}

RunDirectory::~RunDirectory() {
  if (diag_ != nullptr) std::fclose(diag_);
  if (radii_ != nullptr) std::fclose(radii_);
  if (log_ != nullptr) std::fclose(log_);
}

RunDirectory::Found RunDirectory::latest_checkpoint(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) throw_input_error("resume: '" + path.string() + "' is not a directory");
  if (!fs::exists(path / kConfig) || !fs::exists(path / kDiagnostics)) {
    throw_input_error("resume: '" + path.string() + "' is not a run directory (no config.toml or diagnostics.csv)");
  }
  RunDirectoryLock::check_free(path, "resume");
  const std::string id = stored_run_id(path);
  Found found;
  for (const auto& [step, file] : checkpoints_in(path)) {
    try {
      found.checkpoint = read_checkpoint(file);
      found.file = file;
      // A checkpoint copied from another run would replace this run's files with that run's.
      if (found.checkpoint.run_id != id) {
        throw_input_error("resume: " + file.string() + " belongs to another run (run id " +
                          (found.checkpoint.run_id.empty() ? std::string("none") : found.checkpoint.run_id) +
                          ", this directory's is " + (id.empty() ? std::string("none") : id) +
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

void RunDirectory::log(std::string_view line) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  // One fprintf and one flush: the line reaches the file in one write.
  std::fprintf(log_, "%s %.*s\n", stamp, static_cast<int>(line.size()), line.data());
  std::fflush(log_);
}

void RunDirectory::append_diagnostics(const Diagnostics& d, const Diagnostics& initial) {
  if (std::fprintf(diag_, "%s\n", diagnostics_csv_row(d, initial).c_str()) < 0 || std::fflush(diag_) != 0) {
    throw_runtime_error("cannot write '" + (path_ / kDiagnostics).string() + "': " + std::strerror(errno));
  }
  ++diag_rows_;
}

void RunDirectory::append_lagrangian_radii(std::int64_t step, double time, const std::array<double, 7>& radii) {
  if (std::fprintf(radii_, "%s\n", lagrangian_csv_row(step, time, radii).c_str()) < 0 || std::fflush(radii_) != 0) {
    throw_runtime_error("cannot write '" + (path_ / kLagrangian).string() + "': " + std::strerror(errno));
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
  const fs::path file = path_ / name;
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
  flush_to_disk(diag_, path_ / kDiagnostics);
  flush_to_disk(radii_, path_ / kLagrangian);
  flush_to_disk(log_, path_ / kLog);
  const fs::path file = path_ / checkpoint_name(ck.step);
  nbody::write_checkpoint(file, ck);
  const auto all = checkpoints_in(path_);
  // Keep this one and the one before it; a newer-numbered file (from before a resume) goes too.
  std::size_t kept = 0;
  for (const auto& [step, old] : all) {
    if (step > ck.step || (step < ck.step && ++kept >= kCheckpointsKept)) remove_file(old);
  }
  return file;
}

bool RunDirectory::stop_requested() const {
  std::error_code ec;
  return fs::exists(path_ / kStop, ec);
}

void RunDirectory::clear_stop() { remove_file(path_ / kStop); }

}  // namespace nbody
