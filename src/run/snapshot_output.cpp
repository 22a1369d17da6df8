#include <optional>
#include <vector>

#include "comm/communicator.hpp"
#include "io/parameters.hpp"
#include "run/collective_snapshot.hpp"
#include "run/outputs.hpp"

namespace nbody::runloop {

void SnapshotOutput::write(RunState& state) {
  comm::Communicator& world = comm::world();
  const Particles<double>& p = state.particles();
  // --snapshot-fields (one rank only: the configuration's check refuses them over several), by
  // the run's solver at this state.
  const SnapshotFields fields = parse_snapshot_fields(state.config().snapshot_fields);
  std::optional<Accelerations<double>> acc;
  std::optional<std::vector<double>> phi;
  if (fields.acceleration) acc = state.simulation().accelerations();
  if (fields.potential) phi = state.simulation().potentials();
  (void)dir_.write_snapshot(state.time(), [&](const std::filesystem::path& file, ParticleFormat format,
                                              const SnapshotMeta& given) {
    SnapshotMeta meta = given;
    meta.acceleration = acc ? &*acc : nullptr;
    meta.potential = phi ? &*phi : nullptr;
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
