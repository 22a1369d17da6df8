#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "core/units.hpp"

#include "io/particle_file.hpp"
#include "nbody/particles.hpp"

namespace nbody {

// What a CSV snapshot records besides the particles: a comment line after the header row,
//   # time = 1.25, UnitLength_in_cm = 1, UnitMass_in_g = 1, UnitVelocity_in_cm_per_s = 1, UnitTime_in_s = 1
// (the unit system in cgs as in HDF5 /Units; CSV readers skip it as a comment: numpy's
// genfromtxt and loadtxt by default, pandas with comment="#").
struct CsvMeta {
  double time = 0;
  UnitSystemCgs units;
  std::optional<double> softening;  // written as "softening = E" when given
};

// CSV text of a particle set: a header row `id,m,x,y,z,vx,vy,vz`, the metadata comment when
// given, then one row per body with enough digits to read back the same bits (9 significant
// digits for float, 17 for double). A set with component names (nbody/particles.hpp) gets a
// ninth column, `id,m,x,y,z,vx,vy,vz,component` (the body's tag), and a comment line naming the
// tags in order after the metadata comment:
//   # components = galaxy1.disk, galaxy1.bulge, galaxy1.halo, galaxy2.disk, ...
// A set without names (one unnamed component) is written as before, with eight columns.
template <class T>
[[nodiscard]] std::string csv_snapshot_text(const Particles<T>& p, const CsvMeta* meta = nullptr);

template <class T>
void write_csv_snapshot(const std::filesystem::path& path, const Particles<T>& p, const CsvMeta* meta = nullptr);

// Reads what write_csv_snapshot writes: the exact header row (eight columns, or nine with
// `component`), the optional metadata comment (its time and units, validated, go to the file
// info), the optional components comment, then rows of eight (nine) values (blank lines, other
// '#' comment lines and a trailing '\r' are ignored). Without the component column every body is
// of component 0 and the set has no names; with it and without the names comment the tags are
// named component0 .. componentK. Errors name the file and the line. FileRead::metadata stops at
// the first row.
[[nodiscard]] ParticleFileData read_csv_particles(const std::filesystem::path& path,
                                                  FileRead what = FileRead::everything);

}  // namespace nbody
