#pragma once
// openPMD 1.1.0 output (file-based iteration encoding, HDF5): meshes E, B, J (x, y, z) and rho on
// the Yee grid with their staggering in `position`, and the particle species (position x, y,
// momentum x, y, z, weighting, charge, mass), with unitSI / unitDimension from the laser
// wavelength. Readable by h5py, openPMD-api and yt's openPMD frontend. Each file is written to a
// temporary name and renamed (atomic).
#include <cstdint>
#include <string>

#include "pic/cpu/simulation.hpp"

namespace nbody::pic {

[[nodiscard]] bool openpmd_available();  // false in a build without HDF5
// Writes <dir>/pic_<step>.h5 (step zero-padded to 8 digits); returns the path.
std::string write_openpmd(const std::string& dir, const PicSimulation& sim, double wavelength_m);

}  // namespace nbody::pic
