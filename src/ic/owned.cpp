#include "ic/owned.hpp"

#include <cmath>
#include <string>

#include "comm/chained_sum.hpp"
#include "ic/hernquist.hpp"
#include "ic/king.hpp"
#include "ic/model_tools.hpp"
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

// ic::kinetic_energy (ic/model_tools.cpp) chained over the ranks' id blocks.
double kinetic_energy_owned(comm::Communicator& c, const Particles<double>& p) {
  return comm::chained_sum(c, {0.0}, [&](std::vector<double>& q) {
    double k = q[0];
    for (std::size_t i = 0; i < p.size(); ++i) {
      k += 0.5 * p.m[i] * (p.vx[i] * p.vx[i] + p.vy[i] * p.vy[i] + p.vz[i] * p.vz[i]);
    }
    q[0] = k;
  })[0];
}

// The global steps of each model's make_* after its draws (ic/*.cpp), on this rank's block.
// false for a model whose global steps are not written for owned bodies.
bool global_steps(comm::Communicator& c, const IcRequest& req, Particles<double>& p) {
  const std::string& name = req.name;
  if (name == "cube") return true;
  if (name == "plummer" || name == "shell" || name == "expand") {
    centre_owned(c, p);
    return true;
  }
  if (name == "king" || name == "hernquist") {
    ic::apply(p, name == "king" ? ic::solve_king(req.model.king_w0).henon : ic::hernquist_model().henon);
    centre_owned(c, p);
    return true;
  }
  if (name == "uniform-sphere") {
    // make_uniform_sphere: centred, then the velocities scaled to the virial ratio.
    centre_owned(c, p);
    const double k = kinetic_energy_owned(c, p);
    const double k_target = req.model.virial_ratio * 0.5 * 3.0 / (5.0 * uniform_sphere_radius(req));
    const double s = k > 0 ? std::sqrt(k_target / k) : 0.0;
    for (std::size_t i = 0; i < p.size(); ++i) {
      p.vx[i] *= s;
      p.vy[i] *= s;
      p.vz[i] *= s;
    }
    return true;
  }
  return false;
}

}  // namespace

template <class T>
comm::OwnedBodies<T> draw_owned_bodies(comm::Communicator& c, const IcRequest& request) {
  const IcInfo& info = find_initial_conditions(request.name);
  if (request.n < 0) throw_input_error("n: " + std::to_string(request.n) + " is negative");
  const comm::Block mine = comm::block_of(request.n, c.size(), c.rank());
  IcRequest named = request;
  named.name = info.name;
  Particles<double> p = draw_bodies(named, std::size_t(mine.first), std::size_t(mine.first + mine.count));
  if (!global_steps(c, named, p)) {
    throw_input_error("ic: '" + info.name +
                      "' is not drawn by rank-owned bodies yet (its global steps need the whole set); cube, plummer, "
                      "king, hernquist, uniform-sphere, shell and expand are");
  }
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
