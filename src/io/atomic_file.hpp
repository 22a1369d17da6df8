#pragma once
#include <filesystem>
#include <functional>
#include <string_view>

namespace nbody {

// Writes `content` to `path` so that a reader (or a run killed at any moment) sees either the
// old file or the whole new one: a temporary file beside it, flushed to disk, then renamed.
// Throws a runtime error naming the file on failure.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

// The same for a writer that needs a file name (a library that opens the file itself):
// `write_tmp` writes the whole file at the temporary path it is given, which is then flushed to
// disk and renamed over `path`. The temporary file is removed when anything fails.
void replace_file_atomic(const std::filesystem::path& path,
                         const std::function<void(const std::filesystem::path& tmp)>& write_tmp);

// The two halves of replace_file_atomic, for a file written by several processes together (a
// collective HDF5 snapshot): the temporary's name (this process's id), and, once the temporary
// is whole and closed everywhere, flushing it to disk and renaming it over `path` (the temporary
// removed and a runtime error naming `path` on failure).
[[nodiscard]] std::filesystem::path temporary_path_for(const std::filesystem::path& path);
void commit_temporary(const std::filesystem::path& path, const std::filesystem::path& tmp);

// True for the name of a temporary file of the two functions above ("x.tmp.<pid>"), which a
// killed run may leave behind.
[[nodiscard]] bool is_temporary_file(const std::filesystem::path& path);

}  // namespace nbody
