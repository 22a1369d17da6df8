#pragma once
// A laser entering through the left boundary, in normalised units (its angular frequency is the
// unit omega0 = 1, its wavelength 2 pi). The incident field at (x, y, t) is
//   E = a0 f(tau) g(y) [ sin(phi) e_y  (linear)  |  sin(phi) e_y + cos(phi) e_z (circular) ],
//   tau = t - (x - x_left), phi = tau,
// with the temporal envelope f (sin^2 over `duration`, a Gaussian of intensity FWHM `duration`
// centred at `delay`, or a flat top with sin^2 rise and fall of `rise` each) and the transverse
// profile g = 1 (plane) or exp(-((y - y_centre)/waist)^2).
//
// Two more forms (docs/pic.md, "Deck reference"):
// * an incidence angle theta (in the x-y plane, from +x towards +y): the wave travels along
//   (cos theta, sin theta), so along the boundary its phase advances by sin(theta) per unit of y,
//   tau = t - ((x - x_left) cos theta + (y - y_centre) sin theta); the transverse profile is
//   measured across the beam, eta = (y - y_centre) cos theta - (x - x_left) sin theta;
// * a focused Gaussian beam (the 2D paraxial solution): waist w0 (1/e radius of the field) at the
//   focal plane x_f on the axis through (x_f, y_centre) at angle theta. With xi, eta the distances
//   along and across the axis from the focus, x_R = w0^2 / 2 (k = omega0 / c = 1), w = w0
//   sqrt(1 + xi^2/x_R^2), R = xi (1 + x_R^2/xi^2) and the Gouy phase psi = atan(xi/x_R) / 2 (half
//   the 3D one: one transverse dimension),
//     E = a0 sqrt(w0/w) exp(-eta^2/w^2) f(tau_c) sin(tau_c + psi),  tau_c = tau - eta^2/(2R),
//   tau = t - (xi - xi_0), xi_0 the axis' crossing of the boundary: a0 is the amplitude at the
//   focus, and the envelope rides on the curved wave fronts. Evaluated wherever the boundary asks
//   (the Mur injection reads it at the boundary and one cell in).
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
  // Incidence angle (radians) and the focused beam (lengths in c/omega0).
  double angle = 0;
  bool focused = false;
  double focus_x = 0;

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
    if (focused || angle != 0.0) {
      oblique_or_focused(x, y, t, ey, ez);
      return;
    }
    const double tau = t - (x - x_left);
    double amp = a0 * envelope_at(tau);
    if (amp == 0.0) return;
    if (gaussian_transverse) {
      const double r = (y - y_centre) / waist;
      amp *= std::exp(-r * r);
    }
    polarised(amp, tau, 1.0, ey, ez);
  }

 private:
  // The field of amplitude amp and phase phi along the polarisation; the e_y part is the
  // tangential projection cos(theta) of the in-plane polarisation (the x part, normal to the
  // boundary, follows from Maxwell's equations inside).
  PIC_HD void polarised(double amp, double phi, double cos_t, double& ey, double& ez) const {
    switch (polarisation) {
      case Polarisation::linear_y: ey = cos_t * amp * std::sin(phi); break;
      case Polarisation::linear_z: ez = amp * std::sin(phi); break;
      case Polarisation::circular:
        ey = cos_t * amp * std::sin(phi);
        ez = amp * std::cos(phi);
        break;
    }
  }
  PIC_HD void oblique_or_focused(double x, double y, double t, double& ey, double& ez) const {
    const double c = std::cos(angle), s = std::sin(angle);
    if (!focused) {
      const double tau = t - ((x - x_left) * c + (y - y_centre) * s);
      double amp = a0 * envelope_at(tau);
      if (amp == 0.0) return;
      if (gaussian_transverse) {
        const double r = ((y - y_centre) * c - (x - x_left) * s) / waist;
        amp *= std::exp(-r * r);
      }
      polarised(amp, tau, c, ey, ez);
      return;
    }
    const double xi = (x - focus_x) * c + (y - y_centre) * s;
    const double eta = (y - y_centre) * c - (x - focus_x) * s;
    const double xi0 = (x_left - focus_x) / c;
    const double xr = 0.5 * waist * waist;
    const double w2 = waist * waist * (1 + (xi / xr) * (xi / xr));
    // eta^2 / (2R) with 1/R = xi / (xi^2 + x_R^2) (0 at the focus)
    const double curvature = 0.5 * eta * eta * xi / (xi * xi + xr * xr);
    const double tau = t - (xi - xi0) - curvature;
    double amp = a0 * envelope_at(tau);
    if (amp == 0.0) return;
    amp *= std::sqrt(std::sqrt(waist * waist / w2)) * std::exp(-eta * eta / w2);
    polarised(amp, tau + 0.5 * std::atan(xi / xr), c, ey, ez);
  }
};

bool parse_polarisation(const std::string& s, Polarisation& p);
bool parse_envelope(const std::string& s, Envelope& e);

}  // namespace nbody::pic
