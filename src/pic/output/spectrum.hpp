#pragma once
// The kinetic-energy spectrum of a species: the histogram of its particles' weights over
// (gamma - 1) m c^2 in MeV, `bins` equal bins from 0 to the largest energy (the particle at the top
// counted in the last bin). spectrum_<step>.csv (reduced_output.hpp) and the spectrum images
// (images.hpp) are drawn from it.
#include <cstddef>
#include <vector>

#include "pic/physics/species.hpp"

namespace nbody::pic {

constexpr double kElectronRestEnergyMeV = 0.51099895;  // m_e c^2

// (gamma - 1) m c^2 of particle k in MeV (m in electron masses).
[[nodiscard]] double kinetic_mev(const Species& s, std::size_t k);

struct EnergySpectrum {
  double top_mev = 0;          // the largest kinetic energy; 0: no particle or none moving
  std::vector<double> weight;  // per bin, bin b covering [b, b + 1) * top_mev / bins (empty when top_mev is 0)
  [[nodiscard]] double bin_width() const { return weight.empty() ? 0 : top_mev / double(weight.size()); }
};
[[nodiscard]] EnergySpectrum energy_spectrum(const Species& s, int bins = 200);

}  // namespace nbody::pic
