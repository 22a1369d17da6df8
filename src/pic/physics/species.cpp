#include "pic/physics/species.hpp"

#include "pic/physics/units.hpp"

namespace nbody::pic {

bool predefined_species(const std::string& name, double& charge, double& mass) {
  if (name == "electron") charge = -1, mass = 1;
  else if (name == "positron") charge = 1, mass = 1;
  else if (name == "proton") charge = 1, mass = 1836.15267343;
  else if (name == "deuteron") charge = 1, mass = kDeuteronMass;
  else if (name == "triton") charge = 1, mass = kTritonMass;
  else return false;
  return true;
}

}  // namespace nbody::pic
