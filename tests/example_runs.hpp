#pragma once
// Running an example of examples/ in the test process, to check what its comment says it does:
// its configuration read as `nbody run --config` reads it (the CPU backend), then advanced with a
// look at the state every few steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nbody/config.hpp"
#include "nbody/diagnostics.hpp"
#include "nbody/simulation.hpp"

namespace nbody::test {

// examples/<name> as `nbody run --config` reads it, on the CPU.
inline RunConfig example_config(const std::string& name) {
  RunConfig cfg;
  apply_toml_file(cfg, std::string(NBODY_EXAMPLES) + "/" + name);
  if (cfg.device == "auto") cfg.device = "cpu";
  cfg.out.clear();
  validate(cfg);
  return cfg;
}

// The run of cfg for cfg.steps steps: look(sim) at the start and after every `every` steps.
inline void follow_run(const RunConfig& cfg, std::int64_t every, const std::function<void(Simulation&)>& look) {
  auto sim = Simulation::create(cfg);
  look(*sim);
  while (sim->step_count() < cfg.steps) {
    sim->advance(std::min(every, cfg.steps - sim->step_count()));
    look(*sim);
  }
}

// One sample of a run's diagnostics with the derived numbers the examples state.
struct Sample {
  double time = 0;
  double energy_error = 0;  // |E - E0| / |E0|
  double virial = 0;        // 2K / |W|
  Diagnostics diag;
};

// The run's diagnostics every `every` steps (the first at t = 0).
inline std::vector<Sample> diagnostics_of_run(const RunConfig& cfg, std::int64_t every,
                                              const std::function<void(Simulation&)>& also = {}) {
  std::vector<Sample> out;
  double e0 = 0;
  follow_run(cfg, every, [&](Simulation& sim) {
    Sample s;
    s.diag = sim.diagnostics();
    if (out.empty()) e0 = s.diag.total;
    s.time = sim.time();
    s.energy_error = relative_energy_error(s.diag, e0);
    s.virial = s.diag.virial_ratio;
    out.push_back(s);
    if (also) also(sim);
  });
  return out;
}

inline double largest_energy_error(const std::vector<Sample>& run) {
  double worst = 0;
  for (const auto& s : run) worst = std::max(worst, s.energy_error);
  return worst;
}

}  // namespace nbody::test
