// Hermite's first step: the solvers' snap and crackle of every body (gravity/snap_crackle.hpp)
// against the analytic values of a circular softened binary and against central differences of
// the jerk along the motion; a device's against the float64 reference; and a cold start (bodies
// at rest: zero jerk, so eta |a| / |j| knows no bound) whose first steps come from the snap.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "integrate/integrator.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

class HermiteStart : public testing::TestWithParam<BackendCase> {};

struct Derivs {
  std::vector<double> ax, ay, az, jx, jy, jz, sx, sy, sz, cx, cy, cz;
};

// a, j of every body (one pass over all), then snap and crackle from them, on the backend.
Derivs derivatives(const BackendCase& c, const Particles<double>& p, const GravityParams& g) {
  auto b = make_system<double>(c, p.size(), g);
  b->upload(p);
  const Location at = b->store().location();
  const StreamHandle stream = b->store().stream();
  const int n = static_cast<int>(p.size());
  std::vector<std::int32_t> all(p.size());
  std::iota(all.begin(), all.end(), 0);
  Array<std::int32_t> index(at, p.size());
  copy_bytes(index.data(), at, all.data(), Location::host(), p.size() * sizeof(std::int32_t), stream);
  std::vector<Array<double>> out;
  for (int k = 0; k < 12; ++k) out.emplace_back(at, p.size());
  const ParticleView<double> v = b->view();
  EXPECT_TRUE(b->solver().capabilities().snap_crackle);
  const Vec3Span<double> a{out[0].data(), out[1].data(), out[2].data()}, j{out[3].data(), out[4].data(), out[5].data()};
  b->solver().acc_jerk({index.data(), n}, v.motion(), a, j);
  b->solver().snap_crackle(v.motion(), as_const(a), as_const(j), {out[6].data(), out[7].data(), out[8].data()},
                           {out[9].data(), out[10].data(), out[11].data()});
  Derivs d;
  std::vector<double>* f[] = {&d.ax, &d.ay, &d.az, &d.jx, &d.jy, &d.jz, &d.sx, &d.sy, &d.sz, &d.cx, &d.cy, &d.cz};
  for (int k = 0; k < 12; ++k) {
    f[k]->resize(p.size());
    copy_bytes(f[k]->data(), Location::host(), out[std::size_t(k)].data(), at, p.size() * sizeof(double), stream);
  }
  return d;
}

// A circular binary of masses m1, m2 at separation d with Plummer softening: each body moves on
// a circle about the centre of mass at omega^2 = G (m1 + m2) / (d^2 + eps^2)^(3/2), so
// a = -omega^2 r, j = -omega^2 v, snap = omega^4 r, crackle = omega^4 v (r, v about the centre).
TEST_P(HermiteStart, CircularSoftenedBinaryHasTheAnalyticSnapAndCrackle) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const double m1 = 0.7, m2 = 0.3, d = 0.4, eps = 0.1;
  const double w2 = (m1 + m2) / std::pow(d * d + eps * eps, 1.5), w = std::sqrt(w2);
  Particles<double> p;
  const double r1 = d * m2 / (m1 + m2), r2 = -d * m1 / (m1 + m2);
  for (const auto& [m, r] : {std::pair{m1, r1}, std::pair{m2, r2}}) {
    // in the plane tilted about x, so that every component is exercised
    p.x.push_back(r * 0.6);
    p.y.push_back(r * 0.8 * 0.5);
    p.z.push_back(r * 0.8 * std::sqrt(0.75));
    const double speed = w * r;  // along (-0.8, 0.6, 0) rotated the same way
    p.vx.push_back(-0.8 * speed);
    p.vy.push_back(0.6 * speed * 0.5);
    p.vz.push_back(0.6 * speed * std::sqrt(0.75));
    p.m.push_back(m);
    p.id.push_back(p.id.size());
  }
  const auto got = derivatives(GetParam(), p, {1.0, eps});
  for (std::size_t i = 0; i < 2; ++i) {
    const double scale_s = w2 * w2 * std::fabs(i == 0 ? r1 : r2), scale_c = scale_s * w;
    EXPECT_NEAR(got.sx[i], w2 * w2 * p.x[i], 1e-13 * scale_s) << i;
    EXPECT_NEAR(got.sy[i], w2 * w2 * p.y[i], 1e-13 * scale_s) << i;
    EXPECT_NEAR(got.sz[i], w2 * w2 * p.z[i], 1e-13 * scale_s) << i;
    EXPECT_NEAR(got.cx[i], w2 * w2 * p.vx[i], 1e-13 * scale_c) << i;
    EXPECT_NEAR(got.cy[i], w2 * w2 * p.vy[i], 1e-13 * scale_c) << i;
    EXPECT_NEAR(got.cz[i], w2 * w2 * p.vz[i], 1e-13 * scale_c) << i;
  }
}

// snap = dj/dt and crackle = d2j/dt2 along the motion: the jerk of the states Taylor-predicted
// to +-delta (x + v d + a d^2/2 + j d^3/6, v + a d + j d^2/2; their errors are O(delta^4) in x,
// odd O(delta^3) in v), differenced: (j(+) - j(-)) / (2 delta) and (j(+) - 2 j(0) + j(-)) /
// delta^2, both O(delta^2) from the truncation, plus rounding u |j| / delta and u |j| / delta^2.
// On these 64 bodies (eps = 0.05, close pairs' time scales ~1e-2) with delta = 1e-5 the
// differences are 4.9e-7 and 7.2e-7 of the largest snap and crackle on the CPU (1e-4 gives 100
// times more: the truncation's delta^2, so the formula is what is measured); bounds 4e-6 and 1e-5.
TEST_P(HermiteStart, SnapAndCrackleAreTheTimeDerivativesOfTheJerk) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const auto p = random_particles(64, 41);
  const GravityParams g{1.0, 0.05};
  const auto d0 = derivatives(GetParam(), p, g);
  const BackendCase reference{"cpu-reference", Precision::fp64};
  const double delta = 1e-5;
  auto jerk_at = [&](double s) {
    Particles<double> q = p;
    for (std::size_t i = 0; i < q.size(); ++i) {
      auto x = [&](double x0, double v0, double a0, double j0) {
        return x0 + s * (v0 + s * (0.5 * a0 + s * j0 / 6));
      };
      auto v = [&](double v0, double a0, double j0) { return v0 + s * (a0 + s * 0.5 * j0); };
      q.x[i] = x(p.x[i], p.vx[i], d0.ax[i], d0.jx[i]);
      q.y[i] = x(p.y[i], p.vy[i], d0.ay[i], d0.jy[i]);
      q.z[i] = x(p.z[i], p.vz[i], d0.az[i], d0.jz[i]);
      q.vx[i] = v(p.vx[i], d0.ax[i], d0.jx[i]);
      q.vy[i] = v(p.vy[i], d0.ay[i], d0.jy[i]);
      q.vz[i] = v(p.vz[i], d0.az[i], d0.jz[i]);
    }
    return derivatives(reference, q, g);
  };
  const auto plus = jerk_at(delta), minus = jerk_at(-delta), here = derivatives(reference, p, g);
  double snap_scale = 0, crackle_scale = 0, worst_s = 0, worst_c = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    snap_scale = std::max(snap_scale, std::hypot(d0.sx[i], d0.sy[i], d0.sz[i]));
    crackle_scale = std::max(crackle_scale, std::hypot(d0.cx[i], d0.cy[i], d0.cz[i]));
  }
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double fs[3] = {(plus.jx[i] - minus.jx[i]) / (2 * delta), (plus.jy[i] - minus.jy[i]) / (2 * delta),
                          (plus.jz[i] - minus.jz[i]) / (2 * delta)};
    const double fc[3] = {(plus.jx[i] - 2 * here.jx[i] + minus.jx[i]) / (delta * delta),
                          (plus.jy[i] - 2 * here.jy[i] + minus.jy[i]) / (delta * delta),
                          (plus.jz[i] - 2 * here.jz[i] + minus.jz[i]) / (delta * delta)};
    const double es = std::hypot(fs[0] - d0.sx[i], fs[1] - d0.sy[i], fs[2] - d0.sz[i]);
    const double ec = std::hypot(fc[0] - d0.cx[i], fc[1] - d0.cy[i], fc[2] - d0.cz[i]);
    worst_s = std::max(worst_s, es / snap_scale);
    worst_c = std::max(worst_c, ec / crackle_scale);
    EXPECT_LE(es, 4e-6 * snap_scale) << "snap of body " << i;
    EXPECT_LE(ec, 1e-5 * crackle_scale) << "crackle of body " << i;
  }
  testing::Test::RecordProperty("snap_difference_over_scale", sci(worst_s));
  testing::Test::RecordProperty("crackle_difference_over_scale", sci(worst_c));
}

// A device's snap and crackle against the float64 reference's: the same float64 pair terms in
// the same order, apart from contractions into fused multiply-adds (a few ulp a term).
TEST_P(HermiteStart, SnapAndCrackleMatchTheReference) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const auto p = random_particles(700, 31);  // several tiles and a tail
  const GravityParams g{1.0, 0.01};
  const auto got = derivatives(GetParam(), p, g);
  const auto ref = derivatives({"cpu-reference", Precision::fp64}, p, g);
  double scale_s = 0, scale_c = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    scale_s = std::max(scale_s, std::hypot(ref.sx[i], ref.sy[i], ref.sz[i]));
    scale_c = std::max(scale_c, std::hypot(ref.cx[i], ref.cy[i], ref.cz[i]));
  }
  for (std::size_t i = 0; i < p.size(); ++i) {
    EXPECT_LE(std::hypot(got.sx[i] - ref.sx[i], got.sy[i] - ref.sy[i], got.sz[i] - ref.sz[i]), 1e-11 * scale_s) << i;
    EXPECT_LE(std::hypot(got.cx[i] - ref.cx[i], got.cy[i] - ref.cy[i], got.cz[i] - ref.cz[i]), 1e-11 * scale_c) << i;
  }
}

// A cold start: 200 bodies at rest in a uniform cube (zero jerk, so eta |a| / |j| is unbounded and
// the old start put every body on dt / 4). From the snap every first step is the criterion's:
// over one interval of 1/2 (about a third of the free-fall time) the energy error stays below
// 1e-6 (see the recorded property).
TEST_P(HermiteStart, BodiesAtRestStartFromTheirSnap) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  auto p = random_particles(200, 5);
  for (auto* v : {&p.vx, &p.vy, &p.vz}) std::fill(v->begin(), v->end(), 0.0);
  std::fill(p.m.begin(), p.m.end(), 1.0 / 200);  // total mass 1: free fall in about 1.5
  const GravityParams g{1.0, 0.02};
  auto s = make_system<double>(GetParam(), p.size(), g);
  IntegratorOptions o;
  o.mode = StepMode::block;
  o.eta = 0.02;
  auto integ = make_integrator<double>("hermite4", o);
  s->upload(p);
  integ->prepare(*s);
  const double e0 = s->moments().kinetic + s->potential_energy();
  integ->step(*s, 0.5);
  const double e1 = s->moments().kinetic + s->potential_energy();
  const double de = std::fabs((e1 - e0) / e0);
  EXPECT_LT(de, 1e-6);
  testing::Test::RecordProperty("energy_error", sci(de));
  testing::Test::RecordProperty("block_steps", std::to_string(integ->block_stats().block_steps));
}

INSTANTIATE_TEST_SUITE_P(Backends, HermiteStart, testing::ValuesIn(backend_cases(Precision::fp64)), case_name);

}  // namespace
}  // namespace nbody::test
