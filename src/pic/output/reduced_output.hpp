#pragma once
// What a field dump step writes besides (or, without HDF5, instead of) the openPMD file: small
// CSV files any tool reads, enough to follow a laser-plasma run (the density profiles, the
// fields along the middle row, the energy spectra, the x-u_x phase space).
//   profile_<step>.csv   per cell along x: x in wavelengths, each species' weight summed over y
//                        (its density times the cell area dy, in n_c c/omega0), Ey and Ez on the
//                        row j = ny / 2 (m_e c omega0 / e)
//   spectrum_<step>.csv  per species, 200 energy bins from 0 to its largest kinetic energy:
//                        species, e_lo_MeV, e_hi_MeV, weight
//   phase_<step>.csv     per species, 200 x bins (the grid's x extent) by 100 u_x bins (its
//                        u_x range): species, x_lambda, ux, weight, where the weight is not 0
// Every file is written atomically.
#include <cstdint>
#include <string>

#include "pic/cpu/simulation.hpp"

namespace nbody::pic {

void write_reduced_outputs(const std::string& dir, const PicSimulation& sim);

}  // namespace nbody::pic
