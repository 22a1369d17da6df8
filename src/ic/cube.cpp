#include "ic/ic.hpp"
#include "ic/model_tools.hpp"

namespace nbody {

void draw_cube(const IcRequest& req, Particles<double>& p, std::size_t begin, std::size_t end) {
  // Drawn per body in the order x, y, z, vx, vy, vz, as the documents' randomizeBodies fills
  // its array of {x, y, z, vx, vy, vz} structures.
  ic::for_each_body(req.seed, ic::kStreamBody, begin, end, [&](std::size_t k, std::size_t i, BodyRng& rng) {
    p.x[k] = rng.uniform(-1.0, 1.0);
    p.y[k] = rng.uniform(-1.0, 1.0);
    p.z[k] = rng.uniform(-1.0, 1.0);
    p.vx[k] = rng.uniform(-1.0, 1.0);
    p.vy[k] = rng.uniform(-1.0, 1.0);
    p.vz[k] = rng.uniform(-1.0, 1.0);
    p.m[k] = 1.0;
    p.id[k] = i;
  });
}

Particles<double> make_cube(const IcRequest& req) {
  Particles<double> p;
  p.resize(static_cast<std::size_t>(req.n));
  draw_cube(req, p, 0, p.size());
  return p;
}

}  // namespace nbody
