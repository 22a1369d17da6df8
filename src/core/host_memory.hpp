#pragma once
#include <cstddef>
#include <string>

namespace nbody {

// Physical memory of this machine in bytes (0 when unknown).
[[nodiscard]] std::size_t host_physical_memory() noexcept;
// Memory this process can still allocate without being killed or swapping: the kernel's
// MemAvailable, within a memory cgroup's limit and the address-space limit (ulimit -v) where
// they are set; the physical memory when none is known (0 when that is unknown too).
[[nodiscard]] std::size_t host_available_memory() noexcept;
// Throws an input error naming n when `bytes` exceed the memory available on this machine.
void require_host_memory(std::size_t bytes, std::size_t n);
// "1.5 GiB"
[[nodiscard]] std::string format_bytes(double bytes);

}  // namespace nbody
