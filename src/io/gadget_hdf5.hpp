#pragma once
// HDF5 snapshots in the GADGET-4 layout, readable by yt, pynbody and h5py:
//   /Header      NumPart_ThisFile, NumPart_Total (uint64[6]), NumPart_Total_HighWord (uint32[6]),
//                MassTable (double[6], zero: masses are per particle), Time, Redshift = 0,
//                BoxSize = 0 (open boundaries), NumFilesPerSnapshot = 1, Flag_DoublePrecision,
//                Code = "nbody", Code_Version
//   /PartType1   Coordinates (N x 3), Velocities (N x 3), Masses (N) in the run's precision;
//                ParticleIDs (N, uint64)
// Components (nbody/particles.hpp): a set with component names goes to the GADGET particle
// types by the last part of each name (after the last '.'): halo -> PartType1, disk -> 2,
// bulge -> 3, star -> 4, planet and dwarf-planet -> 5, any other name (the one-component models'
// "stars", "bodies") -> 1. NumPart_ThisFile / NumPart_Total count each type; /Header gets
// ComponentNames (fixed-length strings, by index) and ComponentTypes (int32, each component's
// type); each PartTypeN group gets Component (N, uint8: each body's tag) and, when the bodies
// are in more than one group, BodyIndex (N, uint64: each body's index in the set written), by
// which the reader restores the set's order. PartType1 is written even when empty; the other
// groups only when they hold bodies. A set without names is written as before: PartType1 alone.
//   /Units       UnitLength_in_cm, UnitMass_in_g, UnitVelocity_in_cm_per_s, UnitTime_in_s
//   /Parameters  every parameter of the resolved run configuration, one attribute each, and the
//                units where GADGET-4 records them (UnitLength_in_cm, UnitMass_in_g,
//                UnitVelocity_in_cm_per_s)
// Only compiled when NBODY_HAVE_HDF5; the declarations are here either way.
#include <filesystem>

#include "io/particle_file.hpp"

namespace nbody::comm {
class Communicator;
}

namespace nbody {

// The 8 bytes every HDF5 file starts with.
inline constexpr char kHdf5Signature[] = "\x89HDF\r\n\x1a\n";

// Writes atomically; the file's bytes depend only on the data (no timestamps), so the same
// state gives the same file.
void write_gadget_hdf5(const std::filesystem::path& path, const Particles<double>& p, const SnapshotMeta& meta);
// Whether this build writes HDF5 snapshots collectively (parallel HDF5 with MPI-IO:
// NBODY_HDF5_PARALLEL).
[[nodiscard]] inline bool parallel_hdf5_available() noexcept { return NBODY_HAVE_PARALLEL_HDF5 != 0; }
// The same file written by every rank of `c` together (collective: every rank calls it with the
// same path, metadata and particles, all N of them, as each rank of a run holds): each rank
// writes its block of the bodies (comm::block_of) as hyperslabs through collective MPI-IO
// transfers, the metadata identically. The file's bytes are those write_gadget_hdf5 gives. Still
// atomic: a temporary named by rank 0, renamed by rank 0 after every rank closed it. A failure on
// a rank is a runtime error there (the temporary removed); the program then ends every rank.
// Throws a runtime error in a build without parallel HDF5 or with a communicator that is not MPI.
void write_gadget_hdf5_collective(const std::filesystem::path& path, const Particles<double>& p,
                                  const SnapshotMeta& meta, comm::Communicator& c);
// Reads every PartType0..5 group present as point masses (Masses, or MassTable where a type has
// none). A single-file snapshot only. FileRead::metadata reads the header, /Units and
// /Parameters only (no particles). Components: /Header/ComponentNames and each group's
// Component; without names, a file of several types (GADGET's own) gets one component per type
// used, named "PartTypeN", and a file of one type one unnamed component. With BodyIndex in every
// group the bodies come back in the order they were written.
[[nodiscard]] ParticleFileData read_gadget_hdf5(const std::filesystem::path& path,
                                                FileRead what = FileRead::everything);

}  // namespace nbody
