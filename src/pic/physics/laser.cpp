#include "pic/physics/laser.hpp"

namespace nbody::pic {

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
