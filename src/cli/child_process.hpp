#pragma once
// Programs the CLI starts (mpirun for --gpus, ffmpeg for `nbody movie`): found on PATH, started
// with an argument vector (no shell), waited for.
#include <string>
#include <vector>

namespace nbody::cli {

// The program on PATH's directories, or empty.
[[nodiscard]] std::string find_on_path(const std::string& name);
// Runs args[0] (a path) with args, its stdin from /dev/null, and waits: its exit status, or
// 128 + the signal that ended it. A runtime error when it cannot be started.
[[nodiscard]] int run_child(const std::vector<std::string>& args);

}  // namespace nbody::cli
