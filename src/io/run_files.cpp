#include "io/run_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <fstream>

#include "io/atomic_file.hpp"
#include "nbody/error.hpp"

namespace nbody {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kCheckpointsKept = 2;

std::string checkpoint_name(std::int64_t step) {
  char name[48];
  std::snprintf(name, sizeof name, "checkpoint_%010lld.ckpt", static_cast<long long>(step));
  return name;
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

// A lock file alone is what a run that failed before writing anything leaves: not a run.
void refuse_if_not_empty(const fs::path& path) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (entry.path().filename() != RunDirectoryLock::kFileName) {
      throw_input_error("out: directory '" + path.string() +
                        "' is not empty (choose another, or pass --overwrite to reuse it)");
    }
  }
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

std::optional<std::int64_t> RunFiles::numbered(const std::string& name, std::string_view prefix,
                                               std::string_view suffix) {
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

std::optional<std::int64_t> RunFiles::checkpoint_step(const std::string& file_name) {
  return numbered(file_name, "checkpoint_", ".ckpt");
}

std::vector<std::pair<std::int64_t, fs::path>> RunFiles::checkpoints(const fs::path& dir) {
  std::vector<std::pair<std::int64_t, fs::path>> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (const auto s = checkpoint_step(entry.path().filename().string())) out.emplace_back(*s, entry.path());
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  return out;
}

void RunFiles::remove(const fs::path& p) {
  std::error_code ec;
  fs::remove(p, ec);
  if (ec) throw_runtime_error("cannot remove '" + p.string() + "': " + ec.message());
}

std::string RunFiles::csv_rows(const fs::path& p, std::int64_t rows) {
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

std::FILE* RunFiles::open_for_append(const fs::path& p) {
  std::FILE* f = std::fopen(p.c_str(), "a");
  if (f == nullptr) throw_runtime_error("cannot write '" + p.string() + "': " + std::strerror(errno));
  return f;
}

void RunFiles::flush_to_disk(std::FILE* f, const fs::path& p) {
  if (f == nullptr) return;
  if (std::fflush(f) != 0 || ::fsync(::fileno(f)) != 0) {
    throw_runtime_error("cannot write '" + p.string() + "': " + std::strerror(errno));
  }
}

std::string RunFiles::stored_run_id(const fs::path& dir) {
  std::ifstream in(dir / kRunId);
  std::string id;
  in >> id;
  return id;
}

void RunFiles::check_resumable(const fs::path& path) {
  std::error_code ec;
  if (path.empty()) throw_input_error("resume: the directory is empty");
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) {
    throw_input_error("resume: '" + path.string() +
                      "' does not exist (a run killed before it created its directory has nothing to resume; start it "
                      "again with --config)");
  }
  if (!fs::is_directory(status)) throw_input_error("resume: '" + path.string() + "' is not a directory");
}

void RunFiles::check_usable(const fs::path& path, bool overwrite) {
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
  if (!overwrite) refuse_if_not_empty(path);
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

RunFiles::RunFiles(fs::path path, const std::string& run_id, bool replace_existing, const IsRunFile& earlier)
    : path_(std::move(path)), run_id_(run_id) {
  std::error_code ec;
  fs::create_directories(path_, ec);
  if (ec) throw_input_error("out: cannot create directory '" + path_.string() + "': " + ec.message());
  lock_ = std::make_unique<RunDirectoryLock>(path_, "out");
  // Checked again under the lock: another run may have filled it since check_usable.
  if (!replace_existing) refuse_if_not_empty(path_);
  // A reused directory (--overwrite) starts over: the files of an earlier run would otherwise
  // mix with this one's (an old checkpoint would be taken for this run's latest).
  for (const auto& entry : fs::directory_iterator(path_, ec)) {
    const std::string name = entry.path().filename().string();
    if (name == kLog || name == kStop || checkpoint_step(name) || is_temporary_file(entry.path()) ||
        (earlier && earlier(name))) {
      if (entry.is_directory()) {
        fs::remove_all(entry.path(), ec);
        if (ec) throw_runtime_error("cannot remove '" + entry.path().string() + "': " + ec.message());
      } else {
        remove(entry.path());
      }
    }
  }
  write_file_atomic(path_ / kRunId, run_id_ + "\n");
  log_ = open_for_append(path_ / kLog);
}

RunFiles::RunFiles(fs::path path, const std::string& what) : path_(std::move(path)) {
  lock_ = std::make_unique<RunDirectoryLock>(path_, what);
  run_id_ = stored_run_id(path_);
}

void RunFiles::continue_run(const std::string& fallback_id) {
  std::error_code ec;
  // (the temporaries in the run's folders too: a run killed while writing an image leaves one there)
  std::vector<fs::path> stale;
  for (const auto& entry : fs::recursive_directory_iterator(path_, ec))
    if (is_temporary_file(entry.path()) || (entry.path().parent_path() == path_ && entry.path().filename() == kStop))
      stale.push_back(entry.path());
  for (const fs::path& p : stale) remove(p);
  if (run_id_.empty()) {  // a directory of an earlier release: its checkpoints from now on carry an id
    run_id_ = fallback_id;
    write_file_atomic(path_ / kRunId, run_id_ + "\n");
  }
  log_ = open_for_append(path_ / kLog);
}

RunFiles::~RunFiles() {
  if (log_ != nullptr) std::fclose(log_);
}

void RunFiles::log(std::string_view line) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  // One fprintf and one flush: the line reaches the file in one write.
  std::fprintf(log_, "%s %.*s\n", stamp, static_cast<int>(line.size()), line.data());
  std::fflush(log_);
}

void RunFiles::sync_log() { flush_to_disk(log_, path_ / kLog); }

bool RunFiles::stop_requested() const {
  std::error_code ec;
  return fs::exists(path_ / kStop, ec);
}

void RunFiles::clear_stop() { remove(path_ / kStop); }

fs::path RunFiles::checkpoint_path(std::int64_t step) const { return path_ / checkpoint_name(step); }

void RunFiles::keep_latest_checkpoints(std::int64_t step) {
  // Keep this one and the one before it; a newer-numbered file (from before a resume) goes too.
  std::size_t kept = 0;
  for (const auto& [s, old] : checkpoints(path_)) {
    if (s > step || (s < step && ++kept >= kCheckpointsKept)) remove(old);
  }
}

}  // namespace nbody
