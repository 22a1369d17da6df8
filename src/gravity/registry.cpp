// Backend names and construction. The only place that knows which backends exist.
#include <string>

#include "gravity/backend.hpp"
#include "gravity/direct/cpu_backend.hpp"
#include "nbody/error.hpp"
#if NBODY_HAVE_CUDA
#include "cuda/device.hpp"
#include "gravity/direct/cuda/cuda_backend.hpp"
#endif

namespace nbody {

std::vector<std::string> backend_names() { return {"auto", "cpu", "cuda", "cpu-reference"}; }
std::vector<std::string> device_names() { return {"auto", "cpu", "cuda"}; }
std::vector<std::string> gravity_names() { return {"direct", "reference"}; }

SolverChoice solver_choice_of_backend(std::string_view backend) {
  if (backend == "auto") return {"auto", "direct"};
  if (backend == "cpu") return {"cpu", "direct"};
  if (backend == "cuda") return {"cuda", "direct"};
  if (backend == "cpu-reference") return {"cpu", "reference"};
  throw_input_error("backend: unknown backend '" + std::string(backend) + "' (choose auto, cpu, cuda or cpu-reference)");
}

std::string resolve_device(std::string_view requested) {
  if (requested != "auto") return std::string(requested);
  return cuda_device_available() ? "cuda" : "cpu";
}

std::vector<std::string> softening_law_names() { return {"plummer", "spline"}; }

SofteningLaw parse_softening_law(std::string_view name, std::string_view what) {
  if (name == "plummer") return SofteningLaw::plummer;
  if (name == "spline") return SofteningLaw::spline;
  throw_input_error(std::string(what) + ": unknown softening law '" + std::string(name) + "' (choose plummer or spline)");
}

bool cuda_device_available(std::string* why) {
#if NBODY_HAVE_CUDA
  return cuda::query_device(0, nullptr, why);
#else
  if (why) *why = "this build of nbody has no CUDA support (configure with -DNBODY_ENABLE_CUDA=ON)";
  return false;
#endif
}

std::string resolve_backend(std::string_view requested) {
  if (requested != "auto") return std::string(requested);
  return cuda_device_available() ? "cuda" : "cpu";
}

template <class T>
std::unique_ptr<Backend<T>> make_backend(std::string_view requested, std::size_t n, const GravityParams& gravity,
                                         bool mixed, std::string_view kernel_shape) {
  const std::string name = resolve_backend(requested);
  if (!kernel_shape.empty() && name != "cuda") {
    throw_input_error("kernel shape: only the cuda backend has launch shapes, not " + name);
  }
  if (name == "cpu") return make_cpu_backend<T>(mixed ? CpuMethod::simd_mixed : CpuMethod::simd, n, gravity);
  // The oracle computes in float64 whatever is asked.
  if (name == "cpu-reference") return make_cpu_backend<T>(CpuMethod::reference, n, gravity);
  if (name == "cuda") {
#if NBODY_HAVE_CUDA
    return make_cuda_backend<T>(n, gravity, mixed, kernel_shape);
#else
    std::string why;
    (void)cuda_device_available(&why);
    throw_input_error("backend: cuda is not available: " + why);
#endif
  }
  throw_input_error("backend: unknown backend '" + name + "' (choose auto, cpu, cuda or cpu-reference)");
}

template std::unique_ptr<Backend<float>> make_backend<float>(std::string_view, std::size_t, const GravityParams&,
                                                             bool, std::string_view);
template std::unique_ptr<Backend<double>> make_backend<double>(std::string_view, std::size_t, const GravityParams&,
                                                               bool, std::string_view);

}  // namespace nbody
