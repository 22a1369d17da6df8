#include "pic/physics/units.hpp"

#include <cmath>

namespace nbody::pic {
namespace {
constexpr double kC = 299792458.0;
constexpr double kE = 1.602176634e-19;
constexpr double kMe = 9.1093837015e-31;
constexpr double kEps0 = 8.8541878128e-12;
}  // namespace

SiUnits si_units(double wavelength_m) {
  SiUnits u;
  u.wavelength_m = wavelength_m;
  u.omega0 = 2 * kPi * kC / wavelength_m;
  u.time_s = 1 / u.omega0;
  u.length_m = kC / u.omega0;
  u.density_m3 = kEps0 * kMe * u.omega0 * u.omega0 / (kE * kE);
  u.efield_V_m = kMe * kC * u.omega0 / kE;
  u.bfield_T = kMe * u.omega0 / kE;
  u.energy_J = kMe * kC * kC;
  u.intensity_W_m2 = 0.5 * kEps0 * kC * u.efield_V_m * u.efield_V_m;
  return u;
}

double a0_from_intensity(double intensity_W_m2, double wavelength_m, bool circular) {
  const double unit = si_units(wavelength_m).intensity_W_m2 * (circular ? 2.0 : 1.0);
  return std::sqrt(intensity_W_m2 / unit);
}

double intensity_from_a0(double a0, double wavelength_m, bool circular) {
  return a0 * a0 * si_units(wavelength_m).intensity_W_m2 * (circular ? 2.0 : 1.0);
}

}  // namespace nbody::pic
