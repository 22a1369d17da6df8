// IAS15 on the CPU: its pieces (the seventh root, the Gauss-Radau table), an eccentric Kepler
// orbit over 100 periods against Kepler's equation, the end time met exactly, rejected steps,
// and the benchmark's hardest scatterings within the bound (|dE/E| <= 1e-10) with the
// collision stop and without it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "ensemble_support.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

using namespace nbody::ensemble;
constexpr double kTwoPi = 2 * std::numbers::pi;

TEST(EnsembleIas15, SeventhRootIsPowsToTheLastBits) {
  for (double v = 1e-300; v < 1e300; v *= 7.3) {
    // (long double: pow(v, 1.0 / 7) is off by ln(v) (1/7 - fl(1/7)), up to 6e-15)
    const double r = seventh_root(v), ref = double(std::pow((long double)v, 1.0L / 7.0L));
    EXPECT_NEAR(r, ref, 4e-16 * ref) << v;
  }
  EXPECT_EQ(seventh_root(128.0), 2.0);
  EXPECT_EQ(seventh_root(1.0), 1.0);
  const double tiny = 4.9406564584124654e-324;  // (the smallest subnormal)
  EXPECT_NEAR(seventh_root(tiny), double(std::pow((long double)tiny, 1.0L / 7.0L)), 1e-15 * seventh_root(tiny));
  EXPECT_EQ(seventh_root(0.0), 0.0);
  EXPECT_EQ(seventh_root(INFINITY), 0.0);
  EXPECT_EQ(seventh_root(NAN), 0.0);
}

TEST(EnsembleIas15, RadauTableFitsTheNodes) {
  constexpr RadauTable R = make_radau_table();
  // The Newton basis h (h - h1) ... (h - h_j) from c vanishes at the nodes 0, h1 ... h_j and is
  // the product elsewhere.
  for (int j = 0; j < 7; ++j)
    for (int n = 0; n < 8; ++n) {
      double mono = 0, prod = R.h[n];
      for (int k = 0; k < 7; ++k) mono += R.c[j][k] * std::pow(R.h[n], k + 1);
      for (int m = 1; m <= j; ++m) prod *= R.h[n] - R.h[m];
      EXPECT_NEAR(mono, prod, 1e-15) << "j " << j << " node " << n;
    }
  // The nodes: 0 and the roots of P7 + P8 (Legendre) at x = 2h - 1, in increasing order.
  EXPECT_EQ(R.h[0], 0.0);
  for (int n = 1; n < 8; ++n) {
    EXPECT_GT(R.h[n], R.h[n - 1]);
    const long double x = 2.0L * R.h[n] - 1.0L;
    long double p0 = 1, p1 = x;
    for (int l = 1; l < 8; ++l) {
      const long double p2 = ((2 * l + 1) * x * p1 - l * p0) / (l + 1);
      p0 = p1, p1 = p2;
    }
    EXPECT_LT(std::fabs(double(p0 + p1)), 1e-14) << "node " << n;  // (P7 + P8)
  }
}

struct KeplerRun {
  EnsembleStore s;
  Params p;
  Elements el;
  double mu = 0;
};

// An e = 0.9 orbit (masses 1 and 1e-3) over `orbits` periods in `intervals` intervals with IAS15.
KeplerRun kepler_ias15(double orbits, int intervals, double dt = 0.05, double epsilon = 1e-9) {
  KeplerRun k;
  k.el.a = 1, k.el.e = 0.9, k.el.inc = 0.2, k.el.mean = 0.3;
  k.mu = 1.001;
  const SystemBodies b = two_body(k.el);
  k.s.add_system(b.m, b.pos, b.vel);
  k.p.integrator = Integrator::ias15;
  k.p.dt = dt, k.p.epsilon = epsilon;
  k.p.t_end = orbits * kTwoPi / std::sqrt(k.mu);
  auto cpu = make_cpu_backend(1);
  integrate(*cpu, k.s, k.p, intervals);
  return k;
}

TEST(EnsembleIas15, EccentricKeplerOrbitOverAHundredPeriods) {
  const KeplerRun k = kepler_ias15(100, 10);
  const SystemState& st = k.s.state[0];
  ASSERT_EQ(st.status, int(Outcome::end_time));
  EXPECT_EQ(st.t, k.p.t_end);  // (the last step ends there exactly)
  EnsembleStore s = k.s;
  double e = 0, l = 0;
  final_invariants(s, 0, k.p.eps2, e, l);
  const double de = std::fabs((e - st.e0) / st.e0), dl = std::fabs((l - st.l0) / st.l0);
  // The phase: the relative position against Kepler's equation at t_end.
  Elements at = k.el;
  at.mean = k.el.mean + std::sqrt(k.mu) * k.p.t_end;
  double ra[3], va[3], r[3], v[3];
  elements_to_state(at, k.mu, ra, va);
  relative(k.s, 0, r, v);
  const double dr = std::hypot(r[0] - ra[0], r[1] - ra[1], r[2] - ra[2]);
  RecordProperty("dE", sci(de));
  RecordProperty("dL", sci(dl));
  RecordProperty("dr", sci(dr));
  RecordProperty("steps", std::to_string(st.steps));
  EXPECT_LT(de, 1e-13);
  EXPECT_LT(dl, 1e-13);
  EXPECT_LT(dr, 1e-9);
  EXPECT_GT(st.steps, 100 * 20);  // (adaptive: many steps an orbit, more at pericentre)
  EXPECT_LT(st.steps, 100 * 400);
}

TEST(EnsembleIas15, AccuracyFollowsEpsilon) {
  // A looser epsilon takes fewer steps and ends farther from Kepler's orbit (15th order: the
  // step goes as epsilon^(1/7)).
  const KeplerRun tight = kepler_ias15(10, 2, 0.05, 1e-9), loose = kepler_ias15(10, 2, 0.05, 1e-4);
  EXPECT_LT(loose.s.state[0].steps, tight.s.state[0].steps);
  EnsembleStore a = tight.s, b = loose.s;
  double ea = 0, eb = 0, l = 0;
  final_invariants(a, 0, 0, ea, l);
  final_invariants(b, 0, 0, eb, l);
  EXPECT_LT(std::fabs(ea / tight.s.state[0].e0 - 1), std::fabs(eb / loose.s.state[0].e0 - 1));
}

struct HostLoop {
  template <class F>
  void for_bodies(int n, F&& f) {
    for (int i = 0; i < n; ++i) f(i);
  }
  void sync() {}
};

TEST(EnsembleIas15, AStepTooLongIsRejectedWithTheStateAsItWas) {
  // Half a period of an e = 0.9 orbit near its pericentre in one step: rejected, the state kept,
  // the b's scaled to the shorter step; the shorter steps then taken.
  KeplerRun k;
  k.el.a = 1, k.el.e = 0.9, k.el.mean = 0.3;
  const SystemBodies b = two_body(k.el);
  EnsembleStore s;
  s.add_system(b.m, b.pos, b.vel);
  const EnsembleStore before = s;
  Scratch work;
  const SystemRef r = system_ref(s, 0, work);
  HostLoop ex;
  evaluate(r, 0, false, ex);
  for (double* v : {r.cx, r.cy, r.cz, r.cvx, r.cvy, r.cvz}) std::fill(v, v + r.n, 0.0);
  std::fill(work.ias.begin(), work.ias.end(), 0.0);
  const Ias15Work w{r.ias, r.ias_stride};
  const RadauTable& R = radau_table();
  double dt = 3.0, next = 0, rmin2 = 0;
  ASSERT_FALSE(ias15_step(R, r, w, dt, 0, 1e-9, next, rmin2, ex));
  EXPECT_TRUE(same_system(s, 0, before));
  EXPECT_LT(next, 0.25 * dt);
  int rejected = 1;
  while (!ias15_step(R, r, w, next, 0, 1e-9, next, rmin2, ex)) ASSERT_LT(++rejected, 20);
  EXPECT_FALSE(same_system(s, 0, before));  // (a step taken)
  // The same orbit through the integrator from dt = 3 ends with its energy kept.
  const KeplerRun run = kepler_ias15(2, 1, 3.0);
  ASSERT_EQ(run.s.state[0].status, int(Outcome::end_time));
  EnsembleStore end = run.s;
  double e = 0, l = 0;
  final_invariants(end, 0, 0, e, l);
  EXPECT_LT(std::fabs((e - run.s.state[0].e0) / run.s.state[0].e0), 1e-13);
}

TEST(EnsembleIas15, TooSmallAStepStopsTheSystem) {
  KeplerRun k;
  const SystemBodies b = two_body(k.el);
  EnsembleStore s;
  s.add_system(b.m, b.pos, b.vel);
  Params p;
  p.integrator = Integrator::ias15;
  p.dt = 0.1, p.epsilon = 1e-30, p.min_dt = 1e-3, p.t_end = 10;  // (an epsilon no step meets)
  auto cpu = make_cpu_backend(1);
  integrate(*cpu, s, p, 1);
  EXPECT_EQ(s.state[0].status, int(Outcome::step_limit));
  EXPECT_LT(s.state[0].stop_time, p.t_end);
}

// Nothing of IAS15 outlives an interval but the store (the predictor and the compensated sums
// start afresh): a new backend going on from the store at an interval's end, as a resume from
// a checkpoint does, gives the bits of the run that never stopped.
TEST(EnsembleIas15, ANewBackendGoesOnFromTheStoreWithTheSameBits) {
  const std::int64_t ids[] = {0, 1, 2, 3, 4943};
  Params p;
  p.integrator = Integrator::ias15;
  p.dt = 0.1, p.t_end = 60, p.escape_radius = 40, p.collision_radius = 0.01;
  EnsembleStore whole = bench_scatterings(ids);
  EnsembleStore part = whole;
  auto a = make_cpu_backend(1);
  integrate(*a, whole, p, 6);
  auto b = make_cpu_backend(2);
  b->start(part, p);
  for (int k = 1; k <= 3; ++k) b->advance(part, p, p.t_end * k / 6);
  EnsembleStore resumed = part;  // (as read back from a checkpoint)
  auto c = make_cpu_backend(1);
  for (int k = 4; k <= 6; ++k) c->advance(resumed, p, k == 6 ? p.t_end : p.t_end * k / 6);
  for (std::int64_t k = 0; k < whole.systems(); ++k) EXPECT_TRUE(same_system(resumed, k, whole.single(k))) << ids[k];
}

Params ias15_scattering_params(double collision_radius) {
  Params p = bench_scattering_params(collision_radius);
  p.integrator = Integrator::ias15;
  return p;
}

// The systems of the benchmark's 10^4 scatterings whose |dE/E| breaks 1e-10 with
// hermite4_symmetric (ensemble_support.hpp: with the collision stop the worst, 4943, collides at
// 3.1e-10): with IAS15 each ends within the bound, colliding or not.
void expect_within_bound(const EnsembleStore& s, const Params& p, const std::int64_t* ids, int& collisions,
                         double& worst) {
  collisions = 0, worst = 0;
  for (std::int64_t k = 0; k < s.systems(); ++k) {
    const SystemState& st = s.state[std::size_t(k)];
    EXPECT_TRUE(st.status == int(Outcome::escape) || st.status == int(Outcome::end_time) ||
                st.status == int(Outcome::collision))
        << "system " << ids[k] << ": " << outcome_name(st.status);
    collisions += st.status == int(Outcome::collision);
    EnsembleStore c = s;
    double e = 0, l = 0;
    final_invariants(c, k, p.eps2, e, l);
    const double de = std::fabs((e - st.e0) / st.e0);
    EXPECT_LE(de, 1e-10) << "system " << ids[k] << " (" << outcome_name(st.status) << ")";
    worst = std::max(worst, de);
  }
}

TEST(EnsembleIas15, TheHardestScatteringsKeepTheBoundWithTheCollisionStop) {
  EnsembleStore s = bench_scatterings(kCloseScatterings);
  const Params p = ias15_scattering_params(0.01);
  auto cpu = make_cpu_backend(0);
  integrate(*cpu, s, p, 40);
  int collisions = 0;
  double worst = 0;
  expect_within_bound(s, p, kCloseScatterings, collisions, worst);
  RecordProperty("worst_dE", sci(worst));
  EXPECT_GT(collisions, 0);
  // 4943 collides (hermite4_symmetric's worst at its collision stop).
  EXPECT_EQ(s.state[11].status, int(Outcome::collision));
}

TEST(EnsembleIas15, TheClosestApproachesKeepTheBoundWithoutACollisionStop) {
  const std::int64_t worst_ids[] = {6533, 4943, 4858};
  EnsembleStore s = bench_scatterings(worst_ids);
  const Params p = ias15_scattering_params(0);
  auto cpu = make_cpu_backend(0);
  integrate(*cpu, s, p, 40);
  int collisions = 0;
  double worst = 0;
  expect_within_bound(s, p, worst_ids, collisions, worst);
  RecordProperty("worst_dE", sci(worst));
  EXPECT_EQ(collisions, 0);
}

}  // namespace
}  // namespace nbody::test
