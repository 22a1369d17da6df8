#pragma once
#include <cstddef>
#include <string>

namespace nbody {

// Physical memory of this machine in bytes (0 when unknown).
[[nodiscard]] std::size_t host_physical_memory() noexcept;
// Throws an input error naming n when `bytes` exceed the physical memory of this machine.
void require_host_memory(std::size_t bytes, std::size_t n);
// "1.5 GiB"
[[nodiscard]] std::string format_bytes(double bytes);

}  // namespace nbody
