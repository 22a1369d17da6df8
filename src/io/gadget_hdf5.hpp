#pragma once
// HDF5 snapshots in the GADGET-4 layout, readable by yt, pynbody and h5py:
//   /Header      NumPart_ThisFile, NumPart_Total (uint64[6]), NumPart_Total_HighWord (uint32[6]),
//                MassTable (double[6], zero: masses are per particle), Time, Redshift = 0,
//                BoxSize = 0 (open boundaries), NumFilesPerSnapshot = 1, Flag_DoublePrecision,
//                Code = "nbody", Code_Version
//   /PartType1   Coordinates (N x 3), Velocities (N x 3), Masses (N) in the run's precision;
//                ParticleIDs (N, uint64)
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
// /Parameters only (no particles).
[[nodiscard]] ParticleFileData read_gadget_hdf5(const std::filesystem::path& path,
                                                FileRead what = FileRead::everything);

}  // namespace nbody
