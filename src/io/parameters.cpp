// [output]: where the run writes and how often. The cadences may change when a run is resumed.
#include "io/parameters.hpp"

#include <string>

#include "comm/communicator.hpp"
#include "nbody/error.hpp"

namespace nbody {

SnapshotFields parse_snapshot_fields(std::string_view text) {
  SnapshotFields f;
  std::size_t at = 0;
  while (at <= text.size() && !text.empty()) {
    const std::size_t comma = text.find(',', at);
    const std::string_view word = text.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at);
    if (word == "acc") {
      f.acceleration = true;
    } else if (word == "pot") {
      f.potential = true;
    } else {
      throw_input_error("snapshot_fields: unknown field '" + std::string(word) +
                        "' (a comma list of acc and pot, e.g. acc,pot)");
    }
    if (comma == std::string_view::npos) break;
    at = comma + 1;
  }
  return f;
}

namespace {

// The fields need a format that carries them (GADGET-4's HDF5 datasets) and, for the
// potentials, a solver that computes them body by body (the tree).
void check_output(const RunConfig& cfg) {
  const SnapshotFields f = parse_snapshot_fields(cfg.snapshot_fields);
  if (!f.any()) return;
  if (cfg.snapshot_format != "hdf5") {
    throw_input_error("snapshot_fields: " + cfg.snapshot_fields + " needs --snapshot-format hdf5 (GADGET-4's "
                      "Acceleration and Potential datasets); " + cfg.snapshot_format + " snapshots cannot carry them");
  }
  if (comm::world().size() > 1) {
    throw_input_error("snapshot_fields: not available over several ranks (mpirun) in this version; run on one "
                      "rank, or without --snapshot-fields");
  }
  if (f.potential && cfg.gravity != "tree") {
    throw_input_error("snapshot_fields: pot needs --gravity tree (the per-body potentials come from the tree; "
                      "--gravity " + cfg.gravity + " computes the potential energy only); acc works with any gravity");
  }
}

}  // namespace

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
          {.key = "snapshot_fields", .kind = K::text,
           .help = "also write these fields, computed by the run's solver at the snapshot's time: a comma list of "
                   "acc (PartType1/Acceleration) and pot (PartType1/Potential, --gravity tree); hdf5 snapshots "
                   "only (none: the state alone)",
           .field = &RunConfig::snapshot_fields},
      },
      &check_output,
  };
}

}  // namespace nbody
