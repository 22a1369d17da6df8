#include "pic/output/field_probe.hpp"

#include <sstream>

#include "pic/physics/interpolation.hpp"
#include "pic/physics/units.hpp"

namespace nbody::pic {

std::vector<double> sample_probe(PicSimulation& sim, const FieldProbe& p) {
  const GridGeometry& g = sim.settings().geom;
  const double xi = (p.x - g.x0) / g.dx, yi = (p.y - g.y0) / g.dy;
  const FieldViews v = field_views(sim.fields());
  Vec3d e{}, b{};
  if (sim.settings().shape == ShapeOrder::tsc) gather_fields<ShapeTSC>(v, xi, yi, e, b);
  else gather_fields<ShapeCIC>(v, xi, yi, e, b);
  const double all[6] = {e.x, e.y, e.z, b.x, b.y, b.z};
  std::vector<double> out;
  for (int c : p.fields) out.push_back(all[c - kEx]);
  return out;
}

std::string probe_csv_header(const FieldProbe& p, const PicSimulation& sim, double wavelength_m) {
  const SiUnits u = si_units(wavelength_m);
  const double lambda = 2 * kPi;
  std::ostringstream o;
  o.precision(10);
  o << "# probe " << p.name << " at x = " << p.x / lambda << ", y = " << p.y / lambda << " wavelengths; "
    << (sim.settings().shape == ShapeOrder::tsc ? "TSC" : "CIC")
    << " interpolation as the particle gather; E in m_e c omega0/e = " << u.efield_V_m << " V/m, B in m_e omega0/e = "
    << u.bfield_T << " T; time in laser periods = " << u.time_s * lambda << " s\n";
  o << "step,time_periods";
  for (int c : p.fields) o << ',' << kComponentNames[c];
  o << '\n';
  return o.str();
}

std::string probe_csv_row(std::int64_t step, double time, const std::vector<double>& values) {
  std::ostringstream o;
  o.precision(17);
  o << step << ',' << time / (2 * kPi);
  for (double v : values) o << ',' << v;
  return o.str();
}

}  // namespace nbody::pic
