#include "core/host_memory.hpp"

#include <unistd.h>

#include <cstdio>

#include "nbody/error.hpp"

namespace nbody {

std::size_t host_physical_memory() noexcept {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page);
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
  const std::size_t have = host_physical_memory();
  if (have != 0 && bytes > have) {
    throw_input_error("n: " + std::to_string(n) + " bodies need " + format_bytes(double(bytes)) +
                      " of host memory, but this machine has " + format_bytes(double(have)));
  }
}

}  // namespace nbody
