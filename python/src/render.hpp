#pragma once
// Simulation.render: the picture of the bodies as an RGB numpy array (render/shade.hpp's colours
// of Simulation::project's map), and the PNG bytes of such an array for Jupyter (_repr_png_).
#include <optional>
#include <string>

#include "common.hpp"
#include "nbody/camera.hpp"
#include "nbody/simulation.hpp"

namespace nbody::py {

struct RenderRequest {
  render::Camera camera;
  bool auto_width = true;  // the orthographic width from the bodies (render::auto_width)
  int width = 1920, height = 1080;
  std::string colormap = "magma";
  double decades = 4;
};

// An (height, width, 3) uint8 array, rows from the top. `components`: None, or one small integer
// per body (colour by component). An input error for a bad request; in a build without the
// renderer an input error that says so.
[[nodiscard]] pb::array render_image(Simulation& sim, const RenderRequest& request, const pb::object& components);

}  // namespace nbody::py
