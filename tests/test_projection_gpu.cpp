// The GPU splat (render/splat_gpu.cu) against the float64 CPU splat: a 200000-body Plummer sphere
// on a 1920x1080 map, orthographic and perspective, one map and colour by component, fp32 and fp64
// stores; and the same map shaded on the device against the host's shading. Label gpu; skipped
// where no CUDA device is usable.
#include "projection_check.hpp"
#include "support.hpp"
#if NBODY_HAVE_RENDER
#include "render/colormap.hpp"
#include "render/frame.hpp"
#include "render/shade.hpp"
#endif

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
  // Component 1 not drawn (Camera::shown): the same bodies left out on both sides.
  render::Camera some = persp;
  some.shown[0] &= ~std::uint64_t{2};
  expect_projection_matches_cpu(*sim, some, 1920, 1080, components, kFloatSum);
  // The default centre, the centre of mass, from the device's reduction.
  const render::DensityMap com = sim->project(render::Camera{.width = 3}, 64, 36);
  const Particles<double> p = sim->particles();
  const render::DensityMap cpu = render::project_bodies<double>(p.x, p.y, p.z, p.m, {}, render::Camera{.width = 3}, 64, 36);
  for (int q = 0; q < 3; ++q) EXPECT_NEAR(com.centre[std::size_t(q)], cpu.centre[std::size_t(q)], 1e-9);
}

#if NBODY_HAVE_RENDER
// Simulation::project_shaded (render/splat_gpu.hpp): the colours shaded on the device against the
// host's shade() of the same device map (project / project_components), one colour map and by
// component, at 1920x1080. Equal but where the device's log10 (1 ulp) crosses a colour step: at
// most one pixel in 10^4 differs, by one colour-map entry or one level of a channel.
TEST_P(GpuProjection, ShadesOnTheDeviceAsTheHostShadesTheSameMap) {
  NBODY_SKIP_IF_UNAVAILABLE((BackendCase{"cuda", GetParam()}));
  RunConfig cfg;
  cfg.n = 200000;
  cfg.ic = "galaxy-collision";
  cfg.device = "cuda";
  cfg.precision = to_string(GetParam());
  auto sim = Simulation::create(cfg);
  ASSERT_EQ(sim->component_names().size(), 6u);
  render::Camera camera;
  camera.width = 30;
  camera.direction = {0.2, 0.1, -1};
  for (const bool by_component : {false, true}) {
    SCOPED_TRACE(by_component ? "by component" : "one colour map");
    render::FrameStyle style;
    style.colormap = render::ColormapId::viridis;
    const std::optional<render::ShadedMap> shaded =
        sim->project_shaded(camera, 1920, 1080, render::shade_spec(style, by_component));
    ASSERT_TRUE(shaded.has_value());
    // The map of the same bodies, shaded on the host. The float atomics' order may change a
    // pixel's low bits between the two splats: compare through the scale first.
    const render::DensityMap map =
        by_component ? sim->project_components(camera, 1920, 1080) : sim->project(camera, 1920, 1080);
    const render::Scale scale = render::density_scale(map, style.decades);
    EXPECT_NEAR(shaded->hi, scale.hi, 1e-6 * scale.hi);
    EXPECT_NEAR(shaded->lo, scale.lo, 1e-6 * scale.lo);
    EXPECT_EQ(shaded->by_component, by_component);
    EXPECT_DOUBLE_EQ(shaded->map.mass_inside, map.mass_inside);
    EXPECT_EQ(shaded->map.bodies_inside, map.bodies_inside);
    EXPECT_GT(map.bodies_inside, 100000u);
    EXPECT_TRUE(shaded->map.mass.empty());
    const std::vector<render::Rgb> host = render::shade(map, style.colormap, render::Scale::log(shaded->lo, shaded->hi));
    ASSERT_EQ(shaded->colours.size(), host.size());
    const render::Colormap& cm = render::colormap(style.colormap);
    std::size_t differ = 0, lit = 0;
    for (std::size_t k = 0; k < host.size(); ++k) {
      if (map.mass[k] > 0) ++lit;
      if (shaded->colours[k] == host[k]) continue;
      ++differ;
      if (by_component) {
        for (std::size_t q = 0; q < 3; ++q) EXPECT_LE(std::abs(int(shaded->colours[k][q]) - int(host[k][q])), 1) << k;
      } else {
        int a = -1, b = -1;
        for (int e = 0; e < 256; ++e) {
          if (render::colormap_entry(cm, e) == shaded->colours[k]) a = e;
          if (render::colormap_entry(cm, e) == host[k]) b = e;
        }
        EXPECT_LE(std::abs(a - b), 1) << k;
      }
    }
    EXPECT_GT(lit, 10000u);
    EXPECT_LE(differ, host.size() / 10000) << differ << " of " << host.size() << " pixels differ";
  }
}
#endif

INSTANTIATE_TEST_SUITE_P(Precisions, GpuProjection, ::testing::Values(Precision::fp32, Precision::fp64),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace nbody::test
