#pragma once
// The names a configuration may give for where and how gravity is computed, and whether a CUDA
// device is usable. Light on purpose: the configuration schema includes it, not the solvers.
#include <string>
#include <string_view>
#include <vector>

namespace nbody {

// --device: where the particles live and the forces are computed ("auto" first).
[[nodiscard]] std::vector<std::string> device_names();  // auto, cpu, cuda
// --gravity: the force algorithm. "reference" is the float64 direct-sum oracle (CPU only).
[[nodiscard]] std::vector<std::string> gravity_names();  // direct, reference
// Whether an algorithm computes jerks (da/dt, for hermite4), known before any solver is made so
// that a configuration asking hermite4 of one that does not is refused at validation.
[[nodiscard]] bool gravity_computes_jerk(std::string_view gravity);
// --backend: the older single spelling of both (auto, cpu, cuda, cpu-reference).
[[nodiscard]] std::vector<std::string> backend_names();

// A device and an algorithm.
struct SolverChoice {
  std::string device = "auto";
  std::string gravity = "direct";
  bool operator==(const SolverChoice&) const = default;
};
// What a --backend name means: cpu = {cpu, direct}, cuda = {cuda, direct}, cpu-reference =
// {cpu, reference}, auto = {auto, direct}. Throws an input error for another name.
[[nodiscard]] SolverChoice solver_choice_of_backend(std::string_view backend);

// "auto" becomes "cuda" where a CUDA device can be used, otherwise "cpu".
[[nodiscard]] std::string resolve_device(std::string_view requested);
// True when this build has CUDA and a device is usable; otherwise why not in *why.
[[nodiscard]] bool cuda_device_available(std::string* why = nullptr);

}  // namespace nbody
