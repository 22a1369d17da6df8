#pragma once
// Normalised PIC units. Time in 1/omega0, length in c/omega0, velocity in c, momentum in m_e c,
// density in the critical density n_c = eps0 m_e omega0^2 / e^2, charge in e, mass in m_e, fields
// in m_e c omega0 / e (E) and m_e omega0 / e (B). In these units c = eps0 = mu0 = 1, Maxwell's
// equations read dE/dt = curl B - J, dB/dt = -curl E, div E = rho, and a species of density n has
// the plasma frequency omega_p^2 = n q^2 / m. The SI values for a given laser wavelength are below.
namespace nbody::pic {

inline constexpr double kPi = 3.141592653589793238462643383279502884;
inline constexpr double kDeuteronMass = 3670.48;  // m_d / m_e
inline constexpr double kTritonMass = 5496.92;    // m_t / m_e

struct SiUnits {
  double wavelength_m = 0;  // lambda
  double omega0 = 0;        // 2 pi c / lambda, 1/s
  double time_s = 0;        // 1/omega0
  double length_m = 0;      // c/omega0
  double density_m3 = 0;    // n_c
  double efield_V_m = 0;    // m_e c omega0 / e
  double bfield_T = 0;      // m_e omega0 / e
  double energy_J = 0;      // m_e c^2
  double intensity_W_m2 = 0;  // the intensity unit I = (eps0 c / 2) E^2 of a linearly polarised a0 = 1 wave
};

// The SI conversion for a laser wavelength in metres (CODATA 2018 constants).
SiUnits si_units(double wavelength_m);

// Peak normalised amplitude a0 of a wave of intensity I (W/m^2) and wavelength lambda (m);
// circular polarisation carries twice the intensity of linear at the same a0.
double a0_from_intensity(double intensity_W_m2, double wavelength_m, bool circular);
double intensity_from_a0(double a0, double wavelength_m, bool circular);

}  // namespace nbody::pic
