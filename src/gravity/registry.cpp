// Solver names and construction. The only place that knows which solvers exist.
#include <string>

#include "comm/block_gather.hpp"
#include "comm/communicator.hpp"
#include "gravity/direct/cpu_solvers.hpp"
#include "gravity/direct/distributed.hpp"
#include "gravity/names.hpp"
#include "gravity/solver.hpp"
#include "gravity/tree/cpu_tree.hpp"
#include "gravity/tree/cuda_tree.hpp"
#include "nbody/error.hpp"
#if NBODY_HAVE_CUDA
#include "cuda/context.hpp"
#include "cuda/device.hpp"
#include "gravity/direct/cuda/cuda_direct_solver.hpp"
#endif

namespace nbody {

std::vector<std::string> device_names() { return {"auto", "cpu", "cuda"}; }
std::vector<std::string> gravity_names() { return {"direct", "reference", "tree"}; }
bool gravity_computes_jerk(std::string_view gravity) { return gravity == "direct" || gravity == "reference"; }
std::vector<std::string> backend_names() { return {"auto", "cpu", "cuda", "cpu-reference"}; }

std::vector<std::string> softening_law_names() { return {"plummer", "spline"}; }

SofteningLaw parse_softening_law(std::string_view name, std::string_view what) {
  if (name == "plummer") return SofteningLaw::plummer;
  if (name == "spline") return SofteningLaw::spline;
  throw_input_error(std::string(what) + ": unknown softening law '" + std::string(name) + "' (choose plummer or spline)");
}

SolverChoice solver_choice_of_backend(std::string_view backend) {
  if (backend == "auto") return {"auto", "direct"};
  if (backend == "cpu") return {"cpu", "direct"};
  if (backend == "cuda") return {"cuda", "direct"};
  if (backend == "cpu-reference") return {"cpu", "reference"};
  throw_input_error("backend: unknown backend '" + std::string(backend) + "' (choose auto, cpu, cuda or cpu-reference)");
}

bool cuda_device_available(std::string* why) {
#if NBODY_HAVE_CUDA
  return cuda::query_device(0, nullptr, why);
#else
  if (why) *why = "this build of nbody has no CUDA support (configure with -DNBODY_ENABLE_CUDA=ON)";
  return false;
#endif
}

std::string resolve_device(std::string_view requested) {
  if (requested != "auto") return std::string(requested);
  return cuda_device_available() ? "cuda" : "cpu";
}

namespace {

template <class T>
std::unique_ptr<ForceSolver<T>> make_local_solver(const SolverRequest& r, const std::shared_ptr<DeviceContext>& device);

}  // namespace

// Over several ranks the single-process solver of the request computes each rank's block of
// targets and the blocks are gathered (host arrays by the communicator, device arrays by NCCL or
// through the host).
template <class T>
std::unique_ptr<ForceSolver<T>> make_solver(const SolverRequest& r, const std::shared_ptr<DeviceContext>& device) {
  auto local = make_local_solver<T>(r, device);
  if (!r.comm || r.comm->size() == 1) return local;
  auto gather = local->location().on_device() ? comm::make_device_gather(r.comm, device, r.transport)
                                               : comm::make_host_gather(r.comm);
  return std::make_unique<DistributedSolver<T>>(std::move(local), r.comm, std::move(gather), parse_exchange(r.exchange),
                                                r.exchange_chunks);
}

namespace {

template <class T>
std::unique_ptr<ForceSolver<T>> make_local_solver(const SolverRequest& r, const std::shared_ptr<DeviceContext>& device) {
  const bool mixed = r.precision == Precision::mixed;
  if (!r.kernel_shape.empty() && !(r.choice.device == "cuda" && r.choice.gravity == "direct")) {
    throw_input_error("kernel shape: only the cuda direct sum has launch shapes");
  }
  if (r.choice.gravity == "reference") {
    if (r.choice.device != "cpu") {
      throw_input_error("gravity: reference (the float64 oracle) runs on the CPU only, not on " + r.choice.device);
    }
    // The oracle computes in float64 whatever is asked.
    return make_reference_solver<T>(r.gravity);
  }
  if (r.choice.gravity == "tree") {
    if (r.choice.device == "cpu") {
      // The CPU tree computes in float64 whatever is asked (the oracle of the tree).
      return make_cpu_tree_solver<T>(r.gravity, r.tree);
    }
    if (r.choice.device != "cuda") {
      throw_input_error("device: unknown device '" + r.choice.device + "' (choose auto, cpu or cuda)");
    }
    if (mixed) {
      throw_input_error("precision: mixed is not available with --gravity tree on cuda (the GPU tree computes in "
                        "fp32 or fp64); use --precision fp32 or fp64");
    }
    if (r.comm && r.comm->size() > 1) {
      throw_input_error("gravity: tree on cuda runs on one rank (one GPU) in this version, not over " +
                        std::to_string(r.comm->size()) + " ranks; run it without mpirun, or use --device cpu");
    }
    std::string why;
    if (!device && !cuda_device_available(&why)) {
      throw_input_error("device: cuda is not available for --gravity tree: " + why +
                        "; without a GPU the tree runs on the CPU: use --device cpu");
    }
#if NBODY_HAVE_CUDA
    if (!device) throw_runtime_error("make_solver: a cuda solver needs a device context");
    return make_cuda_tree_solver<T>(device, r.n, r.gravity, r.tree, r.other_bytes);
#else
    throw_runtime_error("make_solver: unreachable without CUDA");
#endif
  }
  if (r.choice.gravity != "direct") {
    throw_input_error("gravity: unknown algorithm '" + r.choice.gravity + "' (choose direct, reference or tree)");
  }
  if (r.choice.device == "cpu") return make_cpu_direct_solver<T>(r.gravity, mixed);
  if (r.choice.device == "cuda") {
#if NBODY_HAVE_CUDA
    if (!device) throw_runtime_error("make_solver: a cuda solver needs a device context");
    return make_cuda_direct_solver<T>(device, r.n, r.gravity, mixed, r.kernel_shape, r.other_bytes);
#else
    (void)device;
    std::string why;
    (void)cuda_device_available(&why);
    throw_input_error("device: cuda (--device or --backend) is not available: " + why + "; use --device cpu");
#endif
  }
  throw_input_error("device: unknown device '" + r.choice.device + "' (choose auto, cpu or cuda)");
}

}  // namespace

template std::unique_ptr<ForceSolver<float>> make_solver<float>(const SolverRequest&,
                                                                const std::shared_ptr<DeviceContext>&);
template std::unique_ptr<ForceSolver<double>> make_solver<double>(const SolverRequest&,
                                                                  const std::shared_ptr<DeviceContext>&);

}  // namespace nbody
