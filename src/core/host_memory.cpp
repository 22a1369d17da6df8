#include "core/host_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>

#include "nbody/error.hpp"

namespace nbody {
namespace {

constexpr std::size_t kUnknown = std::numeric_limits<std::size_t>::max();

// The value of `key` (in kB) in a /proc file of "Key:   123 kB" lines, in bytes; kUnknown when absent.
std::size_t proc_kb(const char* file, const char* key) {
  std::ifstream in(file);
  std::string line;
  const std::size_t len = std::strlen(key);
  while (std::getline(in, line)) {
    if (line.compare(0, len, key) == 0 && line.size() > len && line[len] == ':') {
      unsigned long long kb = 0;
      if (std::sscanf(line.c_str() + len + 1, "%llu", &kb) == 1) return static_cast<std::size_t>(kb) * 1024;
    }
  }
  return kUnknown;
}

// A number in a cgroup file ("max": no limit); kUnknown when absent.
std::size_t cgroup_value(const char* file) {
  std::ifstream in(file);
  std::string text;
  if (!(in >> text) || text == "max") return kUnknown;
  try {
    return static_cast<std::size_t>(std::stoull(text));
  } catch (...) {
    return kUnknown;
  }
}

}  // namespace

std::size_t host_physical_memory() noexcept {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page);
}

std::size_t host_available_memory() noexcept {
  std::size_t have = kUnknown;
  try {
    // What the kernel can give without swapping (free memory and reclaimable caches).
    have = proc_kb("/proc/meminfo", "MemAvailable");
    // A memory cgroup's limit (a container, a batch job): what is left under it.
    const std::size_t limit = cgroup_value("/sys/fs/cgroup/memory.max");
    const std::size_t used = cgroup_value("/sys/fs/cgroup/memory.current");
    if (limit != kUnknown && used != kUnknown) have = std::min(have, limit > used ? limit - used : 0);
    // The process's address-space limit (ulimit -v), less what it maps already.
    rlimit as{};
    if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
      const std::size_t mapped = proc_kb("/proc/self/status", "VmSize");
      const auto cap = static_cast<std::size_t>(as.rlim_cur);
      if (mapped != kUnknown) have = std::min(have, cap > mapped ? cap - mapped : 0);
    }
  } catch (...) {
    have = kUnknown;
  }
  if (have == kUnknown) return host_physical_memory();
  return have;
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 5) {
    bytes /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g %s", bytes, units[u]);
  return buf;
}

void require_host_memory(std::size_t bytes, std::size_t n) {
  const std::size_t have = host_available_memory();
  if (have != 0 && bytes > have) {
    throw_input_error("n: " + std::to_string(n) + " bodies need " + format_bytes(double(bytes)) +
                      " of host memory, but this machine has " + format_bytes(double(have)) + " available");
  }
}

}  // namespace nbody
