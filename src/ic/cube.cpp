#include "core/rng.hpp"
#include "ic/ic.hpp"

namespace nbody {

Particles<double> make_cube(const IcRequest& req) {
  Particles<double> p;
  p.resize(static_cast<std::size_t>(req.n));
  Rng rng(req.seed);
  // Drawn per body in the order x, y, z, vx, vy, vz, as the documents' randomizeBodies fills
  // its array of {x, y, z, vx, vy, vz} structures.
  for (std::size_t i = 0; i < p.size(); ++i) {
    p.x[i] = rng.uniform(-1.0, 1.0);
    p.y[i] = rng.uniform(-1.0, 1.0);
    p.z[i] = rng.uniform(-1.0, 1.0);
    p.vx[i] = rng.uniform(-1.0, 1.0);
    p.vy[i] = rng.uniform(-1.0, 1.0);
    p.vz[i] = rng.uniform(-1.0, 1.0);
    p.m[i] = 1.0;
    p.id[i] = i;
  }
  return p;
}

}  // namespace nbody
