// nbody movie RUN_DIR: an H.264 MP4 of a run's frames through ffmpeg (docs/pictures.md).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cli/camera_options.hpp"
#include "cli/child_process.hpp"
#include "cli/commands.hpp"
#include "cli/pic_renders.hpp"
#include "cli/render_files.hpp"
#include "nbody/error.hpp"

namespace nbody::cli {
namespace {
namespace fs = std::filesystem;

struct MovieOptions {
  std::string run, out, quantity;
  int fps = 24;
};

// The PNG files in `dir` named `prefix` then a digit (the step) (any PNG for an empty prefix), in
// order: what ffmpeg's glob `prefix[0-9]*.png` takes.
std::vector<fs::path> pngs(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const bool step_follows = prefix.empty() || (name.size() > prefix.size() && std::isdigit(static_cast<unsigned char>(name[prefix.size()])));
    if (name.rfind(prefix, 0) == 0 && step_follows && e.path().extension() == ".png" && e.is_regular_file())
      files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The quantities of a PIC run's images ("Ey" of Ey_00000100.png).
std::string quantities(const fs::path& images) {
  std::set<std::string> names;
  for (const fs::path& f : pngs(images, "")) {
    const std::string stem = f.stem().string();
    const auto cut = stem.rfind('_');
    if (cut != std::string::npos) names.insert(stem.substr(0, cut));
  }
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return list.empty() ? "none" : list;
}

int execute(const MovieOptions& o) {
  const fs::path run = o.run;
  std::error_code ec;
  if (o.run.empty() || !fs::is_directory(run, ec)) throw_input_error("movie: '" + o.run + "' is not a run directory");
  if (o.fps < 1 || o.fps > 240) throw_input_error("movie: --fps " + std::to_string(o.fps) + " is not in 1..240");
  const std::string ffmpeg = find_on_path("ffmpeg");
  if (ffmpeg.empty())
    throw_input_error("movie: ffmpeg is not on PATH (Debian: apt-get install ffmpeg); the frames are PNG files a movie "
                      "tool can join");
  fs::path out = o.out;
  if (!out.empty() && out.extension() != ".mp4")
    throw_input_error("movie: --out " + out.string() + ": the movie is an .mp4 file");
  std::vector<fs::path> frames;
  std::string pattern;  // for ffmpeg's glob
  const fs::path images = run / "images";
  if (!o.quantity.empty()) {
    if (fs::is_directory(images, ec)) frames = pngs(images, o.quantity + "_");
    if (!frames.empty()) {
      pattern = (images / (o.quantity + "_[0-9]*.png")).string();
    } else if (is_pic_run(run)) {
      // No such series drawn during the run: drawn now from the dumps, into RUN/renders.
      PicRenderRequest r;
      r.run = run;
      r.out = run / "renders";
      r.quantities = {o.quantity};
      frames = render_pic_run(r);
      pattern = (r.out / (o.quantity + "_[0-9]*.png")).string();
    } else if (!fs::is_directory(images, ec)) {
      throw_input_error("movie: --quantity " + o.quantity + ": '" + o.run + "' is not a PIC run (no deck.toml)");
    } else {
      throw_input_error("movie: --quantity " + o.quantity + ": no such images in " + images.string() + " (there are: " +
                        quantities(images) + ")");
    }
    if (out.empty()) out = run / ("movie_" + o.quantity + ".mp4");
  } else {
    frames = pngs(run / "frames", "frame_");
    pattern = (run / "frames" / "frame_[0-9]*.png").string();
    if (frames.empty() && fs::is_directory(images, ec) && !pngs(images, "").empty())
      throw_input_error("movie: '" + o.run + "' is a PIC run: choose one image series with --quantity (" +
                        quantities(images) + ")");
    if (frames.empty() && is_pic_run(run))
      throw_input_error("movie: '" + o.run + "' is a PIC run: choose one quantity with --quantity (Ey, Ez, Bz, E_abs, "
                        "density_<species>, phase_<species>, spectrum_<species>), drawn from its dumps");
    if (frames.empty()) {
      // No frames: render the snapshots first (the default camera).
      const std::vector<fs::path> snapshots = run_snapshots(run);
      if (snapshots.empty())
        throw_input_error("movie: '" + o.run + "' has neither frames (nbody run --render-every) nor snapshots");
      CLI::App none;
      CameraOptions defaults;
      defaults.add_to(none, "");
      frames = render_files(snapshots, run / "renders", defaults.resolve(), "");
      pattern = (run / "renders" / "snapshot_[0-9]*.png").string();
    }
    if (out.empty()) out = run / "movie.mp4";
  }
  if (out.extension() != ".mp4") throw_input_error("movie: --out " + out.string() + ": the movie is an .mp4 file");
  // Written beside the target, then renamed: no half-written movie is left where it was asked for.
  const fs::path partial = out.parent_path() / (out.stem().string() + ".partial.mp4");
  const std::vector<std::string> args = {
      ffmpeg, "-nostdin", "-loglevel", "error", "-y", "-framerate", std::to_string(o.fps), "-pattern_type", "glob",
      "-i", pattern,
      // H.264 needs even sides: a frame of odd size gets one more row or column (its last).
      "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart",
      partial.string()};
  const int status = run_child(args);
  if (status != 0) {
    fs::remove(partial, ec);
    throw_runtime_error("movie: ffmpeg failed (exit status " + std::to_string(status) + ") on " + pattern);
  }
  fs::rename(partial, out, ec);
  if (ec) {
    fs::remove(partial, ec);
    throw_runtime_error("movie: cannot write '" + out.string() + "': " + ec.message());
  }
  std::printf("movie: %s (%zu frames, %d fps)\n", out.string().c_str(), frames.size(), o.fps);
  return 0;
}

}  // namespace

Command add_movie_command(CLI::App& parent) {
  auto* app = parent.add_subcommand(
      "movie",
      "Make an H.264 MP4 of a run through ffmpeg (which must be on PATH): of RUN/frames (nbody run --render-every), "
      "else of frames rendered from the run's snapshots (into RUN/renders); of a PIC run, one image series "
      "(--quantity Ey, from RUN/images, else drawn from the run's openPMD dumps into RUN/renders).");
  auto o = std::make_shared<MovieOptions>();
  app->add_option("run", o->run, "the run directory")->type_name("RUN_DIR")->required();
  app->add_option("--out", o->out, "the movie (default RUN/movie.mp4, PIC: RUN/movie_<quantity>.mp4)")
      ->type_name("FILE.mp4");
  app->add_option("--fps", o->fps, "frames per second (default 24)")->type_name("N");
  app->add_option("--quantity", o->quantity, "a PIC run's image series: Ey, Ez, Bz, E_abs, density_<species>, ...")
      ->type_name("Q");
  return {app, [o]() { return execute(*o); }};
}

}  // namespace nbody::cli
