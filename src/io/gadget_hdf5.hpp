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

namespace nbody {

// The 8 bytes every HDF5 file starts with.
inline constexpr char kHdf5Signature[] = "\x89HDF\r\n\x1a\n";

// Writes atomically; the file's bytes depend only on the data (no timestamps), so the same
// state gives the same file.
void write_gadget_hdf5(const std::filesystem::path& path, const Particles<double>& p, const SnapshotMeta& meta);
// Reads every PartType0..5 group present as point masses (Masses, or MassTable where a type has
// none). A single-file snapshot only. FileRead::metadata reads the header, /Units and
// /Parameters only (no particles).
[[nodiscard]] ParticleFileData read_gadget_hdf5(const std::filesystem::path& path,
                                                FileRead what = FileRead::everything);

}  // namespace nbody
