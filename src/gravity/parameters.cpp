// [gravity]: the force law and where and how it is computed. The device and the algorithm are
// two parameters; --backend, their older single spelling, is an alias of both.
#include "gravity/parameters.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "gravity/direct/distributed.hpp"
#include "gravity/names.hpp"
#include "gravity/params.hpp"
#include "gravity/tree/params.hpp"
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

// Every pair term carries 1/(r^2 + eps^2)^(3/2) <= 1/eps^3 (the spline law's kernel is of the
// same size): once eps^3 leaves the normal numbers of the precision the pair terms are computed
// in, every term underflows (or eps^2 overflows) and gravity silently vanishes. eps^3 <= 2^126
// in float32 (fp32 and mixed), 2^1020 in float64.
void check_softening(const RunConfig& cfg) {
  const bool float_terms = cfg.precision == "fp32" || cfg.precision == "mixed";
  const double limit = std::ldexp(1.0, float_terms ? 42 : 340);
  if (std::isfinite(cfg.softening) && cfg.softening <= limit) return;
  char text[96];
  std::snprintf(text, sizeof text, "softening: %g is too large for %s pair terms (at most %.4g = 2^%d", cfg.softening,
                float_terms ? "float32" : "float64", limit, float_terms ? 42 : 340);
  throw_input_error(std::string(text) +
                    ": beyond it 1/eps^3 underflows and every pair term, and so gravity, would be zero)");
}

bool uses_tree(const RunConfig& cfg) { return cfg.gravity == "tree"; }
bool uses_relative(const RunConfig& cfg) { return cfg.gravity == "tree" && cfg.tree_criterion == "relative"; }
std::string gravity_in_use(const RunConfig& cfg) { return "--gravity " + cfg.gravity; }
std::string criterion_in_use(const RunConfig& cfg) {
  return cfg.gravity == "tree" ? "--tree-criterion " + cfg.tree_criterion : "--gravity " + cfg.gravity;
}
constexpr Applicability kTree{&uses_tree, "--gravity tree", &gravity_in_use};
constexpr Applicability kRelative{&uses_relative, "--gravity tree --tree-criterion relative", &criterion_in_use};

void check_gravity(const RunConfig& cfg) {
  if (cfg.gravity == "tree" && cfg.device == "cuda" && cfg.precision == "mixed") {
    throw_input_error("--gravity tree, --device cuda: precision mixed is not available (the GPU tree computes in "
                      "fp32 or fp64); use --precision fp32 or fp64");
  }
  if (cfg.gravity == "reference" && cfg.device == "cuda") {
    throw_input_error("--gravity reference, --device cuda: the reference is the float64 oracle on the CPU; use "
                      "--device cpu (or auto) with it, or --gravity direct on cuda");
  }
  check_softening(cfg);
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
           .max = kRealMax, .field = &RunConfig::softening,
           .default_text = "the model's: 1/100 of its length unit (0.01 in Henon units), 0 for solar-system; with "
                           "--ic file:PATH the file's, else 0.01"},
          {.key = "softening_law", .kind = K::text,
           .help = "softening law: plummer, or spline (GADGET's cubic spline: Newtonian beyond 2.8 eps, the same "
                   "central potential -Gm/eps as plummer)",
           .choices = &softening_law_names, .field = &RunConfig::softening_law},
          {.key = "device", .kind = K::text,
           .help = "where the particles live and gravity is computed (auto: cuda where a device is usable)",
           .choices = &device_names, .field = &RunConfig::device},
          {.key = "gravity", .kind = K::text,
           .help = "force algorithm: direct (the O(N^2) sum), reference (the float64 direct-sum oracle, CPU only), "
                   "tree (Barnes-Hut with quadrupoles: float64 on the CPU, fp32 or fp64 on cuda)",
           .choices = &gravity_names, .field = &RunConfig::gravity},
          {.key = "theta", .kind = K::real,
           .help = "tree: opening angle of the Barnes-Hut criterion (smaller: more accurate and slower; 0 opens "
                   "every cell, the direct sum; with --tree-criterion relative, the first force pass's)",
           .min = 0, .max = 2, .field = &RunConfig::theta, .applicability = kTree},
          {.key = "tree_criterion", .kind = K::text,
           .help = "tree: opening criterion: barnes-hut (cell size over distance < theta, with the centre-of-mass "
                   "offset), or relative (GADGET's: G M l^2 <= alpha |a_old| r^4, the previous pass's |a|)",
           .choices = &gravity::tree::criterion_names, .field = &RunConfig::tree_criterion, .applicability = kTree},
          {.key = "tree_alpha", .kind = K::real,
           .help = "tree, relative criterion: force accuracy alpha (GADGET's ErrTolForceAcc)", .min = 0, .max = 1,
           .min_exclusive = true, .field = &RunConfig::tree_alpha, .applicability = kRelative},
          {.key = "tree_leaf_size", .kind = K::integer, .unit = "bodies",
           .help = "tree: a cell of at most this many bodies is a leaf (its bodies are summed directly)", .min = 1,
           .max = 1024, .field = &RunConfig::tree_leaf_size, .applicability = kTree},
          {.key = "tree_group_size", .kind = K::integer, .unit = "bodies",
           .help = "tree: targets walk the tree in groups of at most this many nearby bodies (one interaction "
                   "list each)",
           .min = 1, .max = 64, .field = &RunConfig::tree_group_size, .applicability = kTree},
          {.key = "precision", .kind = K::text,
           .help = "arithmetic: fp32, fp64, or mixed (float64 state, float32 pair terms summed in float64)",
           .choices = &precision_names, .field = &RunConfig::precision},
          {.key = "backend", .kind = K::text,
           .help = "where and how gravity is computed, in one word: cpu-reference is --device cpu --gravity "
                   "reference, the others --device NAME --gravity direct",
           .choices = &backend_names, .field = &RunConfig::device, .assign = &assign_backend,
           .value_of = &backend_of, .writes = {"device", "gravity"}},
          {.key = "distribution_exchange", .kind = K::text,
           .help = "over several ranks (mpirun): gather the accelerations after each rank's whole block, or "
                   "pipelined: in distribution_chunks pieces, each piece's gather overlapping the next piece's "
                   "forces (the same bits)",
           .choices = &exchange_names, .field = &RunConfig::distribution_exchange},
          {.key = "distribution_chunks", .kind = K::integer,
           .help = "pieces of a rank's block with --distribution-exchange pipelined", .min = 1, .max = 1024,
           .field = &RunConfig::distribution_chunks},
      },
      &check_gravity,
  };
}

}  // namespace nbody
