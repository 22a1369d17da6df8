// Accelerations of every backend against the float64 reference, Newton's third law, the i = j
// term and the softening laws (Plummer and the cubic spline).
#include <cmath>
#include <limits>
#include <numbers>

#include "gravity/interaction.hpp"
#include "ic/ic.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

class Forces : public testing::TestWithParam<BackendCase> {};

template <class T>
Accelerations<double> accelerations_as(const BackendCase& c, const Particles<double>& p, const GravityParams& g,
                                       double* potential = nullptr) {
  auto b = make_system<T>(c, p.size(), g);
  Accelerations<double> out = accelerations_from(*b, p);
  if (potential != nullptr) *potential = b->potential_energy();
  return out;
}

Accelerations<double> accelerations(const BackendCase& c, const Particles<double>& p, const GravityParams& g,
                                    double* potential = nullptr) {
  return with_state_type(c.precision, [&]<class T>() { return accelerations_as<T>(c, p, g, potential); });
}

// The error bound and its derivation: support.hpp (force_errors).
void expect_close_to_reference(const BackendCase& c, const Particles<double>& in, const GravityParams& g) {
  // The reference sees exactly the inputs the backend sees (rounded to its precision).
  const Particles<double> p = rounded_to(c.precision, in);
  const ForceErrors e = force_errors(accelerations(c, p, g), p, g, c.precision);
  ASSERT_TRUE(e.finite) << "body " << e.worst_body;
  EXPECT_LE(e.worst, 1.0) << "body " << e.worst_body << " error exceeds 4u(10+sqrt N) S_i by " << e.worst;
  EXPECT_LE(e.rel_rms, e.allowance * 10) << "relative RMS error " << e.rel_rms;
  testing::Test::RecordProperty("relative_rms_error", std::to_string(e.rel_rms));
}

TEST_P(Forces, MatchReferenceOnRandomSet) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  // 1000 is not a multiple of any block size: the padded last tile is exercised.
  expect_close_to_reference(GetParam(), random_particles(1000, 7), {1.0, 0.01});
}

TEST_P(Forces, ManySmallTermsBesideALargeOneAddUp) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  // Body 0's 4096 far terms add up to 2^-13 beside a pull of 1.5: one at a time in float32 each
  // rounds away (7 times the bound); summed in chunks first they count.
  expect_close_to_reference(GetParam(), many_small_terms(4096, 41), {1.0, 0.01});
}

TEST_P(Forces, MatchReferenceOnPlummerSet) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  expect_close_to_reference(GetParam(), make_plummer({"plummer", 2048, 11}), {1.0, 0.005});
}

TEST_P(Forces, MatchReferenceWithSplineSoftening) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  // eps = 0.02: h = 0.056, so the set has pairs in all three ranges of the kernel.
  expect_close_to_reference(GetParam(), random_particles(1000, 17), {1.0, 0.02, SofteningLaw::spline});
  expect_close_to_reference(GetParam(), make_plummer({"plummer", 1024, 12}), {1.0, 0.01, SofteningLaw::spline});
}

TEST_P(Forces, MatchReferenceWithoutSoftening) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  expect_close_to_reference(GetParam(), random_particles(777, 3), {0.5, 0.0});
}

TEST_P(Forces, NewtonsThirdLawHoldsToRounding) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const auto c = GetParam();
  const GravityParams g{1.0, 0.01};
  const auto p0 = random_particles(1500, 21);
  const Particles<double> p = rounded_to(c.precision, p0);
  const auto a = accelerations(c, p, g);
  const auto s = term_magnitudes(p, g);
  // sum_i m_i a_i = 0 exactly; each a_i may be off by the per-body allowance above.
  const double allowance = 4 * unit_roundoff(c.precision) * (10 + std::sqrt(double(p.size())));
  double fx = 0, fy = 0, fz = 0, bound = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    fx += p.m[i] * a.ax[i];
    fy += p.m[i] * a.ay[i];
    fz += p.m[i] * a.az[i];
    bound += p.m[i] * allowance * s[i];
  }
  EXPECT_LE(std::sqrt(fx * fx + fy * fy + fz * fz), bound);
}

TEST_P(Forces, SelfTermContributesNothing) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  Particles<double> one;
  one.resize(1);
  one.x[0] = 0.3;
  one.y[0] = -0.2;
  one.z[0] = 0.1;
  one.m[0] = 2.0;
  for (const double eps : {0.0, 0.1}) {
    double w = 1;
    const auto a = accelerations(GetParam(), one, {1.0, eps}, &w);
    EXPECT_EQ(a.ax[0], 0.0) << "eps " << eps;
    EXPECT_EQ(a.ay[0], 0.0) << "eps " << eps;
    EXPECT_EQ(a.az[0], 0.0) << "eps " << eps;
    EXPECT_EQ(w, 0.0) << "eps " << eps;
  }
}

Particles<double> pair(double separation) {
  Particles<double> p;
  p.resize(2);
  p.x = {0.25, 0.25 + separation};
  p.y = {0.0, 0.0};
  p.z = {0.0, 0.0};
  p.vx = p.vy = p.vz = {0.0, 0.0};
  p.m = {1.0, 2.0};
  p.id = {0, 1};
  return p;
}

TEST_P(Forces, SofteningFollowsPlummerLaw) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const auto c = GetParam();
  const double u = unit_roundoff(c.precision);
  const double eps = 0.1, G = 1.5;
  // From far outside eps (Newtonian) down to deep inside it (a -> G m r / eps^3, linear in r).
  for (const double r : {4.0, 1.0, 0.1, 1e-2, 1e-3}) {
    const Particles<double> p = rounded_to(c.precision, pair(r));
    const double d = p.x[1] - p.x[0];
    double w = 0;
    const auto a = accelerations(c, p, {G, eps}, &w);
    const double expect = G * 2.0 * d / std::pow(d * d + eps * eps, 1.5);
    EXPECT_NEAR(a.ax[0], expect, 32 * u * std::fabs(expect)) << "r = " << r;
    EXPECT_NEAR(a.ax[1], -expect / 2.0, 32 * u * std::fabs(expect)) << "r = " << r;
    EXPECT_EQ(a.ay[0], 0.0);
    const double w_expect = -G * 2.0 / std::sqrt(d * d + eps * eps);
    EXPECT_NEAR(w, w_expect, 32 * u * std::fabs(w_expect)) << "r = " << r;
  }
  // Deep inside the softening length the force is linear in r: a = G m r / eps^3 (1 + O(r^2/eps^2)).
  const auto a = accelerations(c, pair(1e-4), {G, eps});
  EXPECT_NEAR(a.ax[0], G * 2.0 * 1e-4 / (eps * eps * eps), 1e-3 * G * 2.0 * 1e-4 / (eps * eps * eps));
}

TEST_P(Forces, CoincidentBodiesGiveFiniteZeroForce) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  for (const double eps : {0.0, 0.05}) {
    const auto a = accelerations(GetParam(), pair(0.0), {1.0, eps});
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(a.ax[i], 0.0) << "eps " << eps;
      EXPECT_EQ(a.ay[i], 0.0) << "eps " << eps;
      EXPECT_EQ(a.az[i], 0.0) << "eps " << eps;
    }
  }
}

// The spline kernel of GADGET from its definition, independently of the polynomials in
// interaction.hpp: the density W(u) = 8/(pi h^3) {1 - 6u^2 + 6u^3; 2(1-u)^3; 0} integrated by
// Simpson's rule (relative error below 1e-13 at 2000 intervals per piece: the integrands are
// polynomials of degree <= 5 on each piece), for a point of mass m at distance r: the enclosed mass M(r) gives
// a = G m M(r) / r^2 and phi = -G m [M(r)/r + int_r^h 4 pi s W(s) ds].
struct SplineFromDensity {
  double h;
  double density(double s) const {
    const double u = s / h, c = 8.0 / (std::numbers::pi * h * h * h);
    if (u < 0.5) return c * (1 - 6 * u * u + 6 * u * u * u);
    if (u < 1) return c * 2 * (1 - u) * (1 - u) * (1 - u);
    return 0;
  }
  template <class F>
  static double simpson(F f, double a, double b) {
    if (b <= a) return 0;
    const int n = 2000;
    const double step = (b - a) / n;
    double sum = f(a) + f(b);
    for (int k = 1; k < n; ++k) sum += (k % 2 ? 4 : 2) * f(a + k * step);
    return sum * step / 3;
  }
  // Each piece separately: the density has a kink at h/2.
  template <class F>
  double integrate(F f, double a, double b) const {
    const double mid = 0.5 * h;
    return simpson(f, a, std::min(b, mid)) + simpson(f, std::max(a, mid), std::min(b, h));
  }
  double enclosed(double r) const {
    return integrate([&](double s) { return 4 * std::numbers::pi * s * s * density(s); }, 0, r);
  }
  double acceleration(double G, double m, double r) const { return G * m * enclosed(r) / (r * r); }
  double potential(double G, double m, double r) const {
    return -G * m * (enclosed(r) / r + integrate([&](double s) { return 4 * std::numbers::pi * s * density(s); }, r, h));
  }
};

TEST_P(Forces, SplineSofteningFollowsItsKernel) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const auto c = GetParam();
  const double u = unit_roundoff(c.precision);
  const double eps = 0.1, G = 1.5, h = 2.8 * eps;
  const SplineFromDensity kernel{h};
  EXPECT_NEAR(kernel.enclosed(h), 1.0, 1e-13);
  // The kernel's central potential is Plummer's: -G m / eps.
  EXPECT_NEAR(kernel.potential(G, 2.0, 1e-9), -G * 2.0 / eps, 1e-7);
  // Both branches of the kernel, both sides of h/2 and of h, and far outside.
  for (const double r_over_h : {0.01, 0.2, 0.45, 0.55, 0.8, 0.99, 1.01, 1.5, 4.0}) {
    const double r = r_over_h * h;
    const Particles<double> p = rounded_to(c.precision, pair(r));
    const double d = p.x[1] - p.x[0];
    double w = 0;
    const auto a = accelerations(c, p, {G, eps, SofteningLaw::spline}, &w);
    const double expect = kernel.acceleration(G, 2.0, d);
    // 32 u for the backend's arithmetic, 1e-12 for the quadrature.
    const double tol = 32 * u + 1e-12;
    EXPECT_NEAR(a.ax[0], expect, tol * std::fabs(expect)) << "r/h = " << r_over_h;
    EXPECT_NEAR(a.ax[1], -expect / 2.0, tol * std::fabs(expect)) << "r/h = " << r_over_h;
    EXPECT_EQ(a.ay[0], 0.0);
    const double w_expect = kernel.potential(G, 2.0, d);  // W = 1/2 sum_i m_i phi_i = m_0 phi_0 here
    EXPECT_NEAR(w, w_expect, tol * std::fabs(w_expect)) << "r/h = " << r_over_h;
  }
}

TEST_P(Forces, SplineSofteningIsNewtonianBeyondItsSupport) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const auto c = GetParam();
  const double u = unit_roundoff(c.precision);
  const double eps = 0.1, G = 1.5, h = 2.8 * eps;
  for (const double r_over_h : {1.0 + 1e-6, 1.2, 3.0, 20.0}) {
    const Particles<double> in = pair(r_over_h * h);
    const Particles<double> p = rounded_to(c.precision, in);
    const double d = p.x[1] - p.x[0];
    const double newton = G * 2.0 / (d * d);
    const auto spline = accelerations(c, p, {G, eps, SofteningLaw::spline});
    const auto plummer = accelerations(c, p, {G, eps, SofteningLaw::plummer});
    // Newton's law to the backend's rounding (the same 32 u as the Plummer test: the GPU's
    // rsqrt is good to 2 ulp, cubed here).
    EXPECT_NEAR(spline.ax[0], newton, 32 * u * newton) << "r/h = " << r_over_h;
    // Plummer's law is still softened there (by 17 % at r = h): the test can tell them apart.
    if (r_over_h < 2) EXPECT_GT(std::fabs(plummer.ax[0] - newton), 1e-3 * newton) << "r/h = " << r_over_h;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Forces, testing::ValuesIn(backend_cases()), case_name);

}  // namespace
}  // namespace nbody::test
