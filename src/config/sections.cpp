// The schema, assembled: each subsystem's section in the order they are documented, written to
// config.toml and listed by --help. The one place that knows every section; a new subsystem adds
// its section here (a function call, not a static registration, which a static library's
// linker would drop).
#include "config/schema.hpp"
#include "gravity/parameters.hpp"
#include "ic/parameters.hpp"
#include "integrate/parameters.hpp"
#include "io/parameters.hpp"

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
