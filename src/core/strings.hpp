#pragma once
#include <string>
#include <vector>

namespace nbody {

// "a, b, c"
inline std::string join(const std::vector<std::string>& items, const std::string& sep = ", ") {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

}  // namespace nbody
