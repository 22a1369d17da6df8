// The long examples' stated expectations, checked by running them as they are on the CPU backend
// (label `slow`: minutes on two cores; `ctest --preset slow`). Each example's comment names its
// test here; test_examples.cpp has the cheap ones.
#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <vector>

#include "example_runs.hpp"
#include "model_stats.hpp"

namespace nbody::test {
namespace {

// examples/cold_collapse.toml (4096 bodies, 2000 steps). Its comment: r_0.5 falls from 1.90 to its
// minimum 0.096 at t = 4.20; 2K/|W| peaks at 1.86 and ends at 1.49; r_0.9 grows from 2.3 to about
// 10.6; |dE/E0| 9.8e-3 at most, 1.4e-4 at the end. Sampled every 10 steps (t = 0.05) as its
// diagnostics are. Asked: the time of the minimum within one sample; the radii within 10 % (r_0.9
// at the end within 20 %: "about"); the virial ratios within 5 %; the energy errors within a
// factor 2 (float32 sums: their rounding moves with the compiler).
TEST(SlowExamples, ColdCollapseBouncesAsItsCommentSays) {
  const RunConfig cfg = example_config("cold_collapse.toml");
  std::vector<std::array<double, 7>> radii;
  const auto run = diagnostics_of_run(cfg, cfg.diag_every,
                                      [&](Simulation& sim) { radii.push_back(lagrangian_radii(sim.particles())); });
  std::size_t k_min = 0, k_peak = 0;
  for (std::size_t k = 0; k < run.size(); ++k) {
    if (radii[k][4] < radii[k_min][4]) k_min = k;
    if (run[k].virial > run[k_peak].virial) k_peak = k;
  }
  NBODY_MEASURED("cold_collapse: r_0.5 %.3f -> min %.4f at t = %.2f; r_0.9 %.2f -> %.2f; 2K/|W| peak %.3f at t = "
                 "%.2f, final %.3f; |dE/E0| %.2e at most, %.2e at the end",
                 radii.front()[4], radii[k_min][4], run[k_min].time, radii.front()[6], radii.back()[6],
                 run[k_peak].virial, run[k_peak].time, run.back().virial, largest_energy_error(run),
                 run.back().energy_error);
  EXPECT_NEAR(radii.front()[4], 1.90, 0.1 * 1.90);
  EXPECT_NEAR(radii[k_min][4], 0.096, 0.1 * 0.096);
  EXPECT_NEAR(run[k_min].time, 4.20, 0.05 + 1e-9);
  EXPECT_NEAR(radii.front()[6], 2.3, 0.1 * 2.3);
  EXPECT_NEAR(radii.back()[6], 10.6, 0.2 * 10.6);
  EXPECT_NEAR(run[k_peak].virial, 1.86, 0.05 * 1.86);
  EXPECT_NEAR(run.back().virial, 1.49, 0.05 * 1.49);
  EXPECT_GT(largest_energy_error(run), 9.8e-3 / 2);
  EXPECT_LT(largest_energy_error(run), 9.8e-3 * 2);
  EXPECT_LT(run.back().energy_error, 1.4e-4 * 2);
}

// examples/plummer.toml (16384 bodies, 10 crossing times). Its comment: r_0.1 = 0.31, r_0.5 =
// 0.77, r_0.9 = 2.2 stay within 4 % of their start (measured 3.4 %, 1.6 %, 2.6 %); 2K/|W| at
// 1.00 +- 0.015 (measured 0.990 to 1.011); |dE/E0| < 2e-4 (measured 4e-5); |L - L0|/|L0| ~ 5e-6.
// Sampled every diag_every steps as its outputs are. Asked: the starting radii within 3 %
// (two digits), the bounds as stated, |L - L0|/|L0| below 5e-5 (its order).
TEST(SlowExamples, PlummerStaysInEquilibriumAsItsCommentSays) {
  const RunConfig cfg = example_config("plummer.toml");
  std::vector<std::array<double, 7>> radii;
  const auto run = diagnostics_of_run(cfg, cfg.diag_every,
                                      [&](Simulation& sim) { radii.push_back(lagrangian_radii(sim.particles())); });
  const int index[3] = {2, 4, 6};  // 0.1, 0.5, 0.9 in kLagrangianFractions
  const double stated[3] = {0.31, 0.77, 2.2};
  double worst[3] = {0, 0, 0}, q_lo = 1e30, q_hi = 0, l_worst = 0;
  for (std::size_t k = 0; k < run.size(); ++k) {
    for (int j = 0; j < 3; ++j) {
      worst[j] = std::max(worst[j], std::fabs(radii[k][index[j]] / radii[0][index[j]] - 1.0));
    }
    q_lo = std::min(q_lo, run[k].virial);
    q_hi = std::max(q_hi, run[k].virial);
    l_worst = std::max(l_worst, angular_momentum_drift(run[k].diag, run[0].diag));
  }
  NBODY_MEASURED("plummer: r_0.1 %.3f r_0.5 %.3f r_0.9 %.3f, drifts %.1f %% %.1f %% %.1f %%; 2K/|W| %.3f ... %.3f; "
                 "|dE/E0| %.1e at most; |L - L0|/|L0| %.1e at most",
                 radii[0][2], radii[0][4], radii[0][6], 100 * worst[0], 100 * worst[1], 100 * worst[2], q_lo, q_hi,
                 largest_energy_error(run), l_worst);
  for (int j = 0; j < 3; ++j) {
    EXPECT_NEAR(radii[0][index[j]], stated[j], 0.03 * stated[j]) << kLagrangianFractions[index[j]];
    EXPECT_LT(worst[j], 0.04) << kLagrangianFractions[index[j]];
  }
  EXPECT_GE(q_lo, 0.985);
  EXPECT_LE(q_hi, 1.015);
  EXPECT_LT(largest_energy_error(run), 2e-4);
  EXPECT_LT(l_worst, 5e-5);
}

// Mercury's heliocentric direction in the two runs, as an angle in arcseconds.
double mercury_angle_arcsec(const Particles<double>& a, const Particles<double>& b) {
  const double ax = a.x[1] - a.x[0], ay = a.y[1] - a.y[0], az = a.z[1] - a.z[0];
  const double bx = b.x[1] - b.x[0], by = b.y[1] - b.y[0], bz = b.z[1] - b.z[0];
  const double cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
  const double angle = std::atan2(std::sqrt(cx * cx + cy * cy + cz * cz), ax * bx + ay * by + az * bz);
  return angle * 180.0 / std::numbers::pi * 3600.0;
}

// examples/solar_system.toml (yoshida4, dt = 1e-4 yr, 100 years). Its comment: |dE/E0| ~ 3e-13 at
// the end, |L - L0|/|L0| ~ 1e-13, |P - P0| ~ 1e-16, and Mercury (body 1) 0.04" from the same
// integration at half the step (measured 3.6e-13, 1.4e-13, 2.1e-16, 0.0402"). Asked: |dE/E0| and
// |L - L0|/|L0| below three times the stated values, |P - P0| below 1e-15 (rounding), Mercury's
// angle within 10 % of 0.04".
TEST(SlowExamples, SolarSystemCenturyAsItsCommentSays) {
  const RunConfig cfg = example_config("solar_system.toml");
  auto sim = Simulation::create(cfg);
  const Diagnostics d0 = sim->diagnostics();
  sim->advance(cfg.steps);
  const Diagnostics d = sim->diagnostics();
  RunConfig half = cfg;
  half.dt = cfg.dt / 2;
  half.steps = 2 * cfg.steps;
  auto fine = Simulation::create(half);
  fine->advance(half.steps);
  const double de = relative_energy_error(d, d0.total), dl = angular_momentum_drift(d, d0);
  const double dp = momentum_drift(d, d0);
  const double mercury = mercury_angle_arcsec(sim->particles(), fine->particles());
  NBODY_MEASURED("solar_system, t = %.1f yr: |dE/E0| %.1e, |L - L0|/|L0| %.1e, |P - P0| %.1e; Mercury %.3g\" from "
                 "the run at dt/2",
                 sim->time(), de, dl, dp, mercury);
  EXPECT_NEAR(sim->time(), 100.0, 1e-9);
  EXPECT_LT(de, 3 * 3e-13);
  EXPECT_LT(dl, 3 * 1e-13);
  EXPECT_LT(dp, 1e-15);
  EXPECT_NEAR(mercury, 0.04, 0.004);
}

// The galaxy collision's two galaxies, by id: galaxy g's centre is the mean position of its disk
// and bulge bodies (the first disk_fraction + bulge_fraction of its ids), as the example's
// comment defines it.
struct GalaxyTrack {
  double time = 0;
  double separation = 0;             // between the centres
  std::array<double, 2> tail_frac{};  // disk bodies beyond 0.6 from their galaxy's centre
  double virial = 0;
  double energy_error = 0;
};

GalaxyTrack track_galaxies(const RunConfig& cfg, const Particles<double>& p) {
  const auto n = static_cast<std::size_t>(cfg.n);
  const std::size_t first[2] = {0, n - n / 2}, size[2] = {n - n / 2, n / 2};
  std::size_t disk[2], core[2];
  for (int g = 0; g < 2; ++g) {
    disk[g] = static_cast<std::size_t>(std::llround(cfg.disk_fraction * double(size[g])));
    core[g] = disk[g] + static_cast<std::size_t>(std::llround(cfg.bulge_fraction * double(size[g])));
  }
  auto galaxy_part = [&](std::uint64_t id, int g, std::size_t count) {
    return id >= first[g] && id < first[g] + count;
  };
  std::array<std::array<double, 3>, 2> c{};
  for (int g = 0; g < 2; ++g) {
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (!galaxy_part(p.id[i], g, core[g])) continue;
      c[g][0] += p.x[i];
      c[g][1] += p.y[i];
      c[g][2] += p.z[i];
    }
    for (auto& v : c[g]) v /= double(core[g]);
  }
  GalaxyTrack t;
  t.separation = std::hypot(c[1][0] - c[0][0], c[1][1] - c[0][1], c[1][2] - c[0][2]);
  for (int g = 0; g < 2; ++g) {
    std::size_t far = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (!galaxy_part(p.id[i], g, disk[g])) continue;
      if (std::hypot(p.x[i] - c[g][0], p.y[i] - c[g][1], p.z[i] - c[g][2]) > 0.6) ++far;
    }
    t.tail_frac[g] = double(far) / double(disk[g]);
  }
  return t;
}

// examples/galaxy_collision.toml (16384 bodies, 3000 steps to t = 15), sampled every diag_every
// steps (t = 0.1). Its comment: the first pericentre at t = 3.0 with the centres 0.48 apart; the
// apocentre 1.84 at t = 7.7; the second passage at t = 11.5 (0.53 apart); at t = 15 the centres
// 0.81 apart and still separating (not merged by the end of the run); at the apocentre 29 % of disk 1 beyond 0.6 from its centre
// (1.5 % at the start) and 17 % of disk 2; 2K/|W| from 1.13 to 1.41 at the first pericentre,
// 1.03 at the end; |dE/E0| below 2e-4 (measured 1.1e-4). Asked: times within 0.2 (two samples),
// distances within 5 % (the last within 10 %), the fractions within 20 % of theirs (the starting
// one within 0.5 %), virial ratios within 0.03, the energy bound as stated.
TEST(SlowExamples, GalaxyCollisionFollowsItsStatedOrbit) {
  const RunConfig cfg = example_config("galaxy_collision.toml");
  std::vector<GalaxyTrack> track;
  double e0 = 0;
  follow_run(cfg, cfg.diag_every, [&](Simulation& sim) {
    GalaxyTrack t = track_galaxies(cfg, sim.particles());
    const Diagnostics d = sim.diagnostics();
    if (track.empty()) e0 = d.total;
    t.time = sim.time();
    t.virial = d.virial_ratio;
    t.energy_error = relative_energy_error(d, e0);
    track.push_back(t);
  });
  // The passages: the local minima of the separation; the apocentre: the maximum between them.
  std::vector<std::size_t> minima;
  for (std::size_t k = 1; k + 1 < track.size() && minima.size() < 2; ++k) {
    if (track[k].separation < track[k - 1].separation && track[k].separation <= track[k + 1].separation) {
      minima.push_back(k);
    }
  }
  ASSERT_EQ(minima.size(), 2u) << "the galaxies should pass each other twice";
  std::size_t apo = minima[0], apo2 = minima[1];
  for (std::size_t k = minima[0]; k < minima[1]; ++k) {
    if (track[k].separation > track[apo].separation) apo = k;
  }
  for (std::size_t k = minima[1]; k < track.size(); ++k) {
    if (track[k].separation > track[apo2].separation) apo2 = k;
  }
  double worst_e = 0;
  for (const auto& t : track) worst_e = std::max(worst_e, t.energy_error);
  const GalaxyTrack &p1 = track[minima[0]], &p2 = track[minima[1]], &a = track[apo], &end = track.back();
  NBODY_MEASURED("galaxy_collision: pericentre t = %.2f at %.3f; apocentre t = %.2f at %.3f; second passage t = %.2f "
                 "at %.3f; then out to %.3f at t = %.2f (%.3f at t = %.2f); disk bodies beyond 0.6: %.3f, %.3f at "
                 "the start, %.3f, %.3f at the apocentre; 2K/|W| %.3f, %.3f at the pericentre, %.3f at the end; "
                 "|dE/E0| %.1e at most",
                 p1.time, p1.separation, a.time, a.separation, p2.time, p2.separation, track[apo2].separation,
                 track[apo2].time, end.separation, end.time, track[0].tail_frac[0], track[0].tail_frac[1],
                 a.tail_frac[0], a.tail_frac[1], track[0].virial, p1.virial, end.virial, worst_e);
  EXPECT_NEAR(p1.time, 3.0, 0.2);
  EXPECT_NEAR(p1.separation, 0.48, 0.05 * 0.48);
  EXPECT_NEAR(a.time, 7.7, 0.2);
  EXPECT_NEAR(a.separation, 1.84, 0.05 * 1.84);
  EXPECT_NEAR(p2.time, 11.5, 0.2);
  EXPECT_NEAR(p2.separation, 0.53, 0.05 * 0.53);
  EXPECT_NEAR(end.time, 15.0, 1e-9);
  EXPECT_NEAR(end.separation, 0.81, 0.1 * 0.81);
  EXPECT_GT(end.separation, track[track.size() - 2].separation);  // still separating
  EXPECT_NEAR(track[0].tail_frac[0], 0.015, 0.005);
  EXPECT_NEAR(a.tail_frac[0], 0.29, 0.2 * 0.29);
  EXPECT_NEAR(a.tail_frac[1], 0.17, 0.2 * 0.17);
  EXPECT_NEAR(track[0].virial, 1.13, 0.03);
  EXPECT_NEAR(p1.virial, 1.41, 0.03);
  EXPECT_NEAR(end.virial, 1.03, 0.03);
  EXPECT_LT(worst_e, 2e-4);
}

}  // namespace
}  // namespace nbody::test
