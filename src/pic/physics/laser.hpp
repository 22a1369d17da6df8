#pragma once
// A laser entering through the left boundary, in normalised units (its angular frequency is the
// unit omega0 = 1, its wavelength 2 pi). The incident field at (x, y, t) is
//   E = a0 f(tau) g(y) [ sin(phi) e_y  (linear)  |  sin(phi) e_y + cos(phi) e_z (circular) ],
//   tau = t - (x - x_left), phi = tau,
// with the temporal envelope f (sin^2 over `duration`, a Gaussian of intensity FWHM `duration`
// centred at `delay`, or a flat top with sin^2 rise and fall of `rise` each) and the transverse
// profile g = 1 (plane) or exp(-((y - y_centre)/waist)^2).
#include <cmath>
#include <string>

#include "core/hd.hpp"

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

  // Inline and __host__ __device__: the CUDA Mur kernel evaluates the laser too.
  PIC_HD double envelope_at(double tau) const {
    constexpr double pi = 3.141592653589793238462643383279502884;
    switch (envelope) {
      case Envelope::gaussian: {
        const double s = (tau - delay) / duration;
        return std::exp(-2.0 * 0.693147180559945309417232121458176568 * s * s);
      }
      case Envelope::flattop: {
        const double t = tau - delay;
        if (t <= 0 || t >= 2 * rise + duration) return 0.0;
        if (t < rise) {
          const double s = std::sin(0.5 * pi * t / rise);
          return s * s;
        }
        if (t > rise + duration) {
          const double s = std::sin(0.5 * pi * (2 * rise + duration - t) / rise);
          return s * s;
        }
        return 1.0;
      }
      default: {
        const double t = tau - delay;
        if (t <= 0 || t >= duration) return 0.0;
        const double s = std::sin(pi * t / duration);
        return s * s;
      }
    }
  }
  PIC_HD void field(double x, double y, double t, double& ey, double& ez) const {
    ey = ez = 0;
    if (!enabled) return;
    const double tau = t - (x - x_left);
    double amp = a0 * envelope_at(tau);
    if (amp == 0.0) return;
    if (gaussian_transverse) {
      const double r = (y - y_centre) / waist;
      amp *= std::exp(-r * r);
    }
    switch (polarisation) {
      case Polarisation::linear_y: ey = amp * std::sin(tau); break;
      case Polarisation::linear_z: ez = amp * std::sin(tau); break;
      case Polarisation::circular:
        ey = amp * std::sin(tau);
        ez = amp * std::cos(tau);
        break;
    }
  }
};

bool parse_polarisation(const std::string& s, Polarisation& p);
bool parse_envelope(const std::string& s, Envelope& e);

}  // namespace nbody::pic
