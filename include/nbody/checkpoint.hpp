#pragma once
// Everything a run needs to continue exactly where it stopped. Simulation::checkpoint() fills
// the simulation's part; the program that runs it adds its own (RunProgress). Written and read
// by src/io/checkpoint.cpp (binary, checksummed; see docs/ARCHITECTURE.md).
#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "nbody/config.hpp"
#include "nbody/diagnostics.hpp"
#include "nbody/particles.hpp"

namespace nbody {

// State owned by one component and interpreted only by it: `tag` names the owner and its
// format (an integrator's name), `bytes` is its own encoding.
struct TaggedBlob {
  std::string tag;
  std::vector<std::uint8_t> bytes;
  bool operator==(const TaggedBlob&) const = default;
};

// What the run's outputs looked like at the checkpoint, so a resumed run continues them
// without duplicates and with the same bytes: rows of diagnostics.csv (and of
// lagrangian_radii.csv, which has a row for each), snapshots written on schedule, and the
// step-0 state the drift columns are measured from: the initial diagnostics (E0, P0, L0) and
// the initial Lagrangian radii.
struct RunProgress {
  Diagnostics initial;
  std::array<double, 7> initial_radii{};
  std::int64_t diagnostics_rows = 0;
  std::int64_t snapshots = 0;
  bool operator==(const RunProgress&) const = default;
};

struct Checkpoint {
  RunConfig config;  // the resolved configuration (backend resolved, n from the state)
  std::int64_t step = 0;
  double time = 0;
  // The particle state in the run's precision, exact bits (ids included: the initial
  // conditions are not drawn again, so no generator state is needed).
  std::variant<Particles<float>, Particles<double>> state;
  TaggedBlob integrator;  // tag = the integrator's name; bytes empty for euler and leapfrog
  // State the force solver carries between passes (ForceSolver::save_state: the tree's relative
  // criterion's |a| history); no tag where it has none, and in checkpoints of earlier versions.
  TaggedBlob solver;
  RunProgress progress;
  // The run it belongs to (the run directory's run id; see src/io/run_directory.hpp). Empty in
  // checkpoints of earlier releases, and from Simulation::checkpoint().
  std::string run_id;
};

}  // namespace nbody
