// The schema, assembled: each subsystem's section in the order they are documented, written to
// config.toml and listed by --help. The one place that knows every section; a new subsystem adds
// its section here (a function call, not a static registration, which a static library's
// linker would drop).
#include "gravity/parameters.hpp"
#include "ic/parameters.hpp"
#include "integrate/parameters.hpp"
#include "io/parameters.hpp"
#include "nbody/config.hpp"

namespace nbody {
namespace {

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
  };
}

}  // namespace

const std::vector<ParamSection>& run_sections() {
  static const std::vector<ParamSection> sections = {run_parameters(), model_parameters(), gravity_parameters(),
                                                     integrator_parameters(), output_parameters()};
  return sections;
}

}  // namespace nbody
