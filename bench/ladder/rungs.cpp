#include <string>

#include "gravity/names.hpp"
#include "ladder/gpu_rungs.hpp"
#include "ladder/rung.hpp"
#include "nbody/error.hpp"

namespace nbody::bench {

std::unique_ptr<Rung> make_cpu_serial(Precision precision, std::size_t n);
std::unique_ptr<Rung> make_backend_rung(const std::string& rung, const std::string& backend, Precision precision,
                                        std::size_t n, const std::string& kernel_shape);

std::vector<std::string> ladder_rung_names() {
  return {"cpu-serial", "cpu", "gpu-naive", "gpu-shared", "gpu-split", "gpu-split-unrolled", "gpu-best"};
}

const std::vector<int>& split_block_sizes() {
  static const std::vector<int> sizes = {8, 16, 32, 64, 128, 256, 512};
  return sizes;
}

std::unique_ptr<Rung> make_rung(const std::string& name, Precision precision, std::size_t n,
                                const GpuRungOptions& options) {
  if (name == "cpu-serial") return make_cpu_serial(precision, n);
  if (name == "cpu") return make_backend_rung(name, "cpu", precision, n, "");
  const bool gpu = name.rfind("gpu-", 0) == 0;
  if (!gpu) throw_input_error("rung: unknown rung '" + name + "'");
  std::string why;
  if (!cuda_device_available(&why)) throw_input_error("skipped: no CUDA device (" + why + ")");
  if (name == "gpu-best") return make_backend_rung(name, "cuda", precision, n, options.kernel_shape);
#if NBODY_HAVE_CUDA
  return make_documents_gpu_rung(name, precision, n, options);
#else
  (void)options;
  throw_input_error("skipped: no CUDA device (this build has no CUDA)");
#endif
}

}  // namespace nbody::bench
