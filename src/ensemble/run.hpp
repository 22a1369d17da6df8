#pragma once
// An ensemble run from a configuration, new or resumed, through the run loop shared with
// gravity and PIC (src/run/drive.hpp): the run's "steps" are the intervals t_end / intervals,
// at whose ends every running system is checked, the progress is logged and checkpoints fall.
// With an output directory it is a run directory like the others (io/run_files.hpp: the lock,
// run_id, run.log, the stop file, checkpoint_<interval>.ckpt, the latest two kept) with the
// ensemble's own files: deck.toml (the resolved configuration), results.csv, final_states.csv
// and results.h5 (builds with HDF5). A stopped run (SIGINT, SIGTERM, the stop file) checkpoints
// and writes the results so far; resume_ensemble continues it with the same bits.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ensemble/config.hpp"
#include "ensemble/store.hpp"
#include "nbody/run.hpp"

namespace nbody::ensemble {

struct EnsembleRunResult {
  std::int64_t first_interval = 0, last_interval = 0, intervals = 0;
  std::optional<std::string> stopped_by;
  std::optional<std::filesystem::path> directory;
  std::string backend;
  double wall_seconds = 0;
  std::int64_t system_steps = 0;      // steps made by this call, summed over the systems
  std::vector<std::int64_t> outcomes;  // systems in each outcome at the end (kOutcomes)
  double worst_de = 0;                 // the largest |dE/E| over the systems at the end
};

// A new run of `c` on the systems of `s` (make_systems(c)); on return `s` holds the final state.
EnsembleRunResult run_ensemble(const EnsembleConfig& c, EnsembleStore& s, const RunHooks& hooks = {},
                               ExistingRunFiles existing = ExistingRunFiles::refuse);

// Continues the run in `dir` from its newest checkpoint that reads back whole; `overrides`
// may change only [output] and [run]. A directory without a checkpoint starts again.
EnsembleRunResult resume_ensemble(const std::filesystem::path& dir, const std::vector<std::string>& overrides,
                                  const RunHooks& hooks = {});

// The closing lines of `nbody ensemble`.
std::vector<std::string> ensemble_summary(const EnsembleRunResult& r);

// "escape 3, collision 1": the stopped systems by outcome.
std::string outcome_line(const std::vector<std::int64_t>& counts);

}  // namespace nbody::ensemble
