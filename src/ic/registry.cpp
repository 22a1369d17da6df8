#include <string>

#include "core/strings.hpp"
#include "ic/ic.hpp"
#include "nbody/error.hpp"

namespace nbody {

const std::vector<IcInfo>& initial_conditions() {
  static const std::vector<IcInfo> table = {
      {"cube", "the documents' set-up: positions and velocities uniform in [-1,1]^3, unit masses", &make_cube},
      {"plummer", "Plummer sphere in Henon units (G = M = 1, E = -1/4), Aarseth-Henon-Wielen sampling",
       &make_plummer},
  };
  return table;
}

std::vector<std::string> ic_names() {
  std::vector<std::string> names;
  for (const auto& i : initial_conditions()) names.push_back(i.name);
  return names;
}

Particles<double> make_initial_conditions(const IcRequest& req) {
  for (const auto& i : initial_conditions()) {
    if (i.name == req.name) return i.make(req);
  }
  throw_input_error("ic: unknown initial condition '" + req.name + "' (choose from " + join(ic_names()) + ")");
}

void centre(Particles<double>& p) {
  double m = 0, x = 0, y = 0, z = 0, vx = 0, vy = 0, vz = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    m += p.m[i];
    x += p.m[i] * p.x[i];
    y += p.m[i] * p.y[i];
    z += p.m[i] * p.z[i];
    vx += p.m[i] * p.vx[i];
    vy += p.m[i] * p.vy[i];
    vz += p.m[i] * p.vz[i];
  }
  if (m <= 0) return;
  for (std::size_t i = 0; i < p.size(); ++i) {
    p.x[i] -= x / m;
    p.y[i] -= y / m;
    p.z[i] -= z / m;
    p.vx[i] -= vx / m;
    p.vy[i] -= vy / m;
    p.vz[i] -= vz / m;
  }
}

}  // namespace nbody
