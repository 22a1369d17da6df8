#pragma once
// A field probe ([[output.probe]] of a deck, docs/pic.md): E and B at a point, interpolated as the
// particle gather interpolates (pic/physics/interpolation.hpp's gather_fields with the run's
// shape, CIC or TSC, each component from its staggered Yee position): what a particle at rest at
// that point would feel from the grid (the deck's external fields not included). Its CSV: a
// comment line (the position, the shape, the units and their SI values), a header row and one row
// per sample, numbers written with 17 significant digits (the same state, the same bytes).
#include <string>
#include <vector>

#include "pic/cpu/simulation.hpp"

namespace nbody::pic {

struct FieldProbe {
  std::string name;
  double x = 0, y = 0;      // code units (c/omega0), inside the grid
  std::vector<int> fields;  // components kEx .. kBz
};

// The probe's components at the present state of `sim` (its host fields, guards filled as the
// step leaves them), in the probe's order.
std::vector<double> sample_probe(PicSimulation& sim, const FieldProbe& p);

// The first two lines of the probe's CSV (each ending with a newline); `wavelength_m` for the SI
// values of the units.
std::string probe_csv_header(const FieldProbe& p, const PicSimulation& sim, double wavelength_m);
// One row: the step, the time in laser periods and the values (no newline).
std::string probe_csv_row(std::int64_t step, double time, const std::vector<double>& values);

}  // namespace nbody::pic
