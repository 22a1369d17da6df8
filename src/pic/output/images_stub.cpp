// The PIC images in a build without the renderer (NBODY_ENABLE_RENDER=OFF): it says so. The
// deck's validation refuses output.images_every > 0 before anything is written.
#include "nbody/error.hpp"
#include "pic/output/images.hpp"

namespace nbody::pic {

bool images_available(std::string* why) {
  if (why)
    *why = "this build of nbody has no renderer (it needs libpng and cairo: Debian libpng-dev, libcairo2-dev; "
           "configure with -DNBODY_ENABLE_RENDER=ON)";
  return false;
}

std::vector<std::string> image_quantities(const PicSimulation& sim) {
  std::vector<std::string> q = {"Ey", "Ez", "Bz", "E_abs"};
  for (const Species& sp : sim.species())
    for (const char* what : {"density_", "phase_", "spectrum_"}) q.push_back(what + sp.name);
  return q;
}

void check_image_request(const ImageRequest&, const PicSimulation&) {
  throw_input_error("pic: images need a build with the renderer (configure with -DNBODY_ENABLE_RENDER=ON)");
}

std::vector<std::filesystem::path> write_images(const ImageRequest&, PicSimulation&) {
  throw_input_error("pic: images need a build with the renderer (configure with -DNBODY_ENABLE_RENDER=ON)");
}

void write_images(const std::string&, PicSimulation&) {
  throw_input_error("pic: images need a build with the renderer (configure with -DNBODY_ENABLE_RENDER=ON)");
}

}  // namespace nbody::pic
