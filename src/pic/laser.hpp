#pragma once
// A laser entering through the left boundary, in normalised units (its angular frequency is the
// unit omega0 = 1, its wavelength 2 pi). The incident field at (x, y, t) is
//   E = a0 f(tau) g(y) [ sin(phi) e_y  (linear)  |  sin(phi) e_y + cos(phi) e_z (circular) ],
//   tau = t - (x - x_left), phi = tau,
// with the temporal envelope f (sin^2 over `duration`, a Gaussian of intensity FWHM `duration`
// centred at `delay`, or a flat top with sin^2 rise and fall of `rise` each) and the transverse
// profile g = 1 (plane) or exp(-((y - y_centre)/waist)^2).
#include <string>

namespace nbody::pic {

enum class Polarisation { linear_y, linear_z, circular };
enum class Envelope { sin2, gaussian, flattop };

struct Laser {
  bool enabled = false;
  double a0 = 0;
  Polarisation polarisation = Polarisation::linear_y;
  Envelope envelope = Envelope::sin2;
  double duration = 0;  // sin2: total; gaussian: intensity FWHM; flattop: plateau
  double rise = 0;      // flattop: rise and fall
  double delay = 0;     // gaussian: time of the peak at x_left; others: start time at x_left
  bool gaussian_transverse = false;
  double waist = 0;
  double y_centre = 0;
  double x_left = 0;

  [[nodiscard]] double envelope_at(double tau) const;
  void field(double x, double y, double t, double& ey, double& ez) const;
};

bool parse_polarisation(const std::string& s, Polarisation& p);
bool parse_envelope(const std::string& s, Envelope& e);

}  // namespace nbody::pic
