#pragma once
// Compares a simulation's own projection (Simulation::project: the GPU splat on the CUDA backend,
// the host store on the CPU) with the float64 CPU splat of its particles at the same centre, within
// the bound render/splat_gpu.hpp states: the same bodies on the same pixels, and a pixel of k bodies
// within k * 2^-23 of its mass (exact on the host in fp64).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "nbody/simulation.hpp"
#include "render/projection.hpp"

namespace nbody::test {

inline void expect_projection_matches_cpu(Simulation& sim, const render::Camera& camera, int nx, int ny,
                                          std::span<const std::uint8_t> components, double per_body_bound) {
  const render::DensityMap own = sim.project(camera, nx, ny, components);
  const Particles<double> p = sim.particles();
  const render::DensityMap cpu = render::project_bodies<double>(p.x, p.y, p.z, p.m, components, camera, nx, ny);
  // Bodies per pixel: the same projection with unit masses.
  const std::vector<double> ones(p.size(), 1.0);
  const render::DensityMap count = render::project_bodies<double>(p.x, p.y, p.z, ones, {}, camera, nx, ny);
  ASSERT_EQ(own.mass.size(), cpu.mass.size());
  EXPECT_EQ(own.bodies_inside, cpu.bodies_inside);
  EXPECT_GT(cpu.bodies_inside, p.size() / 4) << "the view holds a fair share of the bodies";
  EXPECT_LT(cpu.bodies_inside, p.size()) << "and leaves some out";
  // The mass inside: a float64 sum of the same bodies in another order (the GPU's block
  // reductions), within the bound of a reordered sum of n positive terms, n * 2^-52 of it.
  EXPECT_NEAR(own.mass_inside, cpu.mass_inside, double(cpu.bodies_inside) * 0x1p-52 * cpu.mass_inside);
  std::size_t bad = 0;
  for (std::size_t k = 0; k < cpu.mass.size(); ++k) {
    const double bound = count.mass[k] * per_body_bound * cpu.mass[k];
    if (!(std::fabs(own.mass[k] - cpu.mass[k]) <= bound) && bad++ < 5)
      ADD_FAILURE() << "pixel " << k << ": " << own.mass[k] << " vs " << cpu.mass[k] << " (" << count.mass[k]
                    << " bodies)";
  }
  EXPECT_EQ(bad, 0u);
  ASSERT_EQ(own.rgb_mass.size(), cpu.rgb_mass.size());
  for (std::size_t k = 0; k < cpu.rgb_mass.size(); ++k) {
    // The palette's colours in float too: one more rounding a body.
    const double bound = (count.mass[k / 3] + 1) * per_body_bound * cpu.mass[k / 3] + 1e-300;
    if (!(std::fabs(own.rgb_mass[k] - cpu.rgb_mass[k]) <= bound) && bad++ < 5)
      ADD_FAILURE() << "colour " << k << ": " << own.rgb_mass[k] << " vs " << cpu.rgb_mass[k];
  }
  EXPECT_EQ(bad, 0u);
}

}  // namespace nbody::test
