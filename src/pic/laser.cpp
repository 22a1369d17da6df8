#include "pic/laser.hpp"

#include <cmath>

#include "pic/units.hpp"

namespace nbody::pic {

double Laser::envelope_at(double tau) const {
  switch (envelope) {
    case Envelope::gaussian: {
      const double s = (tau - delay) / duration;
      return std::exp(-2.0 * std::log(2.0) * s * s);
    }
    case Envelope::flattop: {
      const double t = tau - delay;
      if (t <= 0 || t >= 2 * rise + duration) return 0.0;
      if (t < rise) return std::pow(std::sin(0.5 * kPi * t / rise), 2);
      if (t > rise + duration) return std::pow(std::sin(0.5 * kPi * (2 * rise + duration - t) / rise), 2);
      return 1.0;
    }
    default: {
      const double t = tau - delay;
      if (t <= 0 || t >= duration) return 0.0;
      return std::pow(std::sin(kPi * t / duration), 2);
    }
  }
}

void Laser::field(double x, double y, double t, double& ey, double& ez) const {
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

bool parse_polarisation(const std::string& s, Polarisation& p) {
  if (s == "linear" || s == "linear_y") p = Polarisation::linear_y;
  else if (s == "linear_z") p = Polarisation::linear_z;
  else if (s == "circular") p = Polarisation::circular;
  else return false;
  return true;
}

bool parse_envelope(const std::string& s, Envelope& e) {
  if (s == "sin2") e = Envelope::sin2;
  else if (s == "gaussian") e = Envelope::gaussian;
  else if (s == "flattop") e = Envelope::flattop;
  else return false;
  return true;
}

}  // namespace nbody::pic
