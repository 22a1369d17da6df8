#pragma once
// HDF5 snapshots written by every rank of a run together (parallel HDF5). Only rank 0 runs the
// outputs (run_loop.cpp: the other ranks follow its chunk broadcasts), so rank 0 tells the others
// when a snapshot is due: in place of a chunk length it broadcasts kSignalSnapshot, then the
// snapshot's path and metadata, and every rank calls write_gadget_hdf5_collective with its copy
// of the state. After the last outputs (a run's final snapshot comes after its last chunk) rank 0
// broadcasts kSignalOutputsDone, and the other ranks return.
#include <cstdint>
#include <filesystem>

#include "comm/communicator.hpp"
#include "io/particle_file.hpp"
#include "nbody/particles.hpp"

namespace nbody::runloop {

// What rank 0 broadcasts besides chunk lengths (> 0) and the end of the stepping (0).
inline constexpr std::int64_t kSignalSnapshot = -1;
inline constexpr std::int64_t kSignalOutputsDone = -2;

// Whether snapshots of `format` are written by all ranks of `c` together: HDF5 in a build with
// parallel HDF5, over more than one MPI rank.
[[nodiscard]] bool collective_snapshot(const comm::Communicator& c, ParticleFormat format);

// Rank 0: the signal, the path and metadata to the other ranks, then its part of the write.
void lead_collective_snapshot(comm::Communicator& c, const std::filesystem::path& file, const Particles<double>& p,
                              const SnapshotMeta& meta);
// The other ranks, after kSignalSnapshot: the path and metadata from rank 0, then their part.
void follow_collective_snapshot(comm::Communicator& c, const Particles<double>& p);

}  // namespace nbody::runloop
