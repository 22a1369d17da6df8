#pragma once
#include <filesystem>
#include <string_view>

namespace nbody {

// Writes `content` to `path` so that a reader (or a run killed at any moment) sees either the
// old file or the whole new one: a temporary file beside it, flushed to disk, then renamed.
// Throws a runtime error naming the file on failure.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

}  // namespace nbody
