#pragma once
// The component table of a particle file (nbody/particles.hpp: component, component_names):
// the checks every reader makes and the names' spelling shared by the formats.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "nbody/particles.hpp"

namespace nbody {

// At most this many names (a body's tag is one byte).
inline constexpr std::size_t kMaxComponents = 256;

// A component name a file may hold: 1 to 64 characters of A-Z a-z 0-9 . _ - (so that it is a
// CSV comment's item, an HDF5 attribute's string and a yt particle type alike).
[[nodiscard]] bool valid_component_name(std::string_view name) noexcept;

// The names of a file, checked: an input error naming the file (and `where` in it) for a name
// valid_component_name refuses, a repeated name or more than kMaxComponents.
void check_component_names(const std::vector<std::string>& names, const std::filesystem::path& path,
                           std::string_view where);

// Names for tags read without names (a CSV file with a component column and no names comment):
// "component0" .. "componentK" for the largest tag K.
[[nodiscard]] std::vector<std::string> numbered_component_names(const std::vector<std::uint8_t>& component);

// "a, b, c"
[[nodiscard]] std::string join_component_names(const std::vector<std::string>& names);

// Every body's tag names a component: tag < number of names (or 0 when there are none); the
// component array has one value per body, or none (every body of component 0). An input error
// naming the file and `record(i)`.
void check_component_tags(const Particles<double>& p, const std::filesystem::path& path,
                          const std::function<std::string(std::size_t index)>& record);

}  // namespace nbody
