#pragma once
// The schema core's own helper (its messages, the TOML it writes). What a subsystem needs to
// declare its section is public (include/nbody/config.hpp), so no subsystem includes src/config/,
// and the dependency runs one way: sections.cpp includes each subsystem's parameters.hpp.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "nbody/config.hpp"

namespace nbody {

// The shortest of 15, 16 or 17 significant digits that reads back as the same double, so that
// 0.15 is written 0.15 and every value still round-trips exactly.
[[nodiscard]] std::string format_number(double v);

// apply_toml_file(cfg, path, given), leaving out the keys for which replaced(spec) is true: the
// ones flags given beside the file replace. Such a key is still checked as a key (known, in its
// section, given once), but its value is neither checked nor applied: the merged configuration is
// what gets validated, so a value this build would refuse (snapshot_format = "hdf5" without
// HDF5) does not stop a run whose flag replaces it.
void apply_toml_file(RunConfig& cfg, const std::filesystem::path& path, std::vector<GivenParam>* given,
                     const std::function<bool(const ParamSpec&)>& replaced);

}  // namespace nbody
