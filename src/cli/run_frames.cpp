#include "cli/run_frames.hpp"

#include <fstream>
#include <string>
#include <vector>

#include "cli/run_hooks.hpp"
#include "io/atomic_file.hpp"
#include "nbody/error.hpp"
#if NBODY_HAVE_RENDER
#include "render/colormap.hpp"
#include "run/frame_output.hpp"
#endif

namespace nbody::cli {

void FrameOptions::add_to(CLI::App& app) {
  every_option =
      app.add_option("--render-every", every,
                     "a frame of the bodies every K steps (and at step 0) into DIR/frames/frame_<step>.png: the "
                     "projected surface density, log scale, annotated (docs/pictures.md); camera and image by the "
                     "--render-* flags; --resume renders the same frames")
          ->type_name("K");
  threads_option = app.add_option("--render-threads", threads,
                                  "threads that draw and encode the frames beside the run (default: the cores less "
                                  "one, at most 8); the frames are the same for any number")
                       ->type_name("N")
                       ->check(CLI::Range(1, 64));
  camera.add_to(app, "render-");
}

namespace {

std::filesystem::path render_args_path(const std::filesystem::path& dir) { return dir / "frames" / "render.args"; }

// (Used only in a build with the renderer.)
[[maybe_unused]] void save_frame_request(const std::filesystem::path& dir, std::int64_t every, const RenderSettings& s) {
  std::string text = "--every\n" + std::to_string(every) + "\n";
  for (const std::string& a : s.as_arguments()) text += a + "\n";
  write_file_atomic(render_args_path(dir), text);
}

}  // namespace

std::optional<FrameRequest> load_frame_request(const std::filesystem::path& dir) {
  const std::filesystem::path path = render_args_path(dir);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  std::ifstream in(path);
  std::vector<std::string> args;
  for (std::string line; std::getline(in, line);) args.push_back(line);
  if (!in.eof() || args.size() < 2 || args[0] != "--every")
    throw_input_error(path.string() + ": not a frames settings file (--every K, then camera options)");
  FrameRequest r;
  try {
    r.every = std::stoll(args[1]);
  } catch (const std::exception&) {
    throw_input_error(path.string() + ": --every '" + args[1] + "' is not a step count");
  }
  if (r.every <= 0) throw_input_error(path.string() + ": --every " + args[1] + " is not > 0");
  r.settings = parse_render_arguments({args.begin() + 2, args.end()}, path.string());
  return r;
}

std::optional<FrameRequest> frame_request(const FrameOptions& opts, const std::optional<FrameRequest>& stored) {
  const bool every_given = opts.every_option->count() > 0;
  const bool threads_given = opts.threads_option != nullptr && opts.threads_option->count() > 0;
  if (!every_given && !stored) {
    if (opts.camera.any_given())
      throw_input_error("--render-every: the camera flags (--render-camera, --render-width, ...) need --render-every K");
    if (threads_given) throw_input_error("--render-threads: " + std::to_string(opts.threads) + " needs --render-every K");
  }
  if (!every_given && !opts.camera.any_given()) {
    if (!stored) return std::nullopt;
    FrameRequest r = *stored;
    r.threads = threads_given ? opts.threads : 0;
    return r;
  }
#if !NBODY_HAVE_RENDER
  throw_input_error("--render-every: this build of nbody has no renderer (it needs libpng and cairo: Debian "
                    "libpng-dev, libcairo2-dev; configure with -DNBODY_ENABLE_RENDER=ON)");
#endif
  FrameRequest r;
  r.every = every_given ? opts.every : stored->every;
  if (r.every <= 0) throw_input_error("--render-every: " + std::to_string(opts.every) + " is not > 0");
  r.settings = opts.camera.any_given() || !stored ? opts.camera.resolve() : stored->settings;
  r.threads = threads_given ? opts.threads : 0;
  return r;
}

int run_with_frames(bool has_directory, const std::optional<FrameRequest>& frames, const std::filesystem::path& dir,
                    const std::function<RunResult(const RunHooks&)>& run) {
  if (!frames) return run_with_the_program_hooks(has_directory, run);
#if NBODY_HAVE_RENDER
  runloop::FrameSettings fs;
  fs.every = frames->every;
  fs.camera = frames->settings.camera;
  fs.auto_width = frames->settings.auto_width;
  fs.nx = frames->settings.nx, fs.ny = frames->settings.ny;
  fs.components = frames->settings.components;
  fs.style.colormap = render::colormap(frames->settings.colormap).id;
  fs.style.decades = frames->settings.decades;
  fs.directory = dir / "frames";
  fs.workers = std::size_t(frames->threads);
  RenderSettings saved = frames->settings;
  const std::int64_t every = frames->every;
  fs.resolved = [dir, saved, every](const render::Camera& camera) mutable {
    saved.camera = camera;
    saved.auto_width = false;
    save_frame_request(dir, every, saved);
  };
  runloop::FrameOutput output(std::move(fs));
  return run_with_the_program_hooks(has_directory, [&](const RunHooks& given) {
    RunHooks hooks = given;
    hooks.outputs.push_back(&output);
    return run(hooks);
  });
#else
  (void)dir, (void)run, (void)has_directory;
  throw_input_error("--render-every: this build of nbody has no renderer");
#endif
}

}  // namespace nbody::cli
