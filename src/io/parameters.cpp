// [output]: where the run writes and how often. The cadences may change when a run is resumed.
#include "io/parameters.hpp"

#include "config/schema.hpp"

namespace nbody {

ParamSection output_parameters() {
  using K = ParamKind;
  return {
      "output",
      "Output",
      {
          {.key = "out", .kind = K::text,
           .help = "run directory for the configuration, diagnostics and snapshots (none: no files)",
           .field = &RunConfig::out},
          {.key = "snapshot_every", .kind = K::integer, .unit = "steps",
           .help = "write a snapshot every K steps (0: first and last only)", .min = 0, .max = kIntMax,
           .field = &RunConfig::snapshot_every, .may_change_on_resume = true},
          {.key = "diag_every", .kind = K::integer, .unit = "steps",
           .help = "record diagnostics every K steps (0: first and last only)", .min = 0, .max = kIntMax,
           .field = &RunConfig::diag_every, .may_change_on_resume = true},
          {.key = "snapshot_every_t", .kind = K::real, .unit = "time",
           .help = "also write a snapshot each time the simulation time passes a multiple of T (0: off)", .min = 0,
           .max = kRealMax, .field = &RunConfig::snapshot_every_t, .may_change_on_resume = true},
          {.key = "snapshot_format", .kind = K::text, .help = "file format of the snapshots",
           .choices = &snapshot_format_names, .field = &RunConfig::snapshot_format},
          {.key = "checkpoint_every", .kind = K::integer, .unit = "steps",
           .help = "write a restart checkpoint every K steps (0: only at the end and when stopped)", .min = 0,
           .max = kIntMax, .field = &RunConfig::checkpoint_every, .may_change_on_resume = true},
          {.key = "checkpoint_every_s", .kind = K::real, .unit = "s",
           .help = "also write a checkpoint every S seconds of wall-clock time, so that a run killed by a scheduler "
                   "loses at most that much (0: off)",
           .min = 0, .max = kRealMax,
           .field = &RunConfig::checkpoint_every_s, .may_change_on_resume = true},
      },
  };
}

}  // namespace nbody
