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
// digits for float, 17 for double).
template <class T>
[[nodiscard]] std::string csv_snapshot_text(const Particles<T>& p, const CsvMeta* meta = nullptr);

template <class T>
void write_csv_snapshot(const std::filesystem::path& path, const Particles<T>& p, const CsvMeta* meta = nullptr);

// Reads what write_csv_snapshot writes: the exact header row, the optional metadata comment
// (its time and units, validated, go to the file info), then rows of eight values (blank lines,
// other '#' comment lines and a trailing '\r' are ignored). Errors name the file and the line.
// FileRead::metadata stops at the first row.
[[nodiscard]] ParticleFileData read_csv_particles(const std::filesystem::path& path,
                                                  FileRead what = FileRead::everything);

}  // namespace nbody
