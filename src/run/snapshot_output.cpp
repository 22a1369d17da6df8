#include "comm/communicator.hpp"
#include "run/collective_snapshot.hpp"
#include "run/outputs.hpp"

namespace nbody::runloop {

void SnapshotOutput::write(RunState& state) {
  comm::Communicator& world = comm::world();
  const Particles<double>& p = state.particles();
  (void)dir_.write_snapshot(state.time(), [&](const std::filesystem::path& file, ParticleFormat format,
                                              const SnapshotMeta& meta) {
    if (collective_snapshot(world, format)) {
      lead_collective_snapshot(world, file, p, meta);  // every rank writes its share
    } else {
      write_particle_file(file, format, p, meta);  // rank 0 alone (it holds every body)
    }
  });
}

void SnapshotOutput::finish(RunState& state, RunEnd how) {
  if (how == RunEnd::completed && !schedule_.snapshot_at(state.step())) write(state);
}

void SnapshotOutput::record_progress(RunProgress& progress) const { progress.snapshots = dir_.snapshots_written(); }

}  // namespace nbody::runloop
