// [integrator]: the integrator, dt, the time-step mode and the step criterion's eta.
#include "integrate/parameters.hpp"

#include "integrate/names.hpp"

namespace nbody {
namespace {

// eta is the criterion of adaptive steps: Aarseth's for hermite4 (every mode), eta sqrt(eps/|a|)
// for leapfrog's auto steps.
bool uses_eta(const RunConfig& cfg) {
  return cfg.integrator == "hermite4" || (cfg.integrator == "leapfrog" && cfg.dt_mode == "auto");
}
std::string integrator_in_use(const RunConfig& cfg) {
  return cfg.integrator == "leapfrog" ? "leapfrog with --dt-mode " + cfg.dt_mode : cfg.integrator;
}

}  // namespace

ParamSection integrator_parameters() {
  using K = ParamKind;
  return {
      "integrator",
      "Integrator",
      {
          {.key = "integrator", .kind = K::text, .help = "time integrator", .choices = &integrator_names,
           .field = &RunConfig::integrator},
          {.key = "dt", .kind = K::real, .unit = "time", .help = "time step", .min = 0, .max = kRealMax,
           .min_exclusive = true, .field = &RunConfig::dt,
           .default_text = "the model's: 1/100 of its unit of time (0.01 in Henon units), 2e-5 yr for solar-system; "
                           "0.01 with --ic file:PATH"}, 
          {.key = "dt_mode", .kind = K::text,
           .help = "time steps: fixed (one step of dt), auto (shared substeps from the integrator's criterion, none "
                   "longer than dt; leapfrog, hermite4), block (individual power-of-two fractions of dt; hermite4). "
                   "dt remains the unit of steps and of the outputs",
           .choices = &dt_mode_names, .field = &RunConfig::dt_mode},
          {.key = "eta", .kind = K::real,
           .help = "accuracy parameter of the step criterion: hermite4 Aarseth's eta; leapfrog auto dt = eta "
                   "sqrt(eps/|a|max)",
           .min = 0, .max = 1, .min_exclusive = true, .field = &RunConfig::eta,
           .applicability = {&uses_eta, "--integrator hermite4 and leapfrog with --dt-mode auto",
                             &integrator_in_use}},
      },
      // dt_mode's rules (which integrators have which modes) and eta's with them.
      &check_integrator_options,
  };
}

}  // namespace nbody
