#include <cstdio>
#include <string>

#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "nbody/error.hpp"

namespace nbody::cuda {

void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
  // The path from the project root (src/... or bench/...), not the build machine's.
  std::string where = file;
  for (const char* root : {"/src/", "/bench/"}) {
    if (const auto at = where.rfind(root); at != std::string::npos) {
      where = where.substr(at + 1);
      break;
    }
  }
  throw_runtime_error(std::string("CUDA error: ") + cudaGetErrorString(err) + " (" + cudaGetErrorName(err) +
                      ") in " + expr + " at " + where + ":" + std::to_string(line));
}

std::string format_cuda_version(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

bool query_device(int ordinal, DeviceInfo* info, std::string* why) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    if (why) *why = std::string(cudaGetErrorString(err));
    cudaGetLastError();  // clear, so later calls are not poisoned
    return false;
  }
  if (ordinal < 0 || ordinal >= count) {
    if (why) *why = "no CUDA device " + std::to_string(ordinal) + " (" + std::to_string(count) + " present)";
    return false;
  }
  cudaDeviceProp prop{};
  NBODY_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  DeviceInfo d;
  d.ordinal = ordinal;
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  NBODY_CUDA_CHECK(cudaDeviceGetAttribute(&d.max_sm_clock_khz, cudaDevAttrClockRate, ordinal));
  NBODY_CUDA_CHECK(cudaDeviceGetAttribute(&d.memory_clock_khz, cudaDevAttrMemoryClockRate, ordinal));
  d.total_memory = prop.totalGlobalMem;
  d.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  d.shared_per_block_optin = prop.sharedMemPerBlockOptin;
  d.max_threads_per_block = prop.maxThreadsPerBlock;
  // Free memory is a property of the current device: ask with `ordinal` current, then give the
  // calling thread its previous device back (a query has no side effect).
  int previous = 0;
  NBODY_CUDA_CHECK(cudaGetDevice(&previous));
  NBODY_CUDA_CHECK(cudaSetDevice(ordinal));
  std::size_t free_b = 0, total_b = 0;
  const cudaError_t mem = cudaMemGetInfo(&free_b, &total_b);
  NBODY_CUDA_CHECK(cudaSetDevice(previous));
  NBODY_CUDA_CHECK(mem);
  d.free_memory = free_b;
  NBODY_CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  NBODY_CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  if (info) *info = d;
  return true;
}

}  // namespace nbody::cuda
