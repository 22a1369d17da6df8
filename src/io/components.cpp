#include "io/components.hpp"

#include <algorithm>
#include <set>

#include "core/strings.hpp"
#include "io/particle_file.hpp"

namespace nbody {

bool valid_component_name(std::string_view name) noexcept {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
}

void check_component_names(const std::vector<std::string>& names, const std::filesystem::path& path,
                           std::string_view where) {
  if (names.size() > kMaxComponents) {
    throw_file_error(path, std::string(where) + ": " + std::to_string(names.size()) + " component names, at most " +
                               std::to_string(kMaxComponents));
  }
  std::set<std::string_view> seen;
  for (const auto& name : names) {
    if (!valid_component_name(name)) {
      throw_file_error(path, std::string(where) + ": component name " + quoted_text(name, 60) +
                                 " is not 1 to 64 characters of A-Z a-z 0-9 . _ -");
    }
    if (!seen.insert(name).second) {
      throw_file_error(path, std::string(where) + ": component name " + quoted_text(name, 60) + " appears twice");
    }
  }
}

std::vector<std::string> numbered_component_names(const std::vector<std::uint8_t>& component) {
  const std::uint8_t top = component.empty() ? 0 : *std::max_element(component.begin(), component.end());
  std::vector<std::string> names;
  for (int k = 0; k <= top; ++k) names.push_back("component" + std::to_string(k));
  return names;
}

std::string join_component_names(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t k = 0; k < names.size(); ++k) out += (k > 0 ? ", " : "") + names[k];
  return out;
}

void check_component_tags(const Particles<double>& p, const std::filesystem::path& path,
                          const std::function<std::string(std::size_t index)>& record) {
  if (p.component.empty()) return;  // every body of component 0
  if (p.component.size() != p.size()) {
    throw_file_error(path, std::to_string(p.component.size()) + " component values for " + std::to_string(p.size()) +
                               " bodies");
  }
  const std::size_t kinds = std::max<std::size_t>(p.component_names.size(), 1);
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p.component[i] >= kinds) {
      throw_file_error(path, record(i) + ": component " + std::to_string(p.component[i]) +
                                 " has no name (the file names " + std::to_string(p.component_names.size()) + ")");
    }
  }
}

}  // namespace nbody
