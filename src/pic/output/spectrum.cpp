#include "pic/output/spectrum.hpp"

#include <algorithm>
#include <cmath>

namespace nbody::pic {

double kinetic_mev(const Species& s, std::size_t k) {
  const double u2 = s.ux[k] * s.ux[k] + s.uy[k] * s.uy[k] + s.uz[k] * s.uz[k];
  // gamma - 1 = u^2 / (gamma + 1): no cancellation for slow particles.
  return u2 / (std::sqrt(1.0 + u2) + 1.0) * s.mass * kElectronRestEnergyMeV;
}

EnergySpectrum energy_spectrum(const Species& s, int bins) {
  EnergySpectrum out;
  for (std::size_t k = 0; k < s.size(); ++k) out.top_mev = std::max(out.top_mev, kinetic_mev(s, k));
  if (!(out.top_mev > 0)) {
    out.top_mev = 0;
    return out;
  }
  out.weight.assign(std::size_t(bins), 0.0);
  for (std::size_t k = 0; k < s.size(); ++k) {
    const int b = std::min(bins - 1, static_cast<int>(kinetic_mev(s, k) / out.top_mev * bins));
    out.weight[std::size_t(b)] += s.w[k];
  }
  return out;
}

}  // namespace nbody::pic
