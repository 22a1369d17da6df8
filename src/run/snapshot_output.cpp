#include "run/outputs.hpp"

namespace nbody::runloop {

void SnapshotOutput::write(RunState& state) { dir_.write_snapshot(state.particles(), state.time()); }

void SnapshotOutput::finish(RunState& state, RunEnd how) {
  if (how == RunEnd::completed && !schedule_.snapshot_at(state.step())) write(state);
}

void SnapshotOutput::record_progress(RunProgress& progress) const { progress.snapshots = dir_.snapshots_written(); }

}  // namespace nbody::runloop
