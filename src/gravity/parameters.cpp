// [gravity]: the force law and where and how it is computed. The device and the algorithm are
// two parameters; --backend, their older single spelling, is an alias of both.
#include "gravity/parameters.hpp"

#include "config/schema.hpp"
#include "gravity/names.hpp"
#include "gravity/params.hpp"
#include "nbody/error.hpp"

namespace nbody {
namespace {

std::vector<std::string> precision_names() { return {"fp32", "fp64", "mixed"}; }

void assign_backend(RunConfig& cfg, std::string_view backend) {
  const SolverChoice c = solver_choice_of_backend(backend);
  cfg.device = c.device;
  cfg.gravity = c.gravity;
}

// cpu-reference for the oracle (which runs on the CPU whatever the device), else the device.
std::string backend_of(const RunConfig& cfg) {
  if (cfg.gravity == "reference") return cfg.device == "cuda" ? "cuda-reference" : "cpu-reference";
  return cfg.device;
}

void check_gravity(const RunConfig& cfg) {
  if (cfg.gravity == "reference" && cfg.device == "cuda") {
    throw_input_error("--gravity reference, --device cuda: the reference is the float64 oracle on the CPU; use "
                      "--device cpu (or auto) with it, or --gravity direct on cuda");
  }
}

}  // namespace

ParamSection gravity_parameters() {
  using K = ParamKind;
  return {
      "gravity",
      "Gravity",
      {
          {.key = "gravitational_constant", .short_flag = "-G", .kind = K::real,
           .help = "the gravitational constant G (0: the unit system's: 1 henon, 4.30092e-6 galactic, 4 pi^2 "
                   "solar)",
           .min = 0, .max = kRealMax, .field = &RunConfig::gravitational_constant},
          {.key = "softening", .kind = K::real, .unit = "length",
           .help = "Plummer softening length eps (the documents' eps^2 = 1e-9 is eps = 3.1623e-5)", .min = 0,
           .max = kRealMax, .field = &RunConfig::softening},
          {.key = "softening_law", .kind = K::text,
           .help = "softening law: plummer, or spline (GADGET's cubic spline: Newtonian beyond 2.8 eps, the same "
                   "central potential -Gm/eps as plummer)",
           .choices = &softening_law_names, .field = &RunConfig::softening_law},
          {.key = "device", .kind = K::text,
           .help = "where the particles live and gravity is computed (auto: cuda where a device is usable)",
           .choices = &device_names, .field = &RunConfig::device},
          {.key = "gravity", .kind = K::text,
           .help = "force algorithm: direct (the O(N^2) sum), reference (the float64 direct-sum oracle, CPU only)",
           .choices = &gravity_names, .field = &RunConfig::gravity},
          {.key = "precision", .kind = K::text,
           .help = "arithmetic: fp32, fp64, or mixed (float64 state, float32 pair terms summed in float64)",
           .choices = &precision_names, .field = &RunConfig::precision},
          {.key = "backend", .kind = K::text,
           .help = "where and how gravity is computed, in one word: cpu-reference is --device cpu --gravity "
                   "reference, the others --device NAME --gravity direct",
           .choices = &backend_names, .field = &RunConfig::device, .assign = &assign_backend,
           .value_of = &backend_of, .writes = {"device", "gravity"}},
      },
      &check_gravity,
  };
}

}  // namespace nbody
