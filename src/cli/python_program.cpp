#include "cli/python_program.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli/child_process.hpp"
#include "core/strings.hpp"
#include "nbody/error.hpp"

namespace nbody::cli {
namespace {

namespace fs = std::filesystem;

// The probe's exit status when every module is there (not 0: any program that exits 0, /bin/true
// say, would pass for a Python); 64 + a bit 2^k for each modules[k] missing (six modules at most).
constexpr int kProbeFound = 42, kProbeMissing = 64;

// What `py` lacks of `modules`: "" when it has them all, else why not.
std::string lacks(const std::string& py, const std::vector<std::string>& modules) {
  std::string code = "import sys, importlib.util as u\nmissing = sum(1 << k for k, m in enumerate([";
  for (const auto& m : modules) code += "'" + m + "',";
  code += "]) if u.find_spec(m) is None)\nsys.exit(" + std::to_string(kProbeMissing) + " + missing if missing else " +
          std::to_string(kProbeFound) + ")\n";
  int err = 0;
  const int status = spawn_and_wait({py, "-c", code}, true, &err);
  if (status == kProbeFound) return "";
  if (status < 0) return "cannot be run (" + std::string(std::strerror(err)) + ")";
  const int bits = status - kProbeMissing;
  if (bits > 0 && bits < (1 << modules.size())) {
    std::vector<std::string> missing;
    for (std::size_t k = 0; k < modules.size(); ++k)
      if (bits & (1 << k)) missing.push_back(modules[k]);
    return (missing.size() == 1 ? "no module " : "no modules ") + join(missing, ", ");
  }
  return "is not a working Python (exit status " + std::to_string(status) + ")";
}

// The python3 first on PATH, or "".
std::string python_on_path() {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  std::string dirs = path;
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, end - start);
    const fs::path p = fs::path(dir.empty() ? "." : dir) / "python3";
    if (::access(p.c_str(), X_OK) == 0) return p.string();
    start = end + 1;
  }
  return "";
}

}  // namespace

std::string find_python(const std::vector<std::string>& modules) {
  const std::string wanted = join(modules, " and ");
  std::string packages;
  for (const auto& m : modules) packages += (packages.empty() ? "python3-" : " python3-") + m;
  if (const char* chosen = std::getenv("NBODY_PYTHON"); chosen != nullptr && *chosen != '\0') {
    const std::string why = lacks(chosen, modules);
    if (why.empty()) return chosen;
    throw_input_error("NBODY_PYTHON=" + quoted_text(chosen) + ": " + why + "; it needs " + wanted +
                      ": point NBODY_PYTHON at a Python that has them, or unset it to use Debian's " + packages);
  }
  std::vector<std::string> tried;
  std::vector<std::string> candidates = {"/usr/bin/python3"};
  if (const std::string p = python_on_path(); !p.empty() && p != candidates[0]) candidates.push_back(p);
  for (const auto& py : candidates) {
    const std::string why = lacks(py, modules);
    if (why.empty()) return py;
    tried.push_back(py + ": " + why);
  }
  throw_input_error("no Python with " + wanted + " found (" + join(tried, "; ") + "): install Debian's " + packages +
                    " (scripts/setup does) or set NBODY_PYTHON to a Python that has them");
}

fs::path shipped_file(const std::string& name) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw_runtime_error("cannot find this program's directory (/proc/self/exe: " + ec.message() + ")");
  const fs::path file = (self.parent_path() / ".." / "share" / "nbody" / name).lexically_normal();
  if (!fs::is_regular_file(file, ec))
    throw_runtime_error("this installation of nbody lacks " + file.string() + " (it ships beside the program)");
  return file;
}

}  // namespace nbody::cli
