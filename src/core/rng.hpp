#pragma once
// Random numbers for initial conditions: std::mt19937_64, whose sequence the C++ standard fixes,
// and our own conversion to doubles (std::uniform_real_distribution is not specified exactly),
// so a seed gives the same particles with every compiler and library.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

namespace nbody {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}

  // Uniform in [0, 1): the top 53 bits of one draw.
  double uniform() { return double(engine_() >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1): never exactly zero, for logarithms and negative powers.
  double uniform_open() {
    double u;
    do u = uniform();
    while (u == 0.0);
    return u;
  }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // A standard normal deviate by the Box-Muller transform (one value of each pair is used, so a
  // draw consumes exactly two uniforms).
  double normal() {
    const double u = uniform_open();
    const double v = uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
  }
  // A unit vector uniform on the sphere.
  void unit_vector(double& x, double& y, double& z) {
    const double cos_t = uniform(-1.0, 1.0);
    const double sin_t = std::sqrt(1.0 - cos_t * cos_t);
    const double phi = 2.0 * std::numbers::pi * uniform();
    x = sin_t * std::cos(phi);
    y = sin_t * std::sin(phi);
    z = cos_t;
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace nbody
