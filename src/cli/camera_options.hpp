#pragma once
// The camera and image options of the pictures of gravity runs, shared by `nbody run
// --render-every` (flags --render-camera, --render-width, ...) and `nbody render` (--camera,
// --width, ...): registered with a prefix, checked into RenderSettings (an input error naming the
// flag and its value), and written back as arguments (a run directory keeps its frames' settings
// in frames/render.args, so --resume renders the same frames).
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "nbody/camera.hpp"

namespace nbody::cli {

struct RenderSettings {
  render::Camera camera;
  bool auto_width = false;  // orthographic width from the bodies (resolve_auto_width)
  int nx = 1920, ny = 1080;
  std::string colormap = "magma";
  double decades = 4;
  // The components shown: "all", or comma-separated names or shell patterns ("*.disk,*.bulge"),
  // resolved against the bodies' component names by render::component_mask.
  std::string components = "all";
  // The settings as arguments without prefix ("--camera perspective --fov 50 ..."), the width
  // resolved when it is known.
  [[nodiscard]] std::vector<std::string> as_arguments() const;
};

class CameraOptions {
 public:
  // prefix "render-" gives --render-camera, --render-width, ...; "" gives --camera, --width, ...
  void add_to(CLI::App& app, const std::string& prefix);
  // Whether any of these flags was given.
  [[nodiscard]] bool any_given() const;
  // The first of these flags given other than the colour map's ("" when none): a PIC run's
  // pictures have no camera.
  [[nodiscard]] std::string camera_flag_given() const;
  // The colour map's flag's value when it was given, else "".
  [[nodiscard]] std::string colormap_given() const;
  [[nodiscard]] RenderSettings resolve() const;

 private:
  std::string prefix_;
  std::string projection_ = "orthographic", centre_ = "com", direction_ = "0,0,-1", up_ = "0,1,0",
              width_ = "auto", size_ = "1920x1080", colormap_ = "magma", components_ = "all";
  double fov_ = 60, distance_ = 0, decades_ = 4;
  std::vector<CLI::Option*> options_;
};

// The settings stored as arguments (as_arguments), parsed back; an input error naming `source`.
[[nodiscard]] RenderSettings parse_render_arguments(const std::vector<std::string>& args, const std::string& source);

}  // namespace nbody::cli
