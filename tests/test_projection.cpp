// The projection of bodies (nbody/camera.hpp, render/projection.hpp): a body on its pixel under an
// orthographic and a perspective camera, the projected mass equal to the mass in view, colour by
// component, bad cameras refused, and Simulation::project over the host store equal to the
// float64 splat of particles().
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "nbody/error.hpp"
#include "projection_check.hpp"
#include "render/projection.hpp"
#include "support.hpp"

namespace nbody::render {
namespace {

ErrorKind error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind();
  }
  return ErrorKind(-1);
}

TEST(Projection, PerspectiveCameraPutsABodyWhereThePinholeDoes) {
  // The eye at (0, 0, 10) looking down -z (distance 10 to the centre at the origin), 90 degrees
  // across 100 pixels: tan 45 = 1, so a body at depth w and right-offset u lands at column
  // 50 + 50 u / w.
  Camera cam;
  cam.projection = Projection::perspective;
  cam.centre = Vec3{0, 0, 0};
  cam.distance = 10;
  cam.fov_degrees = 90;
  const std::vector<double> x{2.0, 2.0, 0.0, 0.0, 0.0}, y{0.0, 0.0, 0.0, 0.0, 30.0}, z{0.0, 5.0, 11.0, 10.0, 0.0},
      m{1.0, 2.0, 4.0, 8.0, 16.0};
  const DensityMap d = project_bodies<double>(x, y, z, m, {}, cam, 100, 60);
  // Body 0: depth 10, u = 2 -> column 60, row 30. Body 1: depth 5, u = 2 -> column 70 (nearer:
  // further from the middle). Body 2 is behind the eye, body 3 at the eye (depth 0), body 4 above
  // the frustum (v/w = 3 > 0.6): none of them counts.
  EXPECT_EQ(d.mass[std::size_t(30 * 100 + 60)], 1.0);
  EXPECT_EQ(d.mass[std::size_t(30 * 100 + 70)], 2.0);
  EXPECT_EQ(d.bodies_inside, 2u);
  EXPECT_EQ(d.mass_inside, 3.0);
  // The extent is the frustum's cross-section at the centre: 2 * 10 * tan 45 = 20 wide.
  EXPECT_DOUBLE_EQ(d.x_hi - d.x_lo, 20.0);
  EXPECT_DOUBLE_EQ(d.pixel_size, 0.2);
  // A perspective camera sees an orthographic one's picture of a thin slab at the centre's
  // distance: the same pixel for a body in the plane through the centre.
  Camera ortho;
  ortho.centre = Vec3{0, 0, 0};
  ortho.width = 20;
  const DensityMap o = project_bodies<double>(x, y, z, m, {}, ortho, 100, 60);
  EXPECT_EQ(o.mass[std::size_t(30 * 100 + 60)], 1.0 + 2.0) << "orthographic: bodies 0 and 1 on one pixel";
}

TEST(Projection, ProjectedMassEqualsTheMassInViewForEveryCamera) {
  std::vector<double> x, y, z, m;
  for (int k = 0; k < 20000; ++k) {
    const double r = 0.0002 * k, a = 0.37 * k;
    x.push_back(r * std::cos(a)), y.push_back(r * std::sin(a)), z.push_back(std::sin(0.01 * k));
    m.push_back(1.0 + (k % 5));
  }
  for (const Projection kind : {Projection::orthographic, Projection::perspective}) {
    Camera cam;
    cam.projection = kind;
    cam.width = 5, cam.distance = 4, cam.fov_degrees = 50;
    cam.direction = {0.2, 0.5, -1};
    const DensityMap d = project_bodies<double>(x, y, z, m, {}, cam, 160, 90);
    double sum = 0;
    for (double v : d.mass) sum += v;
    EXPECT_NEAR(sum, d.mass_inside, 1e-12 * d.mass_inside);
    EXPECT_GT(d.bodies_inside, 1000u);
    EXPECT_LT(d.bodies_inside, x.size());
  }
}

TEST(Projection, ColourByComponentMixesThePaletteByMass) {
  Camera cam;
  cam.centre = Vec3{0, 0, 0};
  cam.width = 4;
  const std::vector<double> x{0.1, 0.1, 1.1}, y{0.1, 0.1, 0.1}, z{0, 0, 0}, m{1, 3, 2};
  const std::vector<std::uint8_t> comp{0, 1, 9};  // 9 wraps to palette entry 1
  const DensityMap d = project_bodies<double>(x, y, z, m, comp, cam, 4, 4);
  ASSERT_EQ(d.rgb_mass.size(), 48u);
  const std::size_t k = 2 * 4 + 2;  // (0.1, 0.1): column 2, row 2
  const auto a = component_colour(0), b = component_colour(1);
  for (int q = 0; q < 3; ++q)
    EXPECT_NEAR(d.rgb_mass[3 * k + std::size_t(q)], (1 * a[std::size_t(q)] + 3 * b[std::size_t(q)]) / 255.0, 1e-12);
  EXPECT_NEAR(d.rgb_mass[3 * (k + 1)], 2 * b[0] / 255.0, 1e-12);
  EXPECT_EQ(error_of([&] { (void)project_bodies<double>(x, y, z, m, std::vector<std::uint8_t>{0}, cam, 4, 4); }),
            ErrorKind::input)
      << "one component for three bodies";
}

TEST(Projection, BadCamerasAreInputErrors) {
  const std::vector<double> x{0}, y{0}, z{0}, m{1};
  auto project = [&](const Camera& c, int nx = 10, int ny = 10) {
    return error_of([&] { (void)project_bodies<double>(x, y, z, m, {}, c, nx, ny); });
  };
  Camera c;
  c.projection = Projection::perspective;
  c.distance = 0;
  EXPECT_EQ(project(c), ErrorKind::input);
  c.distance = 1, c.fov_degrees = 180;
  EXPECT_EQ(project(c), ErrorKind::input);
  c.fov_degrees = 60;
  c.direction = {0, 0, 0};
  EXPECT_EQ(project(c), ErrorKind::input);
  c.direction = {0, 1, 0};  // along up
  EXPECT_EQ(project(c), ErrorKind::input);
  c.direction = {0, 0, -1};
  EXPECT_EQ(project(c, 0, 10), ErrorKind::input);
  EXPECT_EQ(project(c, 10, kMaxMapSide + 1), ErrorKind::input);
  EXPECT_EQ(project(c), ErrorKind(-1));
}

TEST(Projection, SimulationProjectOverTheHostStoreEqualsTheSplatOfItsParticles) {
  for (const char* precision : {"fp32", "fp64"}) {
    RunConfig cfg;
    cfg.n = 5000;
    cfg.device = "cpu";
    cfg.precision = precision;
    auto sim = Simulation::create(cfg);
    sim->advance(3);
    Camera cam;
    cam.width = 2;
    cam.direction = {1, 0.3, -0.2};
    cam.up = {0, 0, 1};
    // Positions widen to float64 exactly, so the host store gives the very same map (bound 0).
    test::expect_projection_matches_cpu(*sim, cam, 200, 120, {}, 0.0);
    std::vector<std::uint8_t> comp(sim->size());
    for (std::size_t k = 0; k < comp.size(); ++k) comp[k] = std::uint8_t(k % 2);
    cam.projection = Projection::perspective;
    cam.distance = 3;
    test::expect_projection_matches_cpu(*sim, cam, 200, 120, comp, 0.0);
    EXPECT_EQ(error_of([&] { (void)sim->project(cam, 10, 10, std::vector<std::uint8_t>(3)); }), ErrorKind::input);
  }
}

}  // namespace
}  // namespace nbody::render
