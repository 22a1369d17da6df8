// Two disk galaxies on a parabolic orbit, in Henon-like units: G = 1, total mass M = 1,
// total energy about -1/4.
//
// Recipe.
// 1. Each galaxy is the `disk-galaxy` model (disk_galaxy.cpp, same --disk-fraction,
//    --bulge-fraction, --toomre-q), drawn in Henon units (mass 1, E = -1/4) and then given half
//    the mass and half the size: masses and lengths times 1/2, velocities unchanged (v^2 ~ GM/L).
//    Each galaxy then has E = -1/8, so the two together have internal energy -1/4 and the
//    parabolic orbit adds none (as point masses). Galaxy 1 holds the first n - n/2 bodies (ids
//    0 .. n - n/2 - 1), galaxy 2 the other n/2; for odd n the bodies of the two galaxies differ
//    in mass by the factor (n - n/2) / (n/2).
// 2. Orientation: each disk starts in the x-y plane spinning about +z, and is turned by its
//    inclination (--incl1, --incl2, degrees) about the x axis, the line through the pericentre:
//    0 is a prograde encounter in the orbital plane, 180 a retrograde one, 90 a polar one.
// 3. Orbit: the relative orbit of the centres is the parabola of two point masses m1 = m2 = 1/2
//    (G (m1 + m2) = 1) in the x-y plane, pericentre distance q (--pericentre, default 0.4) on the
//    +x axis, counter-clockwise (orbital angular momentum along +z). It starts at separation d
//    (--separation, default 3; d >= q) before pericentre: true anomaly f < 0 with
//    d = 2q / (1 + cos f), relative velocity sqrt(G M / 2q) (-sin f, 1 + cos f, 0). Each galaxy
//    is placed about the common centre of mass at rest at the origin. Time to pericentre (as
//    point masses): sqrt(2 q^3 / G M) (D + D^3 / 3), D = tan(f / 2), e.g. 2.9 for q = 0.4, d = 3.
//    The halos are extended (each reaches 55 R_d, about 5 here), so the real orbit departs from
//    the point-mass parabola as they overlap, and their mutual energy is less negative than
//    -m1 m2 / d: the total energy is -1/4 only to within that difference, about +0.003 at d = 3
//    (+0.06 at d = 1; measured in the tests).
// In these units each disk's scale length is about 0.1 (0.5 of the disk-galaxy's 0.19).
// Components: galaxy 1's disk, bulge and halo are components 0, 1, 2 ("galaxy1.disk",
// "galaxy1.bulge", "galaxy1.halo"), galaxy 2's are 3, 4, 5 ("galaxy2.disk", ...): component
// 3 g + k is part k (ic::kComponentDisk, Bulge, Halo) of galaxy g (0 or 1).
//
// n is the total number of bodies of both galaxies (n >= 6).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "ic/galaxy.hpp"
#include "ic/ic.hpp"
#include "ic/model_tools.hpp"
#include "ic/setup_log.hpp"
#include "nbody/error.hpp"

namespace nbody {

void draw_galaxy_collision(const IcRequest& req, Particles<double>& p, std::size_t begin, std::size_t end) {
  ic::require_at_least("galaxy-collision", req.n, 6);
  const ic::GalaxyParams params = ic::galaxy_params(req.model);
  const auto n = static_cast<std::size_t>(req.n);
  const std::size_t n1 = n - n / 2, n2 = n / 2;
  if (begin < n1) {
    ic::draw_galaxy(n1, req.seed, 0, params, "galaxy-collision", p, begin, std::min(end, n1), 0);
  }
  if (end > n1) {
    const std::size_t lo = std::max(begin, n1);
    ic::draw_galaxy(n2, req.seed, n1, params, "galaxy-collision", p, lo - n1, end - n1, lo - begin,
                    ic::kGalaxyComponents);
  }
}

Particles<double> make_galaxy_collision(const IcRequest& req) {
  ic::require_at_least("galaxy-collision", req.n, 6);
  const double q = req.model.pericentre;
  const double d = req.model.separation;
  if (!(d >= q)) {
    throw_input_error("separation: must be at least the pericentre distance (got separation " + std::to_string(d) +
                      " < pericentre " + std::to_string(q) + ")");
  }
  const ic::GalaxyParams params = ic::galaxy_params(req.model);
  const auto n = static_cast<std::size_t>(req.n);
  const std::size_t n1 = n - n / 2, n2 = n / 2;
  const double deg = std::numbers::pi / 180.0;
  // Galaxy 2's bodies have global indices n1 .. n - 1: their streams differ from galaxy 1's.
  const ic::Galaxy g1 = ic::make_galaxy(n1, req.seed, 0, params, "galaxy-collision", req.log, "galaxy 1 of 2");
  const ic::Galaxy g2 = ic::make_galaxy(n2, req.seed, n1, params, "galaxy-collision", req.log, "galaxy 2 of 2");

  // The relative orbit: r2 - r1 and v2 - v1, G (m1 + m2) = 1.
  const double cos_f = 2.0 * q / d - 1.0;
  const double f = -std::acos(std::clamp(cos_f, -1.0, 1.0));
  const double rel_x[3] = {d * std::cos(f), d * std::sin(f), 0.0};
  const double speed = std::sqrt(1.0 / (2.0 * q));
  const double rel_v[3] = {-speed * std::sin(f), speed * (1.0 + std::cos(f)), 0.0};

  const ic::SetupPhase phase(req.log, n, "placing the galaxies on their orbit");
  Particles<double> p;
  p.resize(n);
  const ic::Galaxy* galaxies[2] = {&g1, &g2};
  const double incl[2] = {req.model.incl1 * deg, req.model.incl2 * deg};
  const double side[2] = {-0.5, 0.5};  // r1 = -(m2 / M) r_rel, r2 = (m1 / M) r_rel
  std::size_t offset = 0;
  for (int g = 0; g < 2; ++g) {
    const Particles<double>& src = galaxies[g]->particles;
    const std::size_t begin = offset, end = offset + src.size();
    const auto count = static_cast<std::int64_t>(src.size());
    // Each body copied alone: the same bits on any number of threads.
#pragma omp parallel for schedule(static) if (count >= 2 * ic::kParallelMinBodies)
    for (std::int64_t j = 0; j < count; ++j) {
      const auto i = static_cast<std::size_t>(j);
      const std::size_t k = begin + i;
      p.x[k] = 0.5 * src.x[i];
      p.y[k] = 0.5 * src.y[i];
      p.z[k] = 0.5 * src.z[i];
      p.vx[k] = src.vx[i];
      p.vy[k] = src.vy[i];
      p.vz[k] = src.vz[i];
      p.m[k] = 0.5 * src.m[i];
      p.id[k] = k;
      p.component[k] = static_cast<std::uint8_t>(g * ic::kGalaxyComponents + src.component[i]);
    }
    ic::rotate_about_x(p, incl[g], begin, end);
    const double dx[3] = {side[g] * rel_x[0], side[g] * rel_x[1], side[g] * rel_x[2]};
    const double dv[3] = {side[g] * rel_v[0], side[g] * rel_v[1], side[g] * rel_v[2]};
    ic::shift(p, begin, end, dx, dv);
    offset = end;
  }
  centre(p);
  return p;
}

}  // namespace nbody
