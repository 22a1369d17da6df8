// The GPU splat (render/splat_gpu.cu) against the float64 CPU splat: a 200000-body Plummer sphere
// on a 1920x1080 map, orthographic and perspective, one map and colour by component, fp32 and fp64
// stores. Label gpu; skipped where no CUDA device is usable.
#include "projection_check.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

constexpr double kFloatSum = 0x1p-23;  // render/splat_gpu.hpp: k bodies, k * 2^-23 of the mass

class GpuProjection : public ::testing::TestWithParam<Precision> {};

TEST_P(GpuProjection, MatchesTheFloat64CpuMapWithinTheStatedBound) {
  NBODY_SKIP_IF_UNAVAILABLE((BackendCase{"cuda", GetParam()}));
  RunConfig cfg;
  cfg.n = 200000;
  cfg.device = "cuda";
  cfg.precision = to_string(GetParam());
  auto sim = Simulation::create(cfg);
  render::Camera ortho;
  ortho.centre = render::Vec3{0.01, -0.02, 0.0};
  ortho.width = 3;
  ortho.direction = {0.3, -0.2, -1};
  expect_projection_matches_cpu(*sim, ortho, 1920, 1080, {}, kFloatSum);
  render::Camera persp = ortho;
  persp.projection = render::Projection::perspective;
  persp.distance = 2.5;
  persp.fov_degrees = 45;
  std::vector<std::uint8_t> components(sim->size());
  for (std::size_t k = 0; k < components.size(); ++k) components[k] = std::uint8_t(k % 3);
  expect_projection_matches_cpu(*sim, persp, 1920, 1080, components, kFloatSum);
  // The default centre, the centre of mass, from the device's reduction.
  const render::DensityMap com = sim->project(render::Camera{.width = 3}, 64, 36);
  const Particles<double> p = sim->particles();
  const render::DensityMap cpu = render::project_bodies<double>(p.x, p.y, p.z, p.m, {}, render::Camera{.width = 3}, 64, 36);
  for (int q = 0; q < 3; ++q) EXPECT_NEAR(com.centre[std::size_t(q)], cpu.centre[std::size_t(q)], 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Precisions, GpuProjection, ::testing::Values(Precision::fp32, Precision::fp64),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace nbody::test
