#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "nbody/error.hpp"

namespace nbody {
namespace {

constexpr std::string_view kTmpMarker = ".tmp.";

std::filesystem::path temporary_for(const std::filesystem::path& path) {
  return path.string() + std::string(kTmpMarker) + std::to_string(::getpid());
}

[[noreturn]] void fail(const std::filesystem::path& path, const std::filesystem::path& tmp, int err) {
  ::unlink(tmp.c_str());
  throw_runtime_error("cannot write '" + path.string() + "': " + std::strerror(err));
}

// Flushes the temporary file to disk, renames it over `path`, and flushes the directory entry.
void commit(const std::filesystem::path& path, const std::filesystem::path& tmp) {
  const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, tmp, errno);
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    fail(path, tmp, err);
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail(path, tmp, errno);
  std::filesystem::path dir = path.parent_path();
  if (dir.empty()) dir = ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);  // best effort: the rename itself is already atomic for readers
    ::close(dfd);
  }
}

}  // namespace

void write_file_atomic(const std::filesystem::path& path, std::string_view content) {
  replace_file_atomic(path, [&](const std::filesystem::path& tmp) {
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw_runtime_error("cannot write '" + path.string() + "': " + std::strerror(errno));
    const char* p = content.data();
    std::size_t left = content.size();
    while (left > 0) {
      const ssize_t w = ::write(fd, p, left);
      if (w < 0) {
        if (errno == EINTR) continue;
        const int err = errno;
        ::close(fd);
        throw_runtime_error("cannot write '" + path.string() + "': " + std::strerror(err));
      }
      p += w;
      left -= static_cast<std::size_t>(w);
    }
    if (::close(fd) != 0) throw_runtime_error("cannot write '" + path.string() + "': " + std::strerror(errno));
  });
}

void replace_file_atomic(const std::filesystem::path& path,
                         const std::function<void(const std::filesystem::path& tmp)>& write_tmp) {
  const std::filesystem::path tmp = temporary_for(path);
  try {
    write_tmp(tmp);
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  commit(path, tmp);
}

std::filesystem::path temporary_path_for(const std::filesystem::path& path) { return temporary_for(path); }

void commit_temporary(const std::filesystem::path& path, const std::filesystem::path& tmp) { commit(path, tmp); }

bool is_temporary_file(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  const auto at = name.rfind(kTmpMarker);
  if (at == std::string::npos || at + kTmpMarker.size() == name.size()) return false;
  for (std::size_t i = at + kTmpMarker.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
  }
  return true;
}

}  // namespace nbody
