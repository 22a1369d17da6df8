#pragma once
// The files every run directory has, whatever the physics (gravity's RunDirectory and PIC's
// PicRunDirectory are built on it):
//   .nbody.lock              held (flock) by the process writing the directory (RunDirectoryLock)
//   run_id                   the run's id: every checkpoint carries it, and a checkpoint of
//                            another run is refused on resume
//   run.log                  what the run said, each line with a UTC timestamp
//   stop                     created by the user: the run checkpoints and exits between steps
//   checkpoint_SSSSSSSSSS.ckpt  restart checkpoints at step S: the latest two are kept
// A new run refuses a directory that holds files (unless it replaces them: --overwrite); a
// resumed run takes the lock and drops what a killed run left half-written.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nbody {

// An exclusive lock on a run directory (flock on DIR/.nbody.lock, held until destroyed; the
// kernel releases it when the process dies). The file holds "pid P on host H" of the holder.
class RunDirectoryLock {
 public:
  // Creates the lock file if needed and takes the lock; an input error naming the holder when
  // another process has it (`what` starts the message: "out", "resume").
  RunDirectoryLock(const std::filesystem::path& dir, const std::string& what);
  ~RunDirectoryLock();
  RunDirectoryLock(const RunDirectoryLock&) = delete;
  RunDirectoryLock& operator=(const RunDirectoryLock&) = delete;

  // Without creating or writing anything: an input error naming the holder when a process holds
  // the lock of `dir` (nothing when there is no lock file).
  static void check_free(const std::filesystem::path& dir, const std::string& what);
  static constexpr const char* kFileName = ".nbody.lock";

 private:
  int fd_ = -1;
};

class RunFiles {
 public:
  // The physics' own files of an earlier run, removed with the common ones by --overwrite.
  using IsRunFile = std::function<bool(const std::string& file_name)>;

  // Checks that `path` can hold a new run without writing anything: an input error when it is
  // a file, or a directory that already holds files (unless overwrite), or not writable.
  static void check_usable(const std::filesystem::path& path, bool overwrite);
  // The directory a resume names: an input error when it does not exist (the run died before
  // creating it, or the path is wrong) or is not a directory.
  static void check_resumable(const std::filesystem::path& path);

  // A new run: creates the directory and takes its lock (an input error when another process
  // holds it, or when the directory holds files and !replace_existing), removes an earlier run's
  // files (the common ones and those `earlier` names), writes run_id and starts run.log.
  RunFiles(std::filesystem::path path, const std::string& run_id, bool replace_existing, const IsRunFile& earlier);
  // A run continued from one of its checkpoints: takes the lock (`what` names the request in a
  // refusal) and reads run_id; nothing is changed before continue_run, so that the caller can
  // still refuse with the directory as it was.
  RunFiles(std::filesystem::path path, const std::string& what);
  // Removes temporary files of a killed run (in its folders too) and a stop file, gives a directory without a run_id
  // (of an earlier release) `fallback_id`, and appends to run.log from now on.
  void continue_run(const std::string& fallback_id);
  ~RunFiles();
  RunFiles(const RunFiles&) = delete;
  RunFiles& operator=(const RunFiles&) = delete;

  // One line in run.log with a timestamp, in one write.
  void log(std::string_view line);
  // run.log flushed to disk (before a checkpoint, so the log is never behind it).
  void sync_log();

  [[nodiscard]] bool stop_requested() const;  // a file named "stop" exists
  void clear_stop();

  // Where the checkpoint of `step` goes; once it is whole, keep_latest_checkpoints(step) removes
  // those older than the one before it and any newer-numbered one (from before a resume).
  [[nodiscard]] std::filesystem::path checkpoint_path(std::int64_t step) const;
  void keep_latest_checkpoints(std::int64_t step);
  // The checkpoint files of `dir`, highest step first.
  [[nodiscard]] static std::vector<std::pair<std::int64_t, std::filesystem::path>> checkpoints(
      const std::filesystem::path& dir);
  // The step of a checkpoint file's name, or none.
  [[nodiscard]] static std::optional<std::int64_t> checkpoint_step(const std::string& file_name);

  // The run_id file of `dir`; empty when there is none (a directory of an earlier release).
  [[nodiscard]] static std::string stored_run_id(const std::filesystem::path& dir);

  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  [[nodiscard]] const std::string& run_id() const noexcept { return run_id_; }

  // The number in "<prefix><digits><suffix>", or none when `name` is not of that form.
  [[nodiscard]] static std::optional<std::int64_t> numbered(const std::string& name, std::string_view prefix,
                                                            std::string_view suffix);
  // Removes a file (a runtime error naming it when that fails).
  static void remove(const std::filesystem::path& file);
  // Flushes a file opened for appending to disk (a runtime error naming `p` when that fails).
  static void flush_to_disk(std::FILE* f, const std::filesystem::path& p);
  // The header and the first `rows` complete rows of the CSV file `p` (a last line without its
  // newline is incomplete): what a resumed run keeps; an input error when it has fewer.
  [[nodiscard]] static std::string csv_rows(const std::filesystem::path& p, std::int64_t rows);
  // Opens `p` for appending (a runtime error naming it when that fails).
  [[nodiscard]] static std::FILE* open_for_append(const std::filesystem::path& p);

  static constexpr const char* kLog = "run.log";
  static constexpr const char* kStop = "stop";
  static constexpr const char* kRunId = "run_id";

 private:
  std::filesystem::path path_;
  std::unique_ptr<RunDirectoryLock> lock_;  // taken before anything is read, written or removed
  std::string run_id_;
  std::FILE* log_ = nullptr;
};

}  // namespace nbody
