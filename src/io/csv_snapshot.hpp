#pragma once
#include <filesystem>
#include <string>

#include "nbody/particles.hpp"

namespace nbody {

// CSV text of a particle set: a header row `id,m,x,y,z,vx,vy,vz`, then one row per body with
// enough digits to read back the same bits (9 significant digits for float, 17 for double).
template <class T>
[[nodiscard]] std::string csv_snapshot_text(const Particles<T>& p);

template <class T>
void write_csv_snapshot(const std::filesystem::path& path, const Particles<T>& p);

}  // namespace nbody
