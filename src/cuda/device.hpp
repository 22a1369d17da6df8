#pragma once
// What the CUDA device is, for backends, logs and benchmark JSON. No CUDA types here, so any
// translation unit may include it; it is implemented only when the build has CUDA.
#include <cstddef>
#include <string>

namespace nbody::cuda {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int max_sm_clock_khz = 0;       // the rated boost clock the driver reports
  int memory_clock_khz = 0;
  std::size_t total_memory = 0;
  std::size_t free_memory = 0;
  std::size_t l2_bytes = 0;
  std::size_t shared_per_block_optin = 0;
  int max_threads_per_block = 0;
  int driver_version = 0;   // e.g. 13000
  int runtime_version = 0;
};

// True and *info filled when device `ordinal` can be used; otherwise false and *why set.
bool query_device(int ordinal, DeviceInfo* info, std::string* why);

// "13.0" from 13000.
[[nodiscard]] std::string format_cuda_version(int v);

}  // namespace nbody::cuda
