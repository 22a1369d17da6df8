#include <cmath>
#include <cstdio>
#include <string>

#include "nbody/diagnostics.hpp"

namespace nbody {

Diagnostics Diagnostics::from(std::int64_t step, double time, const Moments& m, double potential) {
  Diagnostics d;
  d.step = step;
  d.time = time;
  d.kinetic = m.kinetic;
  d.potential = potential;
  d.total = m.kinetic + potential;
  d.momentum = m.momentum;
  d.angular = m.angular;
  for (int k = 0; k < 3; ++k) d.com[k] = m.mass > 0 ? m.mass_moment[k] / m.mass : 0.0;
  d.virial_ratio = potential != 0 ? 2.0 * m.kinetic / std::fabs(potential) : 0.0;
  return d;
}

double relative_energy_error(const Diagnostics& d, double e0) noexcept {
  const double de = std::fabs(d.total - e0);
  return e0 != 0 ? de / std::fabs(e0) : de;
}

double momentum_drift(const Diagnostics& d, const Diagnostics& d0) noexcept {
  return std::hypot(d.momentum[0] - d0.momentum[0], d.momentum[1] - d0.momentum[1], d.momentum[2] - d0.momentum[2]);
}

double angular_momentum_drift(const Diagnostics& d, const Diagnostics& d0) noexcept {
  const double dl = std::hypot(d.angular[0] - d0.angular[0], d.angular[1] - d0.angular[1], d.angular[2] - d0.angular[2]);
  const double l0 = std::hypot(d0.angular[0], d0.angular[1], d0.angular[2]);
  return l0 > 0 ? dl / l0 : dl;
}

std::string diagnostics_csv_header() {
  return "step,time,kinetic,potential,total,rel_energy_error,px,py,pz,Lx,Ly,Lz,com_x,com_y,com_z,virial_ratio,"
         "momentum_drift,angular_momentum_drift";
}

std::string diagnostics_csv_row(const Diagnostics& d, const Diagnostics& d0) {
  char buf[720];
  std::snprintf(buf, sizeof buf,
                "%lld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,"
                "%.17g",
                static_cast<long long>(d.step), d.time, d.kinetic, d.potential, d.total,
                relative_energy_error(d, d0.total), d.momentum[0], d.momentum[1], d.momentum[2], d.angular[0],
                d.angular[1], d.angular[2], d.com[0], d.com[1], d.com[2], d.virial_ratio, momentum_drift(d, d0),
                angular_momentum_drift(d, d0));
  return buf;
}

}  // namespace nbody
