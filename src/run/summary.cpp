#include "run/summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/strings.hpp"
#include "core/units.hpp"

namespace nbody::runloop {

std::vector<std::string> announcement(const Simulation& sim, const RunConfig& cfg, const std::string& resumed_from) {
  std::vector<std::string> lines;
  if (!resumed_from.empty()) {
    lines.push_back(format_line("nbody run: resumed at step %lld (t = %s) from %s",
                           static_cast<long long>(sim.step_count()), readable_number(sim.time()).c_str(),
                           resumed_from.c_str()));
  }
  lines.push_back(format_line("nbody run: %s, N = %zu, %s, %s, dt = %g, %lld steps, softening %g, seed %lld", cfg.ic.c_str(),
                         sim.size(), cfg.precision.c_str(), cfg.integrator.c_str(), cfg.dt,
                         static_cast<long long>(cfg.steps), cfg.softening, static_cast<long long>(cfg.seed)));
  if (cfg.gravity == "tree") {
    // What runs: the device, the arithmetic of the terms (the CPU tree's are float64 whatever
    // the state's precision) and the opening criterion.
    const bool cpu = sim.backend_name() == "cpu";
    const std::string criterion =
        cfg.tree_criterion == "relative"
            ? format_line("relative alpha %g, first pass theta %g", cfg.tree_alpha, cfg.theta)
            : format_line("theta %g", cfg.theta);
    lines.push_back(format_line("gravity: tree (%s, %s, %s) on %s", sim.backend_name().c_str(),
                           cpu ? "float64 terms" : cfg.precision.c_str(), criterion.c_str(),
                           sim.device_name().c_str()));
  } else {
    lines.push_back(format_line("backend: %s (%s)", sim.backend_name().c_str(), sim.device_name().c_str()));
  }
  // config.toml holds the resolved G; an explicit -G other than the unit system's is noted.
  const UnitSystem& units = unit_system(cfg.units);
  lines.push_back(format_line("units: %s, G = %.10g", cfg.units.c_str(), cfg.gravitational_constant));
  if (std::fabs(cfg.gravitational_constant - units.G) > 1e-12 * units.G) {
    lines.push_back(format_line("note: -G %.10g overrides the %s unit system's G = %.10g", cfg.gravitational_constant,
                           cfg.units.c_str(), units.G));
  }
  if (const std::string w = softening_warning(cfg); !w.empty()) lines.push_back(w);
  return lines;
}

std::string stop_message(const RunResult& result, const RunConfig& cfg, const std::string& resume_command) {
  std::string line = format_line("stopped at step %lld of %lld (t = %s) by %s", static_cast<long long>(result.last_step),
                            static_cast<long long>(cfg.steps), readable_number(result.time).c_str(),
                            result.stopped_by.value_or("?").c_str());
  if (result.directory) {
    line += ": checkpoint written; continue with: " + resume_command + " " + result.directory->string();
  }
  return line;
}

std::vector<std::string> summary(const RunResult& result, const RadiiSummary* radii) {
  std::vector<std::string> lines;
  const std::int64_t steps = result.last_step - result.first_step;
  std::string done = "done: " + std::to_string(steps) + " steps in " + format_duration(result.wall_seconds) + " wall";
  if (result.stepping_seconds > 0 && steps > 0) {
    const double rate = double(result.interactions) / result.stepping_seconds / 1e9;
    // Outputs: the time between the chunks of steps (diagnostics, snapshots, checkpoints).
    done += format_line(" (stepping %s: %.4g steps/s, %.4g billion interactions/s; outputs %s)",
                   format_duration(result.stepping_seconds).c_str(), double(steps) / result.stepping_seconds, rate,
                   format_duration(std::max(0.0, result.wall_seconds - result.stepping_seconds)).c_str());
  }
  lines.push_back(done);
  if (const auto& b = result.block_steps; b.block_steps > 0) {
    // The block steps (NBODY6's habit): how many, how many bodies each corrected on average, and
    // whether the device looped over them without the host.
    const std::int64_t intervals = steps;
    std::string line = format_line("block steps: %llu, %.4g active bodies on average of %lld",
                                   static_cast<unsigned long long>(b.block_steps),
                                   double(b.active) / double(b.block_steps), static_cast<long long>(result.bodies));
    if (b.device_loops > 0) {
      line += format_line("; %llu of %lld intervals as one loop on the device",
                          static_cast<unsigned long long>(b.device_loops), static_cast<long long>(intervals));
    }
    lines.push_back(line);
  }
  const Diagnostics& d0 = result.initial;
  const Diagnostics& d = *result.final;
  const double de = relative_energy_error(d, d0.total);
  lines.push_back(format_line("energy: E0 = %.10g, E = %.10g, |dE/E0| = %.3e; virial ratio 2K/|W| = %.4f", d0.total, d.total,
                         de, d.virial_ratio));
  if (!(de <= kEnergyErrorWarning)) {
    lines.push_back(format_line("warning: |dE/E0| = %.3g is above %g: the time step is too long for this model (the "
                           "results are not to be trusted); run again with a smaller --dt (e.g. a quarter)",
                           de, kEnergyErrorWarning));
  }
  lines.push_back(
      format_line("momenta: |P - P0| = %.3e, |L - L0|/|L0| = %.3e", momentum_drift(d, d0), angular_momentum_drift(d, d0)));
  if (radii != nullptr) lines.push_back(format_line("half-mass radius: %.6g -> %.6g", radii->initial[4], radii->final[4]));
  if (result.directory) {
    lines.push_back(
        format_line("output: %s (config.toml, model.toml, run.log, diagnostics.csv, lagrangian_radii.csv, %d snapshots, "
               "checkpoint at step %lld)",
               result.directory->c_str(), result.snapshots, static_cast<long long>(result.last_step)));
  }
  return lines;
}

}  // namespace nbody::runloop

namespace nbody {

std::string format_duration(double s) {
  char buf[48];
  if (s < 60) {
    std::snprintf(buf, sizeof buf, "%.3g s", s);
  } else if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%d min %02d s", int(s / 60), int(s) % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%d h %02d min", int(s / 3600), (int(s) % 3600) / 60);
  }
  return buf;
}

}  // namespace nbody
