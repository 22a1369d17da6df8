// Uses the installed engine through its public headers alone: a Plummer cluster advanced on the
// engine's choice of device (the CPU where no GPU is usable), which must keep its energy and
// momentum; a bad configuration must be refused as an input error. Exit status 1 on any failure.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "nbody/diagnostics.hpp"
#include "nbody/error.hpp"
#include "nbody/simulation.hpp"
#include "nbody/version.hpp"

namespace {

int failures = 0;

void check(bool ok, const char* what, double value) {
  std::printf("%-44s %-4s %.6g\n", what, ok ? "ok" : "FAIL", value);
  if (!ok) ++failures;
}

}  // namespace

int main() {
  check(std::strcmp(nbody::kVersion, NBODY_EXPECTED_VERSION) == 0, "version.hpp matches the package", 0);

  nbody::RunConfig cfg;
  cfg.ic = "plummer";
  cfg.n = 512;
  cfg.seed = 3;
  cfg.device = "auto";
  cfg.precision = "fp64";
  cfg.integrator = "leapfrog";
  cfg.dt = 0.01;
  cfg.softening = 0.01;
  try {
    auto sim = nbody::Simulation::create(cfg);
    std::printf("backend %s on %s, %zu bodies\n", sim->backend_name().c_str(), sim->device_name().c_str(), sim->size());
    const nbody::Diagnostics d0 = sim->diagnostics();
    const double x0 = sim->particles().x.at(0);
    sim->advance(100);
    const nbody::Diagnostics d1 = sim->diagnostics();

    check(sim->step_count() == 100, "steps taken", double(sim->step_count()));
    check(std::abs(sim->time() - 1.0) < 1e-12, "time reached", sim->time());
    check(sim->particles().x.at(0) != x0, "bodies moved", sim->particles().x.at(0) - x0);
    // A Plummer model in Henon units: E = -1/4 (the softening shifts it a little), in equilibrium.
    check(std::abs(d0.total + 0.25) < 0.02, "initial energy near -1/4", d0.total);
    check(d1.virial_ratio > 0.8 && d1.virial_ratio < 1.2, "virial ratio near 1 after the run", d1.virial_ratio);
    // Leapfrog with dt = 0.01 over one time unit keeps the energy to about 1e-5.
    const double de = nbody::relative_energy_error(d1, d0.total);
    check(de < 1e-3, "energy conserved |dE/E0| < 1e-3", de);
    const double dp = nbody::momentum_drift(d1, d0);
    check(dp < 1e-10, "momentum conserved |P - P0| < 1e-10", dp);
  } catch (const std::exception& e) {
    std::printf("FAIL: the simulation threw: %s\n", e.what());
    return 1;
  }

  nbody::RunConfig bad = cfg;
  bad.ic = "no-such-model";
  bool refused = false;
  try {
    (void)nbody::Simulation::create(bad);
  } catch (const nbody::Error& e) {
    refused = e.kind() == nbody::ErrorKind::input && std::string(e.what()).find("no-such-model") != std::string::npos;
    std::printf("refused: %s\n", e.what());
  }
  check(refused, "an unknown model is an input error", 0);

  std::printf("%s\n", failures == 0 ? "consumer: all checks passed" : "consumer: FAILED");
  return failures == 0 ? 0 : 1;
}
