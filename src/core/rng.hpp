#pragma once
// Random numbers.
//
// BodyRng (initial conditions): counter-based, one stream per (seed, component, body index),
// Philox-4x32-10 (core/philox.hpp) with our own conversion to doubles. Body i's draws are a pure
// function of the seed, the model component and i: they do not depend on the number of bodies,
// ranks or threads, nor on the order in which bodies are drawn, so any index range can be drawn
// alone and a model is drawn in parallel. Rejection sampling simply draws on along the body's
// stream (its internal counter).
//
// Rng: a sequential stream, std::mt19937_64, whose sequence the C++ standard fixes, for the
// perturbations of `nbody check` and the tests' own random data.
//
// Both convert to doubles themselves (std::uniform_real_distribution is not specified exactly),
// so a seed gives the same numbers with every compiler and library. They share the conversions
// below (DrawMethods) so a generator reads the same with either.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

#include "core/philox.hpp"

namespace nbody {

// The conversions of 64-bit draws to doubles, for an engine class E with `std::uint64_t next()`.
template <class E>
class DrawMethods {
 public:
  // Uniform in [0, 1): the top 53 bits of one draw.
  double uniform() { return double(self().next() >> 11) * 0x1.0p-53; }
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
  E& self() { return static_cast<E&>(*this); }
};

// The stream of one body: Philox-4x32-10 with key = the 64-bit seed and counter =
// (block, component, index low word, index high word). Each block gives two 64-bit draws
// (words 0-1 and 2-3, low word first); the block number is the body's internal draw counter.
class BodyRng : public DrawMethods<BodyRng> {
 public:
  BodyRng(std::uint64_t seed, std::uint32_t component, std::uint64_t index)
      : key_{std::uint32_t(seed), std::uint32_t(seed >> 32)},
        counter_{0, component, std::uint32_t(index), std::uint32_t(index >> 32)} {}

  std::uint64_t next() {
    if (have_ == 0) {
      const Philox4x32::Counter out = Philox4x32::apply(counter_, key_);
      ++counter_[0];
      buffer_[0] = std::uint64_t(out[0]) | std::uint64_t(out[1]) << 32;
      buffer_[1] = std::uint64_t(out[2]) | std::uint64_t(out[3]) << 32;
      have_ = 2;
    }
    return buffer_[2 - have_--];
  }
  // Draws made so far (64-bit words).
  [[nodiscard]] std::uint64_t draws() const { return 2 * std::uint64_t(counter_[0]) - have_; }

 private:
  Philox4x32::Key key_;
  Philox4x32::Counter counter_;
  std::uint64_t buffer_[2] = {0, 0};
  int have_ = 0;
};

class Rng : public DrawMethods<Rng> {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  std::uint64_t next() { return engine_(); }

 private:
  std::mt19937_64 engine_;
};

}  // namespace nbody
