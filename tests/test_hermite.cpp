// What the Hermite integrator and the step criteria use, with every solver: the solver's
// acceleration and jerk of an active subset against the float64 reference and against a finite
// difference of the acceleration, both softening laws; the interaction counter; |a|max; and the
// integrator's saved state (what a checkpoint carries) continuing a run bit for bit.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

#include "gravity/interaction.hpp"
#include "ic/ic.hpp"
#include "integrate/integrator.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

class HermiteOps : public testing::TestWithParam<BackendCase> {};
class HermiteOpsFp64 : public testing::TestWithParam<BackendCase> {};

// a and jerk of the `targets` (others zero), from the state `p` as it stands (t_i = 0 and
// prediction to 0: the predicted state is p itself).
struct AccJerk {
  std::vector<double> ax, ay, az, jx, jy, jz;
};

template <class T>
AccJerk acc_jerk_as(const BackendCase& c, const Particles<double>& p, const GravityParams& g,
                    const std::vector<std::int32_t>& targets, std::uint64_t* interactions = nullptr) {
  auto b = make_system<T>(c, p.size(), g);
  b->upload(p.as<T>());
  // The solver's pass from the state as it stands, into compact arrays where the store lives.
  const Location at = b->store().location();
  const StreamHandle stream = b->store().stream();
  const std::size_t count = targets.size();
  Array<std::int32_t> index(at, count);
  copy_bytes(index.data(), at, targets.data(), Location::host(), count * sizeof(std::int32_t), stream);
  std::vector<Array<T>> out;
  for (int k = 0; k < 6; ++k) out.emplace_back(at, count);
  const ParticleView<T> v = b->view();
  b->solver().acc_jerk({index.data(), static_cast<int>(count)}, v.motion(), {out[0].data(), out[1].data(), out[2].data()},
                       {out[3].data(), out[4].data(), out[5].data()});
  if (interactions != nullptr) *interactions = b->interactions();
  AccJerk r;
  std::vector<double>* fields[] = {&r.ax, &r.ay, &r.az, &r.jx, &r.jy, &r.jz};
  std::vector<T> compact(count);
  for (int k = 0; k < 6; ++k) {
    copy_bytes(compact.data(), Location::host(), out[k].data(), at, count * sizeof(T), stream);
    fields[k]->assign(p.size(), 0.0);  // the others zero
    for (std::size_t j = 0; j < count; ++j) (*fields[k])[std::size_t(targets[j])] = compact[j];
  }
  return r;
}

AccJerk acc_jerk(const BackendCase& c, const Particles<double>& p, const GravityParams& g,
                 const std::vector<std::int32_t>& targets, std::uint64_t* interactions = nullptr) {
  return with_state_type(c.precision,
                         [&]<class T>() { return acc_jerk_as<T>(c, p, g, targets, interactions); });
}

// Every third body and the last one: an active set with gaps, not starting at 0, and a tail.
std::vector<std::int32_t> sparse_targets(std::size_t n) {
  std::vector<std::int32_t> t;
  for (std::size_t i = 1; i < n; i += 3) t.push_back(static_cast<std::int32_t>(i));
  if (t.back() != static_cast<std::int32_t>(n - 1)) t.push_back(static_cast<std::int32_t>(n - 1));
  return t;
}

// Magnitudes of the terms of a_i and of j_i, G sum_j m_j |d| g and G sum_j m_j |dv| (g + r^2 |q|),
// from the double-precision pair law: rounding errors scale with these.
template <class Pair>
void term_magnitudes(const Pair& law, const Particles<double>& p, double G, std::size_t i, double& sa, double& sj) {
  sa = sj = 0;
  for (std::size_t j = 0; j < p.size(); ++j) {
    if (j == i) continue;
    const double dx = p.x[j] - p.x[i], dy = p.y[j] - p.y[i], dz = p.z[j] - p.z[i];
    const double r = std::sqrt(dx * dx + dy * dy + dz * dz);
    const double dv = std::hypot(p.vx[j] - p.vx[i], p.vy[j] - p.vy[i], p.vz[j] - p.vz[i]);
    // g and q of the law along (r, 0, 0), from the law itself: a = r g; jerk with dv = (1,0,0) is g + r^2 q.
    double ax = 0, ay = 0, az = 0, jx = 0, jy = 0, jz = 0;
    law.accumulate_jerk(r, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, ax, ay, az, jx, jy, jz);
    const double g = ax / r, r2q = jx - g;
    sa += p.m[j] * r * g;
    sj += p.m[j] * dv * (g + std::fabs(r2q));
  }
  sa *= G;
  sj *= G;
}

void expect_acc_jerk_close_to_reference(const BackendCase& c, const Particles<double>& in, const GravityParams& g) {
  const Particles<double> p = rounded_to(c.precision, in);
  const auto targets = sparse_targets(p.size());
  const auto got = acc_jerk(c, p, g, targets);
  const auto ref = acc_jerk_as<double>({"cpu-reference", Precision::fp64}, p, g, targets);
  // The same probabilistic rounding bound as the force test (test_forces.cpp): 4 u (10 + sqrt N)
  // times the sum of term magnitudes, per body.
  const double allowance = 4 * unit_roundoff(c.precision) * (10 + std::sqrt(double(p.size())));
  const bool spline = g.law == SofteningLaw::spline && g.softening > 0;
  double worst = 0;
  for (const auto t : targets) {
    const auto i = static_cast<std::size_t>(t);
    double sa = 0, sj = 0;
    if (spline) {
      term_magnitudes(gravity::SplinePair<double>::from_softening(g.softening), p, g.G, i, sa, sj);
    } else {
      term_magnitudes(gravity::PlummerPair<double, true>{g.eps2()}, p, g.G, i, sa, sj);
    }
    const double ea = std::hypot(got.ax[i] - ref.ax[i], got.ay[i] - ref.ay[i], got.az[i] - ref.az[i]);
    const double ej = std::hypot(got.jx[i] - ref.jx[i], got.jy[i] - ref.jy[i], got.jz[i] - ref.jz[i]);
    ASSERT_TRUE(std::isfinite(ea) && std::isfinite(ej)) << "body " << i;
    worst = std::max({worst, ea / (allowance * sa), ej / (allowance * sj)});
    EXPECT_LE(ea, allowance * sa) << "acceleration of body " << i;
    EXPECT_LE(ej, allowance * sj) << "jerk of body " << i;
    EXPECT_GT(std::hypot(ref.jx[i], ref.jy[i], ref.jz[i]), 0.0) << "body " << i;
  }
  // Bodies outside the active set are untouched (zero here).
  for (std::size_t i = 0; i + 1 < p.size(); i += 3) {
    EXPECT_EQ(got.ax[i], 0.0) << "inactive body " << i;
    EXPECT_EQ(got.jx[i], 0.0) << "inactive body " << i;
  }
  testing::Test::RecordProperty("worst_error_over_bound", sci(worst));
}

TEST_P(HermiteOps, AccelerationAndJerkOfActiveSubsetMatchReference) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  // 700: not a multiple of any block size; 234 active targets.
  const auto p = random_particles(700, 31);
  expect_acc_jerk_close_to_reference(GetParam(), p, {1.0, 0.01});
  expect_acc_jerk_close_to_reference(GetParam(), p, {1.0, 0.02, SofteningLaw::spline});
  expect_acc_jerk_close_to_reference(GetParam(), random_particles(300, 32), {0.7, 0.0});
}

// jerk = da/dt along the motion: (a(x + v delta) - a(x - v delta)) / (2 delta), whose error is
// delta^2 |d^3a/dt^3| / 6 + u |a| / delta; with delta = 1e-5 both stay below 1e-7 relative on
// these sets (eps = 0.05 keeps every pair's time scale above 1e-3). Two sets: 64 bodies spread
// over [-1, 1]^3 (most pairs Newtonian for the spline, h = 0.14), and the same scaled by 0.1 in
// position and velocity (most pairs inside h, in both of the kernel's inner ranges).
TEST_P(HermiteOpsFp64, JerkIsTheTimeDerivativeOfAcceleration) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const auto c = GetParam();
  const double delta = 1e-5;
  const auto spread = random_particles(64, 41);
  Particles<double> compact = spread;
  for (auto* v : {&compact.x, &compact.y, &compact.z, &compact.vx, &compact.vy, &compact.vz}) {
    for (auto& e : *v) e *= 0.1;
  }
  for (const Particles<double>* set : {&spread, static_cast<const Particles<double>*>(&compact)}) {
    const Particles<double>& p = *set;
    for (const GravityParams g : {GravityParams{1.0, 0.05}, GravityParams{1.0, 0.05, SofteningLaw::spline}}) {
      std::vector<std::int32_t> all(p.size());
      std::iota(all.begin(), all.end(), 0);
      const auto aj = acc_jerk(c, p, g, all);
      auto shifted = [&](double s) {
        Particles<double> q = p;
        for (std::size_t i = 0; i < q.size(); ++i) {
          q.x[i] += s * q.vx[i];
          q.y[i] += s * q.vy[i];
          q.z[i] += s * q.vz[i];
        }
        auto b = make_system<double>(c.backend, q.size(), g);  // the finite difference in float64
        b->upload(q);
        b->compute_accelerations();
        Accelerations<double> a;
        b->download_accelerations(a);
        return a;
      };
      const auto plus = shifted(delta), minus = shifted(-delta);
      double jerk_scale = 0;
      for (std::size_t i = 0; i < p.size(); ++i) {
        jerk_scale = std::max(jerk_scale, std::hypot(aj.jx[i], aj.jy[i], aj.jz[i]));
      }
      for (std::size_t i = 0; i < p.size(); ++i) {
        const double fx = (plus.ax[i] - minus.ax[i]) / (2 * delta);
        const double fy = (plus.ay[i] - minus.ay[i]) / (2 * delta);
        const double fz = (plus.az[i] - minus.az[i]) / (2 * delta);
        const double err = std::hypot(fx - aj.jx[i], fy - aj.jy[i], fz - aj.jz[i]);
        EXPECT_LE(err, 1e-6 * jerk_scale) << "body " << i << (g.law == SofteningLaw::spline ? " (spline" : " (plummer")
                                          << (set == &compact ? ", compact)" : ", spread)");
      }
    }
  }
}

TEST_P(HermiteOps, InteractionCounterCountsTargetsTimesSources) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const auto p = random_particles(100, 2);
  const auto targets = sparse_targets(p.size());
  std::uint64_t count = 0;
  (void)acc_jerk(GetParam(), p, {1.0, 0.01}, targets, &count);
  EXPECT_EQ(count, targets.size() * p.size());
}

TEST_P(HermiteOps, MaxAccelerationIsTheLargestDownloadedMagnitude) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  const auto c = GetParam();
  const auto p = random_particles(1000, 9);  // several blocks of the reduction, and a tail
  with_state_type(c.precision, [&]<class T>() {
    auto b = make_system<T>(c, p.size(), {1.0, 0.01});
    b->upload(p.as<T>());
    b->compute_accelerations();
    Accelerations<T> a;
    b->download_accelerations(a);
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double x = a.ax[i], y = a.ay[i], z = a.az[i];
      worst = std::max(worst, x * x + y * y + z * z);
    }
    // The maximum itself is exact; each |a_i|^2 may be formed with fused multiply-adds (the CPU
    // build's contraction, the GPU's), a few ulp from this unfused one.
    EXPECT_NEAR(b->max_acceleration(), std::sqrt(worst), 4 * std::numeric_limits<double>::epsilon() * std::sqrt(worst));
    EXPECT_EQ(b->interactions(), std::uint64_t(p.size()) * p.size());
  });
}

// What a checkpoint of a hermite4 run carries: the particles and the integrator's state (the
// levels, and a, jerk, t_i from the store). Restored into a fresh system and integrator, the run
// continues bit for bit, whichever loop drove the block steps before the checkpoint.
// first_on_host: the first half's block steps driven by the host, the rest (and the straight
// run) as device loops where the backend has them: a checkpoint does not depend on the loop.
template <class T>
void expect_restart_is_exact(const BackendCase& backend, bool first_on_host) {
  const auto initial = make_plummer({"plummer", 200, 4});
  const GravityParams g{1.0, 0.01};
  IntegratorOptions opts;
  opts.mode = StepMode::block;
  opts.eta = 0.02;
  const double dt = 1.0 / 32;

  auto straight = make_system<T>(backend, initial.size(), g);
  auto straight_integrator = make_integrator<T>("hermite4", opts);
  straight->upload(initial.as<T>());
  straight_integrator->prepare(*straight);
  for (int s = 0; s < 4; ++s) straight_integrator->step(*straight, dt);

  auto first = make_system<T>(backend, initial.size(), g);
  IntegratorOptions first_opts = opts;
  first_opts.device_loop = !first_on_host;
  auto first_integrator = make_integrator<T>("hermite4", first_opts);
  first->upload(initial.as<T>());
  first_integrator->prepare(*first);
  for (int s = 0; s < 2; ++s) first_integrator->step(*first, dt);
  Particles<T> particles;
  first->download(particles);
  const auto state = first_integrator->save_state(*first);
  const auto levels = first_integrator->particle_state();
  ASSERT_EQ(levels.size(), initial.size());
  first.reset();

  auto resumed = make_system<T>(backend, initial.size(), g);
  auto resumed_integrator = make_integrator<T>("hermite4", opts);
  resumed->upload(particles);
  resumed_integrator->prepare(*resumed);
  resumed_integrator->restore_state(*resumed, state);
  for (int s = 0; s < 2; ++s) resumed_integrator->step(*resumed, dt);

  Particles<T> a, b;
  straight->download(a);
  resumed->download(b);
  auto same = [](const std::vector<T>& x, const std::vector<T>& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
  };
  EXPECT_TRUE(same(a.x, b.x) && same(a.y, b.y) && same(a.z, b.z));
  EXPECT_TRUE(same(a.vx, b.vx) && same(a.vy, b.vy) && same(a.vz, b.vz));
  EXPECT_FALSE(same(a.x, initial.as<T>().x));  // and it moved
  // Several levels were in use: the block steps were exercised.
  const auto final_levels = straight_integrator->particle_state();
  EXPECT_GT(*std::max_element(final_levels.begin(), final_levels.end()),
            *std::min_element(final_levels.begin(), final_levels.end()));
}

TEST_P(HermiteOps, StateDownloadAndUploadContinueTheRunBitForBit) {
  NBODY_SKIP_IF_UNAVAILABLE(GetParam());
  with_state_type(GetParam().precision, [&]<class T>() {
    expect_restart_is_exact<T>(GetParam(), false);
    expect_restart_is_exact<T>(GetParam(), true);
  });
}

INSTANTIATE_TEST_SUITE_P(Backends, HermiteOps, testing::ValuesIn(backend_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Backends, HermiteOpsFp64, testing::ValuesIn(backend_cases(Precision::fp64)), case_name);

}  // namespace
}  // namespace nbody::test
