#pragma once
#include <filesystem>
#include <string>

#include "io/particle_file.hpp"
#include "nbody/particles.hpp"

namespace nbody {

// CSV text of a particle set: a header row `id,m,x,y,z,vx,vy,vz`, then one row per body with
// enough digits to read back the same bits (9 significant digits for float, 17 for double).
template <class T>
[[nodiscard]] std::string csv_snapshot_text(const Particles<T>& p);

template <class T>
void write_csv_snapshot(const std::filesystem::path& path, const Particles<T>& p);

// Reads what write_csv_snapshot writes: the exact header row, then rows of eight values (blank
// lines and a trailing '\r' are ignored). Errors name the file and the line.
[[nodiscard]] ParticleFileData read_csv_particles(const std::filesystem::path& path);

}  // namespace nbody
