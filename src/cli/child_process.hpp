#pragma once
// Programs the CLI starts (ffmpeg for `nbody movie`, Python for `nbody plot` and its probes):
// found on PATH, started with an argument vector (no shell), stdin from /dev/null, waited for.
#include <string>
#include <vector>

namespace nbody::cli {

// The program on PATH's directories, or empty.
[[nodiscard]] std::string find_on_path(const std::string& name);
// Starts args[0] (a path) with args and this program's environment and waits: its exit status,
// or 128 + the signal that ended it; -1 when it could not be started or waited for (the errno in
// *start_error). quiet: its stdout and stderr to /dev/null.
[[nodiscard]] int spawn_and_wait(const std::vector<std::string>& args, bool quiet, int* start_error);
// The same with its output shown; a runtime error naming the program when it cannot be started.
[[nodiscard]] int run_child(const std::vector<std::string>& args);

}  // namespace nbody::cli
