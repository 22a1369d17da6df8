#include "view/web_dir.hpp"

#include <cstdlib>
#include <string>
#include <system_error>
#include <vector>

#include "nbody/error.hpp"

namespace nbody::view {
namespace fs = std::filesystem;

fs::path find_web_dir() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("NBODY_WEB_DIR"); env && *env) {
    candidates.emplace_back(env);
  } else {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) candidates.push_back(exe.parent_path().parent_path() / "share" / "nbody" / "web");
    candidates.emplace_back(NBODY_SOURCE_WEB_DIR);
  }
  std::error_code ec;
  for (const fs::path& dir : candidates) {
    if (!fs::is_regular_file(dir / "index.html", ec)) continue;
    if (!fs::is_regular_file(dir / "node_modules" / "three" / "build" / "three.module.js", ec)) {
      throw_input_error("view: the page in '" + dir.string() +
                        "' needs three.js, which is not installed there: run scripts/setup (npm ci in that "
                        "directory)");
    }
    return dir;
  }
  std::string tried;
  for (const fs::path& dir : candidates) tried += (tried.empty() ? "'" : ", '") + dir.string() + "'";
  throw_input_error("view: the viewer's page (index.html) is in none of " + tried +
                    " (set NBODY_WEB_DIR to the project's web/ directory)");
}

}  // namespace nbody::view
