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
//
// The histograms (ReducedData) are made where the particles are: from a host state
// (reduce_on_host), or on the GPU (PicGpu::reduced, the same bins from the same float64
// arithmetic; the weights summed in another order), and only they cross to the host.
#include <cstdint>
#include <string>
#include <vector>

#include "pic/cpu/simulation.hpp"

namespace nbody::pic {

inline constexpr int kEnergyBins = 200, kPhaseXBins = 200, kPhaseUBins = 100;

// The histograms of one species.
struct SpeciesReduction {
  std::vector<double> profile;    // weight per cell column i = floor((x - x0) / dx), nx values
  double top_mev = 0;             // the largest kinetic energy (0: no particle or none moving)
  std::vector<double> spectrum;   // kEnergyBins weights over [0, top_mev] (empty where top_mev is 0)
  bool live = false;              // any live particle (none: no phase space)
  double u0 = 0, du = 1;          // the phase space's u_x origin and bin width
  std::vector<double> phase;      // kPhaseXBins x kPhaseUBins weights, u_x fastest (empty where none is live)
};

struct ReducedData {
  std::vector<SpeciesReduction> species;
  std::vector<double> ey_mid, ez_mid;  // Ey and Ez on the row j = ny / 2, nx values
};

// The phase space's u_x bins from the species' smallest and largest u_x.
inline void set_phase_range(SpeciesReduction& r, double lo, double hi) {
  r.u0 = lo;
  r.du = (hi > lo ? hi - lo : 1.0) / kPhaseUBins;
}

// The histograms of a host state (its particles and fields).
[[nodiscard]] ReducedData reduce_on_host(const PicSimulation& sim);

// The three files of `step` from the histograms of a run whose grid is `g`, its species named
// `names` (in the histograms' order).
void write_reduced_outputs(const std::string& dir, std::int64_t step, const GridGeometry& g,
                           const std::vector<std::string>& names, const ReducedData& data);
// The same from a host state at its step.
void write_reduced_outputs(const std::string& dir, const PicSimulation& sim);
// The species' names of a state, in its order.
[[nodiscard]] std::vector<std::string> species_names(const PicSimulation& sim);

}  // namespace nbody::pic
