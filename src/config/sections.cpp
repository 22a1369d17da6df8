// The schema, assembled: each subsystem's section in the order they are documented, written to
// config.toml and listed by --help. The one place that knows every section; a new subsystem adds
// its section here (a function call, not a static registration, which a static library's
// linker would drop).
#include <cmath>

#include "config/schema.hpp"
#include "gravity/parameters.hpp"
#include "ic/parameters.hpp"
#include "integrate/parameters.hpp"
#include "io/parameters.hpp"
#include "nbody/config.hpp"
#include "nbody/error.hpp"

namespace nbody {
namespace {

// The clock must move: at a start time of 1e17 a step of 0.01 rounds away (t + dt == t), and
// the run would step forever at one time. The last step's time must be a number too.
void check_run(const RunConfig& cfg) {
  if (!(cfg.start_time + cfg.dt != cfg.start_time)) {
    throw_input_error("--start-time: " + format_number(cfg.start_time) + " + --dt " + format_number(cfg.dt) +
                      " rounds back to " + format_number(cfg.start_time) +
                      ": the time would not advance (a step must change it in float64; give a smaller --start-time "
                      "or a larger --dt)");
  }
  if (!std::isfinite(cfg.start_time + double(cfg.steps) * cfg.dt)) {
    throw_input_error("--start-time: " + format_number(cfg.start_time) + " + " + std::to_string(cfg.steps) +
                      " steps of --dt " + format_number(cfg.dt) + " is past the largest float64 time");
  }
}

// [run]: how long, and on how many CPU threads. (It moves beside the run loop once that is a
// library of its own.)
ParamSection run_parameters() {
  return {
      "run",
      "Run",
      {
          {.key = "steps", .kind = ParamKind::integer, .help = "number of steps", .min = 0, .max = kIntMax,
           .field = &RunConfig::steps, .may_change_on_resume = true},
          {.key = "t_end", .kind = ParamKind::real, .unit = "time",
           .help = "run until this simulation time: steps = ceil((t_end - start_time) / dt); a --steps flag beside "
                   "it is refused, and --steps on a resume replaces it (0: off, --steps counts)",
           .min = 0, .max = kRealMax, .field = &RunConfig::t_end, .may_change_on_resume = true},
          {.key = "start_time", .kind = ParamKind::real, .unit = "time",
           .help = "simulation time at step 0 (0 with --ic file:PATH: the file's time; with --from: the "
                   "checkpoint's)",
           .min = -kRealMax, .max = kRealMax, .field = &RunConfig::start_time},
          {.key = "from", .kind = ParamKind::text,
           .help = "a new run continued from a checkpoint: its particles and time as the initial conditions "
                   "(a run directory: its latest checkpoint; or a .ckpt file), with the physics and output "
                   "given here; the model parameters are the checkpoint's (see README, Continuing a run)",
           .field = &RunConfig::from},
          {.key = "threads", .kind = ParamKind::integer,
           .help = "OpenMP threads of the CPU work (forces, diagnostics); 0: OMP_NUM_THREADS when set, else every "
                   "core. On a machine shared with other work fewer threads can be much faster",
           .min = 0, .max = 4096, .field = &RunConfig::threads, .may_change_on_resume = true},
      },
      &check_run,
  };
}

}  // namespace

const std::vector<ParamSection>& run_sections() {
  static const std::vector<ParamSection> sections = {run_parameters(), model_parameters(), gravity_parameters(),
                                                     integrator_parameters(), output_parameters()};
  return sections;
}

}  // namespace nbody
