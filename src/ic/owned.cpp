#include "ic/owned.hpp"

#include <string>

#include "comm/chained_sum.hpp"
#include "nbody/error.hpp"

namespace nbody {
namespace {

// centre() (ic/registry.cpp) with its sums chained over the ranks' id blocks.
void centre_owned(comm::Communicator& c, Particles<double>& p) {
  const auto s = comm::chained_sum(c, std::vector<double>(7, 0.0), [&](std::vector<double>& q) {
    double m = q[0], x = q[1], y = q[2], z = q[3], vx = q[4], vy = q[5], vz = q[6];
    for (std::size_t i = 0; i < p.size(); ++i) {
      m += p.m[i];
      x += p.m[i] * p.x[i];
      y += p.m[i] * p.y[i];
      z += p.m[i] * p.z[i];
      vx += p.m[i] * p.vx[i];
      vy += p.m[i] * p.vy[i];
      vz += p.m[i] * p.vz[i];
    }
    q = {m, x, y, z, vx, vy, vz};
  });
  const double m = s[0];
  if (m <= 0) return;
  for (std::size_t i = 0; i < p.size(); ++i) {
    p.x[i] -= s[1] / m;
    p.y[i] -= s[2] / m;
    p.z[i] -= s[3] / m;
    p.vx[i] -= s[4] / m;
    p.vy[i] -= s[5] / m;
    p.vz[i] -= s[6] / m;
  }
}

}  // namespace

template <class T>
comm::OwnedBodies<T> draw_owned_bodies(comm::Communicator& c, const IcRequest& request) {
  const IcInfo& info = find_initial_conditions(request.name);
  const bool centred = info.name == "shell" || info.name == "expand";
  if (info.name != "cube" && !centred) {
    throw_input_error("ic: '" + info.name +
                      "' is not drawn by rank-owned bodies yet (its scaling needs the whole set); cube, shell and "
                      "expand are");
  }
  if (request.n < 0) throw_input_error("n: " + std::to_string(request.n) + " is negative");
  const comm::Block mine = comm::block_of(request.n, c.size(), c.rank());
  Particles<double> p = draw_bodies(request, std::size_t(mine.first), std::size_t(mine.first + mine.count));
  if (centred) centre_owned(c, p);
  p.component_names = info.components;
  to_unit_system(p, info.native, request.model, info.name);
  comm::OwnedBodies<T> b;
  b.p = p.template as<T>();
  b.work.assign(b.size(), 1);
  b.n_total = request.n;
  return b;
}

template comm::OwnedBodies<float> draw_owned_bodies<float>(comm::Communicator&, const IcRequest&);
template comm::OwnedBodies<double> draw_owned_bodies<double>(comm::Communicator&, const IcRequest&);

}  // namespace nbody
