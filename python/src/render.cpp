#include "render.hpp"

#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "nbody/error.hpp"
#include "render/projection.hpp"
#if NBODY_HAVE_RENDER
#include "render/image.hpp"
#include "render/shade.hpp"
#endif

namespace nbody::py {

pb::array render_image(Simulation& sim, const RenderRequest& r, const pb::object& components) {
#if NBODY_HAVE_RENDER
  const render::ColormapId colormap = render::colormap(r.colormap).id;
  if (!(r.decades > 0 && r.decades <= 30)) throw_input_error("render: decades must be in (0, 30]");
  std::vector<std::uint8_t> comp;
  if (!components.is_none()) {
    const auto a = pb::array_t<std::int64_t, pb::array::c_style | pb::array::forcecast>::ensure(components);
    if (!a || a.ndim() != 1) throw_input_error("render: components must be a 1-D array of integers, one per body");
    comp.resize(std::size_t(a.size()));
    for (pb::ssize_t k = 0; k < a.size(); ++k) {
      const std::int64_t c = a.at(k);
      if (c < 0 || c > 255) throw_input_error("render: component " + std::to_string(c) + " of body " + std::to_string(k) + " is not in 0..255");
      comp[std::size_t(k)] = std::uint8_t(c);
    }
  }
  render::Camera camera = r.camera;
  render::check_camera(camera, r.width, r.height);
  render::Image image;
  {
    pb::gil_scoped_release release;
    if (r.auto_width && camera.projection == render::Projection::orthographic) {
      const Particles<double> p = sim.particles();
      camera.width = render::auto_width<double>(p.x, p.y, p.z, p.m, camera.centre);
    }
    const render::DensityMap map = sim.project(camera, r.width, r.height, comp);
    image = render::shaded_image(map, colormap, r.decades);
  }
  pb::array_t<std::uint8_t> out({pb::ssize_t(image.height), pb::ssize_t(image.width), pb::ssize_t(3)});
  std::memcpy(out.mutable_data(), image.pixels.data(), image.pixels.size());
  return out;
#else
  (void)sim, (void)r, (void)components;
  throw_input_error("render: this build of nbody has no renderer (it needs libpng and cairo; configure with "
                    "-DNBODY_ENABLE_RENDER=ON)");
#endif
}

void bind_render(pb::module_& m) {
  m.def(
      "encode_png",
      [](const pb::array_t<std::uint8_t, pb::array::c_style | pb::array::forcecast>& a) {
#if NBODY_HAVE_RENDER
        if (a.ndim() != 3 || a.shape(2) != 3) throw_input_error("encode_png: expected an (height, width, 3) uint8 array");
        render::Image im(int(a.shape(1)), int(a.shape(0)), 3);
        std::memcpy(im.pixels.data(), a.data(), im.pixels.size());
        return pb::bytes(render::encode_png(im));
#else
        (void)a;
        throw_input_error("encode_png: this build of nbody has no renderer");
        return pb::bytes();
#endif
      },
      pb::arg("rgb"), "The PNG file of an (height, width, 3) uint8 RGB array.");
}

}  // namespace nbody::py
