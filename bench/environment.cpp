#include "environment.hpp"

#include <omp.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>

#include "gravity/names.hpp"
#include "nbody/version.hpp"
#if NBODY_HAVE_CUDA
#include "cuda/device.hpp"
#endif

namespace nbody::bench {

#if NBODY_HAVE_CUDA
double measure_sm_clock_mhz_cuda(int sm_count);
#endif

double measure_sm_clock_mhz() {
#if NBODY_HAVE_CUDA
  cuda::DeviceInfo d;
  if (!cuda::query_device(0, &d, nullptr)) return 0;
  return measure_sm_clock_mhz_cuda(d.sm_count);
#else
  return 0;
#endif
}

Environment describe_environment() {
  Environment e;
#if NBODY_HAVE_CUDA
  cuda::DeviceInfo d;
  if (cuda::query_device(0, &d, nullptr)) {
    e.device = d.name;
    e.sm_count = d.sm_count;
    e.sm_clock_rated_mhz = d.max_sm_clock_khz / 1000.0;
    e.memory_clock_mhz = d.memory_clock_khz / 1000.0;
    e.cuda_driver_api = cuda::format_cuda_version(d.driver_version);
    e.cuda_runtime = cuda::format_cuda_version(d.runtime_version);
  }
#endif
  // The driver's own version (580.x), which the CUDA API does not report.
  if (std::FILE* smi = popen("nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null", "r")) {
    char line[64] = {};
    if (std::fgets(line, sizeof line, smi) != nullptr) {
      std::string v(line);
      while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
      if (!v.empty()) e.driver = v;
    }
    pclose(smi);
  }
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      e.host_cpu = line.substr(line.find(':') + 2);
      break;
    }
  }
  e.host_threads = omp_get_max_threads();
  e.nbody_version = kVersion;
  e.git_revision = kGitRevision;
  char buf[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  e.timestamp = buf;
  return e;
}

}  // namespace nbody::bench
