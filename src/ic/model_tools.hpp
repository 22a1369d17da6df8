#pragma once
// Small pieces shared by the initial-condition generators: scaling to Henon units, quadrature,
// rotations, input checks.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/rng.hpp"
#include "nbody/particles.hpp"

namespace nbody::ic {

// Factors that take a model with G = 1, total mass `mass` and total energy `energy` (< 0) to
// Henon units (G = M = 1, E = -1/4): lengths times `length`, velocities times `velocity`, and
// masses divided by `mass`. With mu = 1 / mass the energy becomes E mu^2 / length, so
// length = -4 E mu^2 and velocity = sqrt(mu / length).
struct HenonScale {
  double length = 1;
  double velocity = 1;
};
[[nodiscard]] HenonScale henon_scale(double mass, double energy, std::string_view ic_name);
// Multiplies positions by s.length and velocities by s.velocity.
void apply(Particles<double>& p, const HenonScale& s);

// Positions and velocities of bodies [begin, end) turned by `angle` radians about the x axis.
void rotate_about_x(Particles<double>& p, double angle, std::size_t begin, std::size_t end);
// Positions shifted by (dx, dy, dz) and velocities by (dvx, dvy, dvz) for bodies [begin, end).
void shift(Particles<double>& p, std::size_t begin, std::size_t end, const double dx[3], const double dv[3]);

// K = 1/2 sum m v^2.
[[nodiscard]] double kinetic_energy(const Particles<double>& p);
// W = -sum_{i<j} m_i m_j / r_ij (G = 1, unsoftened), estimated from the bodies with index
// i = k * stride (stride = ceil(n / max_bodies)): the mean of m_i m_j / r_ij over the pairs of
// that subset times the number of pairs of the whole set. Exact (stride 1) when n <= max_bodies.
[[nodiscard]] double pair_potential_energy(const Particles<double>& p, std::size_t max_bodies);

// Composite Simpson rule with n (even) intervals.
template <class F>
double simpson(F f, double a, double b, int n) {
  const double h = (b - a) / n;
  double s = f(a) + f(b);
  for (int i = 1; i < n; ++i) s += (i % 2 ? 4.0 : 2.0) * f(a + i * h);
  return s * h / 3.0;
}

// Body k of p at radius r and with speed v, each in its own isotropic direction (position
// direction drawn first), mass m (its id is the caller's).
void place_isotropic(Particles<double>& p, std::size_t k, double r, double v, double m, BodyRng& rng);
// Body k's position uniform in the ball of the given radius (the radius drawn, then a direction).
void place_in_ball(Particles<double>& p, std::size_t k, double radius, BodyRng& rng);

// The streams of the models' bodies (BodyRng's component): one per kind of body, so that a
// body's draws depend only on (seed, kind, global index).
inline constexpr std::uint32_t kStreamBody = 0;   // the one-component models
inline constexpr std::uint32_t kStreamDisk = 1;   // the galaxies' disk, bulge and halo bodies
inline constexpr std::uint32_t kStreamBulge = 2;
inline constexpr std::uint32_t kStreamHalo = 3;

// Bodies drawn per thread at least before the drawing of a model is shared among threads.
inline constexpr std::int64_t kParallelMinBodies = 2048;

// Calls draw(k, i, rng) for every global index i in [begin, end), k = i - begin the body's place
// in the output, rng the stream (seed, component, i); on several threads for large ranges.
// Every body's values come from its own stream alone, so the result is the same for every
// thread count and every split of the range. draw must not throw.
template <class F>
void for_each_body(std::uint64_t seed, std::uint32_t component, std::size_t begin, std::size_t end, F&& draw) {
  const auto count = static_cast<std::int64_t>(end - begin);
#pragma omp parallel for schedule(static) if (count >= 2 * kParallelMinBodies)
  for (std::int64_t k = 0; k < count; ++k) {
    const std::size_t i = begin + static_cast<std::size_t>(k);
    BodyRng rng(seed, component, i);
    draw(static_cast<std::size_t>(k), i, rng);
  }
}

// Throws an input error "n: <ic> needs at least <min> bodies (got n)".
void require_at_least(std::string_view ic_name, std::int64_t n, std::int64_t min);

}  // namespace nbody::ic
