#pragma once
// Where the viewer's page is: $NBODY_WEB_DIR when set, else <prefix>/share/nbody/web beside an
// installed program, else the source tree's web/ (a build directory's program).
#include <filesystem>

namespace nbody::view {

// The first of those that holds index.html; an input error when none does, or when its
// node_modules/three (installed by scripts/setup: npm ci in web/) is missing.
[[nodiscard]] std::filesystem::path find_web_dir();

}  // namespace nbody::view
