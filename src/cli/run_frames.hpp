#pragma once
// nbody run's frames (--render-every K and the --render-* camera flags): the request from the
// flags or, for --resume, from the run directory's frames/render.args (one argument a line:
// --every K, then the camera's, the width resolved), so that a resumed run renders the same frames;
// and the run with a FrameOutput among its hooks' outputs (src/run/frame_output.hpp).
#include <CLI/CLI.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>

#include "cli/camera_options.hpp"
#include "nbody/run.hpp"

namespace nbody::cli {

struct FrameOptions {
  std::int64_t every = 0;
  CLI::Option* every_option = nullptr;
  int threads = 0;  // --render-threads (0: not given)
  CLI::Option* threads_option = nullptr;
  CameraOptions camera;
  void add_to(CLI::App& app);
};

struct FrameRequest {
  std::int64_t every = 0;
  RenderSettings settings;
  int threads = 0;  // the threads drawing frames (0: the default); not stored, the frames are the same
};

// The run directory's frames/render.args, if it has one (an input error naming it when it is bad).
[[nodiscard]] std::optional<FrameRequest> load_frame_request(const std::filesystem::path& dir);
// What the flags ask for (none without --render-every or camera flags); `stored`: a resumed run's
// frames/render.args, used where the flags say nothing. An input error for bad flags, and in a
// build without the renderer.
[[nodiscard]] std::optional<FrameRequest> frame_request(const FrameOptions& opts,
                                                        const std::optional<FrameRequest>& stored);

// The program's hooks (run_hooks.hpp) and, with `frames`, a FrameOutput into dir/frames; the exit status.
int run_with_frames(bool has_directory, const std::optional<FrameRequest>& frames, const std::filesystem::path& dir,
                    const std::function<RunResult(const RunHooks&)>& run);

}  // namespace nbody::cli
