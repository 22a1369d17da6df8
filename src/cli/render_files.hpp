#pragma once
// Frames of particle files (`nbody render`, and `nbody movie` of a run without frames).
#include <filesystem>
#include <string>
#include <vector>

#include "cli/camera_options.hpp"

namespace nbody::cli {

// The snapshots of a run directory (snapshot_* in a format read_particle_file knows), in order.
[[nodiscard]] std::vector<std::filesystem::path> run_snapshots(const std::filesystem::path& dir);

// Reads each file (every format through read_particle_file) and writes its frame to
// out/<file's stem>.png; an automatic width comes from the first file and holds for all. `units`
// empty: the unit system the file records (Henon units when it records none). Returns the frames
// written. An input error in a build without the renderer.
std::vector<std::filesystem::path> render_files(const std::vector<std::filesystem::path>& files,
                                                const std::filesystem::path& out, RenderSettings settings,
                                                const std::string& units);

}  // namespace nbody::cli
