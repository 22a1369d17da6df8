#pragma once
// openPMD 1.1.0 output (file-based iteration encoding, HDF5): meshes E, B, J (x, y, z) and rho on
// the Yee grid with their staggering in `position`, stored A[i][j] with axisLabels (x, y), and
// the particle species (id, position x, y, momentum x, y, z, weighting, charge, mass, one
// particle patch), with unitSI / unitDimension from the laser wavelength and each record's
// timeOffset from the leapfrog (J and the momenta half a step behind). Every attribute the
// standard requires or recommends is written (author and date only when known: OpenPmdOrigin).
// Readable by h5py, openPMD-api and yt's openPMD frontend. The same state gives the same bytes.
// Each file is written to a temporary name and renamed (atomic).
#include <cstdint>
#include <string>

#include "pic/cpu/simulation.hpp"
#include "pic/output/openpmd_selection.hpp"

namespace nbody::pic {

// Who made the data and when: the root group's `author` and `date` (recommended by openPMD),
// each written only when not empty. The date is the run's own, "YYYY-MM-DD HH:mm:ss +hhmm" —
// never the clock when a file is written, which would make every write of a state differ.
struct OpenPmdOrigin {
  std::string author;
  std::string date;
};
// From the environment: NBODY_AUTHOR as the author, and SOURCE_DATE_EPOCH (seconds since
// 1970-01-01 00:00:00 UTC, the reproducible-builds convention) as the date, in UTC; each empty
// when its variable is unset or empty. A SOURCE_DATE_EPOCH that is not a whole number of seconds
// is an input error.
[[nodiscard]] OpenPmdOrigin openpmd_origin_from_environment();
// A date as openPMD writes it ("2015-12-02 17:48:42 +0100")?
[[nodiscard]] bool is_openpmd_date(const std::string& date);

[[nodiscard]] bool openpmd_available();  // false in a build without HDF5
// Writes <dir>/pic_<step>.h5 (step zero-padded to 8 digits); returns the path. rho is written as
// the simulation holds it: the caller runs compute_rho first. A non-empty origin.date that is not
// an openPMD date is an input error.
std::string write_openpmd(const std::string& dir, const PicSimulation& sim, double wavelength_m,
                          const OpenPmdOrigin& origin = openpmd_origin_from_environment());
// The same with only what `sel` selects (openpmd_selection.hpp): the meshes group only with a
// component selected, the particles group only with particles, each species' records holding the
// selected particles (the particle patch bounding them), the id record only with sel.ids.
std::string write_openpmd(const std::string& dir, const PicSimulation& sim, double wavelength_m,
                          const OpenPmdSelection& sel,
                          const OpenPmdOrigin& origin = openpmd_origin_from_environment());

}  // namespace nbody::pic
