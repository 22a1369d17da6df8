// Every compiled launch shape of the production CUDA kernel, not only the ones the launch policy
// picks: each (block, targets per thread, warp-sliced, lanes) instance in fp32, fp64 and mixed,
// with one source slice and with several (the cross-block reduction), against the float64
// reference with the bound of the force tests; and the fused Euler step of every warp-sliced
// fp32 shape. A shape the benchmark's tuner measures is thereby also a tested one.
#include <cmath>
#include <ostream>

#include "gravity/direct/cuda/direct_shape.hpp"
#include "nbody/error.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

constexpr std::size_t kBodies = 4100;

struct ShapeCase {
  KernelArithmetic arithmetic;
  DirectShape shape;
};

Precision precision_of(KernelArithmetic a) {
  switch (a) {
    case KernelArithmetic::fp32: return Precision::fp32;
    case KernelArithmetic::fp64: return Precision::fp64;
    case KernelArithmetic::mixed: return Precision::mixed;
  }
  return Precision::fp64;
}

std::vector<ShapeCase> shape_cases() {
  std::vector<ShapeCase> out;
  for (const KernelArithmetic a : {KernelArithmetic::fp32, KernelArithmetic::fp64, KernelArithmetic::mixed}) {
    for (DirectShape s : compiled_shapes(a)) {
      for (const int slices : {1, 4}) {
        s.slices = slices;
        out.push_back({a, s});
      }
    }
  }
  return out;
}

// The warp-sliced fp32 shapes: the ones the fused Euler pass runs with.
std::vector<ShapeCase> fused_cases() {
  std::vector<ShapeCase> out;
  for (const ShapeCase& c : shape_cases()) {
    if (c.arithmetic == KernelArithmetic::fp32 && c.shape.warps) out.push_back(c);
  }
  return out;
}

// gtest prints a parameter with this (instead of its bytes).
[[maybe_unused]] void PrintTo(const ShapeCase& c, std::ostream* os) {
  *os << to_string(precision_of(c.arithmetic)) << " " << c.shape.text();
}

std::string shape_case_name(const testing::TestParamInfo<ShapeCase>& info) {
  std::string name = std::string(to_string(precision_of(info.param.arithmetic))) + "_" + info.param.shape.text();
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  return name;
}

class CudaShapes : public testing::TestWithParam<ShapeCase> {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "skipped: no CUDA device (" << why << ")";
  }
};
class CudaFusedShapes : public CudaShapes {};

template <class T>
Accelerations<double> shape_accelerations(const ShapeCase& c, const Particles<double>& p, const GravityParams& g) {
  auto b = make_system<T>("cuda", p.size(), g, precision_of(c.arithmetic), c.shape.text());
  EXPECT_NE(b->kernel().find(c.shape.text()), std::string::npos) << b->kernel();
  return accelerations_from(*b, p);
}

TEST_P(CudaShapes, AccelerationsMatchTheReference) {
  const ShapeCase c = GetParam();
  const Precision precision = precision_of(c.arithmetic);
  // 4100 bodies: no block size divides it (padded targets and a short last tile or chunk), and
  // enough for four slices of every shape (a slice is at least one block's sources).
  const Particles<double> in = random_particles(kBodies, 31);
  const Particles<double> p = precision == Precision::fp64 ? in : in.as<float>().as<double>();
  const GravityParams g{1.0, 0.01};
  const Accelerations<double> got = c.arithmetic == KernelArithmetic::fp32 ? shape_accelerations<float>(c, p, g)
                                                                           : shape_accelerations<double>(c, p, g);
  const ForceErrors e = force_errors(got, p, g, precision);
  ASSERT_TRUE(e.finite) << "body " << e.worst_body;
  EXPECT_LE(e.worst, 1.0) << "body " << e.worst_body << " error exceeds 4u(10+sqrt N) S_i by " << e.worst;
  EXPECT_LE(e.rel_rms, e.allowance * 10) << "relative RMS error " << e.rel_rms;
}

// The force pass with the Euler update fused (warp-sliced fp32 shapes): from rest, one step gives
// v1 = a dt, and the positions move by v1 dt.
TEST_P(CudaFusedShapes, EulerStepMatchesTheReference) {
  const ShapeCase c = GetParam();
  Particles<double> p = random_particles(kBodies, 37).as<float>().as<double>();
  for (std::size_t i = 0; i < p.size(); ++i) p.vx[i] = p.vy[i] = p.vz[i] = 0;
  const GravityParams g{1.0, 0.01};
  const double dt = 1.0 / 1024;
  auto b = make_system<float>("cuda", p.size(), g, Precision::fp32, c.shape.text());
  b->upload(p.as<float>());
  b->euler_steps(dt, 1);
  Particles<float> after;
  b->download(after);
  Accelerations<double> a;
  a.resize(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    a.ax[i] = double(after.vx[i]) / dt;
    a.ay[i] = double(after.vy[i]) / dt;
    a.az[i] = double(after.vz[i]) / dt;
    // x1 = x0 + v1 dt in float32: one rounding of each.
    const double moved = std::hypot(double(after.x[i]) - (p.x[i] + double(after.vx[i]) * dt),
                                    double(after.y[i]) - (p.y[i] + double(after.vy[i]) * dt),
                                    double(after.z[i]) - (p.z[i] + double(after.vz[i]) * dt));
    ASSERT_LE(moved, 4 * unit_roundoff(Precision::fp32) * (1 + std::abs(p.x[i]) + std::abs(p.y[i]) + std::abs(p.z[i])))
        << "body " << i;
  }
  const ForceErrors e = force_errors(a, p, g, Precision::fp32);
  ASSERT_TRUE(e.finite) << "body " << e.worst_body;
  EXPECT_LE(e.worst, 1.0) << "body " << e.worst_body << " error exceeds 4u(10+sqrt N) S_i by " << e.worst;
}

INSTANTIATE_TEST_SUITE_P(Compiled, CudaShapes, testing::ValuesIn(shape_cases()), shape_case_name);
INSTANTIATE_TEST_SUITE_P(Compiled, CudaFusedShapes, testing::ValuesIn(fused_cases()), shape_case_name);

// A slice longer than kPlainSumMaxSources: each tile summed apart before it joins the running
// sum, else terms a quarter of the running sum's last place round away one by one. Body 0 of
// 2^21 + 2 bodies: a pull of 1.5 beside 2^21 pulls of 2^-25 (1/16 of it in all); one slice
// (every source in one thread), every tiled float32 shape; the float64 sum for body 0 alone.
TEST(CudaShapeChoice, LongFloat32SlicesKeepManySmallTerms) {
  std::string why;
  if (!cuda_device_available(&why)) GTEST_SKIP() << "skipped: no CUDA device (" << why << ")";
  const Particles<double> p = many_small_terms(std::size_t(1) << 21, 43).as<float>().as<double>();
  const GravityParams g{1.0, 0.01};
  double ax = 0, ay = 0, az = 0, terms = 0;
  for (std::size_t j = 1; j < p.size(); ++j) {
    const double dx = p.x[j] - p.x[0], dy = p.y[j] - p.y[0], dz = p.z[j] - p.z[0];
    const double r2 = dx * dx + dy * dy + dz * dz;
    const double f = p.m[j] * std::pow(r2 + g.eps2(), -1.5);
    ax += f * dx;
    ay += f * dy;
    az += f * dz;
    terms += f * std::sqrt(r2);
  }
  const double u = unit_roundoff(Precision::fp32);
  const double bound = 4 * u * (10 + std::sqrt(double(p.size()))) * terms + 4 * u * std::hypot(ax, ay, az);
  int tested = 0;
  for (DirectShape s : compiled_shapes(KernelArithmetic::fp32)) {
    if (s.warps) continue;
    s.slices = 1;
    const Accelerations<double> a = shape_accelerations<float>(ShapeCase{KernelArithmetic::fp32, s}, p, g);
    const double error = std::hypot(a.ax[0] - ax, a.ay[0] - ay, a.az[0] - az);
    EXPECT_LE(error, bound) << s.text() << ": body 0's error " << error << " (its pull " << ax << ")";
    ++tested;
  }
  EXPECT_GT(tested, 0);
}

TEST(CudaShapeChoice, AShapeThatIsNotCompiledIsAnInputError) {
  std::string why;
  if (!cuda_device_available(&why)) GTEST_SKIP() << "skipped: no CUDA device (" << why << ")";
  const GravityParams g{1.0, 0.01};
  EXPECT_THROW((void)make_system<float>("cuda", 100, g, Precision::fp32, "256x3/s1"), Error);
  EXPECT_THROW((void)make_system<float>("cuda", 100, g, Precision::fp32, "fast"), Error);
  EXPECT_THROW((void)make_system<double>("cuda", 100, g, Precision::fp64, "w16x2l4"), Error);  // fp32 only
}

TEST(CudaShapeChoice, OnlyTheCudaBackendTakesAShape) {
  EXPECT_THROW((void)make_system<float>("cpu", 100, {1.0, 0.01}, Precision::fp32, "256x2/s1"), Error);
}

}  // namespace
}  // namespace nbody::test
