#include "pic/driver/validation.hpp"

#include <algorithm>
#include <cmath>

#include "pic/cpu/directional_splitting.hpp"
#include "pic/driver/probes.hpp"
#include "pic/cpu/simulation.hpp"
#include "pic/physics/units.hpp"

namespace nbody::pic {
namespace {

using probes::background_of;
using probes::electrons;
using probes::periodic_settings;
using probes::project;
using probes::frequency_from_zeros;


ValidationResult within(const std::string& name, double measured, double expected, double rel) {
  ValidationResult r;
  r.name = name;
  r.measured = measured / expected;
  char buf[96];
  std::snprintf(buf, sizeof buf, "ratio to theory 1 +- %g", rel);
  r.target = buf;
  r.passed = std::fabs(measured / expected - 1) <= rel;
  return r;
}

ValidationResult langmuir() {
  const double k = 0.5, u0 = 0.01, dx = 2 * kPi / k / 64;
  PicSettings s = periodic_settings(64, 2, dx, dx, 0.13);
  PicSimulation sim(s);
  LoadSpec l;
  l.profile.n0 = 1;
  l.ppc_x = 4;
  l.regular = true;
  sim.load(sim.add_species(electrons()), l);
  sim.add_species(background_of(sim.species()[0]));
  for (std::size_t p = 0; p < sim.species()[0].size(); ++p) sim.species()[0].ux[p] = u0 * std::sin(k * sim.species()[0].x[p]);
  std::vector<double> t, a;
  for (int n = 0; n < int(10.5 * 2 * kPi / s.dt); ++n) {
    sim.step();
    t.push_back(sim.time());
    a.push_back(project(sim.fields(), kEx, k, 0.5, true));
  }
  return within("Langmuir frequency, 10 periods (leapfrog-corrected)", frequency_from_zeros(t, a), 2 / s.dt * std::asin(0.5 * s.dt), 0.01);
}

ValidationResult two_stream() {
  const double v0 = 0.1, g0 = 1 / std::sqrt(1 - v0 * v0), wp = 1 / std::pow(g0, 1.5);
  const double k = std::sqrt(3.0 / 8.0) * wp / v0, dx = 2 * kPi / k / 32;
  PicSettings s = periodic_settings(32, 2, dx, dx, 0.02);
  s.shape = ShapeOrder::tsc;
  PicSimulation sim(s);
  LoadSpec l;
  l.profile.n0 = 0.5;
  l.ppc_x = 16;
  l.regular = true;
  for (int b = 0; b < 2; ++b) {
    Species e = electrons();
    e.name = b ? "beam-" : "beam+";
    l.u_drift[0] = (b ? -1 : 1) * g0 * v0;
    sim.load(sim.add_species(e), l);
  }
  Species bg = background_of(sim.species()[0]);
  for (double& w : bg.w) w *= 2;
  sim.add_species(bg);
  for (int b = 0; b < 2; ++b)
    for (std::size_t p = 0; p < sim.species()[std::size_t(b)].size(); ++p)
      sim.species()[std::size_t(b)].ux[p] += 1e-6 * std::sin(k * sim.species()[std::size_t(b)].x[p]);
  const double gmax = wp / (2 * std::sqrt(2.0));
  double n = 0, st = 0, sl = 0, stt = 0, stl = 0;
  for (int m = 0; m < int(11 / gmax / s.dt); ++m) {
    sim.step();
    const double t = sim.time();
    if (t < 4.5 / gmax || t > 10.5 / gmax) continue;
    const double lg = std::log(std::hypot(project(sim.fields(), kEx, k, 0.5, true), project(sim.fields(), kEx, k, 0.5, false)));
    n += 1, st += t, sl += lg, stt += t * t, stl += t * lg;
  }
  return within("two-stream growth rate omega_p/(2 sqrt 2)", (n * stl - st * sl) / (n * stt - st * st), gmax, 0.05);
}

ValidationResult em_in_plasma() {
  const double k = 1, dx = 2 * kPi / 64;
  PicSettings s = periodic_settings(64, 2, dx, dx, 0.05);
  PicSimulation sim(s);
  LoadSpec l;
  l.profile.n0 = 1;
  l.ppc_x = 4;
  l.regular = true;
  sim.load(sim.add_species(electrons()), l);
  sim.add_species(background_of(sim.species()[0]));
  for (int j = -kGuard; j < 2 + kGuard; ++j)
    for (int i = -kGuard; i < 64 + kGuard; ++i) sim.fields().at(kEy, i, j) = 1e-3 * std::cos(k * i * dx);
  std::vector<double> t, a;
  for (int n = 0; n < int(10.5 * 2 * kPi / std::sqrt(2.0) / s.dt); ++n) {
    sim.step();
    t.push_back(sim.time());
    a.push_back(project(sim.fields(), kEy, k, 0, false));
  }
  return within("EM wave in plasma omega^2 = omega_p^2 + c^2 k^2", frequency_from_zeros(t, a), std::sqrt(2.0), 0.01);
}

ValidationResult vacuum(SolverKind kind, double fraction) {
  const int nx = 32, ny = 16;
  const double dx = 0.1, dy = 0.2;
  PicSettings s = periodic_settings(nx, ny, dx, dy, fraction * max_stable_dt(kind, dx, dy));
  s.solver = kind;
  PicSimulation sim(s);
  const double kx = 2 * kPi * 6 / (nx * dx), ky = 2 * kPi * 5 / (ny * dy);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) sim.fields().at(kEz, i, j) = std::cos(kx * i * dx + ky * j * dy);
  sim.refresh_guards();
  std::vector<double> a;
  for (int n = 0; n < 400; ++n) {
    sim.step();
    double sum = 0;
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) sum += sim.fields().at(kEz, i, j) * std::cos(kx * i * dx + ky * j * dy);
    a.push_back(sum);
  }
  double num = 0, den = 0;
  for (std::size_t n = 1; n + 1 < a.size(); ++n) num += a[n] * (a[n + 1] + a[n - 1]), den += 2 * a[n] * a[n];
  return within(std::string("vacuum dispersion, ") + solver_name(kind) + (kind == SolverKind::ck ? " at c dt = dx" : " at 0.95 Courant"),
                std::acos(num / den) / s.dt, discrete_omega(kind, dx, dy, s.dt, kx, ky), 1e-9);
}

ValidationResult charge_conservation() {
  PicSettings s = periodic_settings(12, 10, 0.2, 0.3, 0.0);
  s.solver = SolverKind::ck;
  s.shape = ShapeOrder::tsc;
  s.dt = 0.95 * max_stable_dt(s.solver, 0.2, 0.3);
  s.external_b = {0.1, 0.2, 0.5};
  PicSimulation sim(s);
  LoadSpec l;
  l.profile.n0 = 1;
  l.ppc_x = l.ppc_y = 2;
  l.u_thermal[0] = l.u_thermal[1] = l.u_thermal[2] = 0.3;
  sim.load(sim.add_species(electrons()), l);
  sim.compute_rho();
  const double rho = sim.rho_abs_max();
  const std::vector<double> r0 = sim.gauss_residual_field();
  sim.run(1000);
  sim.compute_rho();
  const std::vector<double> r1 = sim.gauss_residual_field();
  double worst = 0;
  for (std::size_t k = 0; k < r0.size(); ++k) worst = std::max(worst, std::fabs(r1[k] - r0[k]));
  ValidationResult r{"Gauss's law, 1000 steps (TSC, CK)", worst / rho, "<= 1e-12", worst / rho <= 1e-12};
  return r;
}

ValidationResult gyration() {
  const double u0 = 2, g = std::sqrt(5.0), omega = 1 / g, dt = 2 * kPi / omega / 400;
  PicSettings s = periodic_settings(8, 8, 100, 100, dt);
  s.deposit = false, s.solve_fields = false;
  s.external_b = {0, 0, 1};
  PicSimulation sim(s);
  Species e = electrons();
  e.push_back(400, 400, 0, u0, 0, 1);
  sim.add_species(e);
  std::vector<double> t, a;
  for (int n = 0; n < 4000; ++n) {
    sim.step();
    t.push_back(sim.time());
    a.push_back(sim.species()[0].ux[0]);
  }
  return within("gyration frequency qB/(gamma m)", frequency_from_zeros(t, a), omega, 1e-3);
}

ValidationResult absorption() {
  const double dx = 2 * kPi / 32;
  PicSettings s = periodic_settings(16 * 32, 2, dx, 2 * dx, 0.999 * dx);
  s.solver = SolverKind::ck;
  s.field_bc.x = FieldBoundary::open;
  s.laser.enabled = true;
  s.laser.a0 = 0.01;
  s.laser.duration = 8 * kPi;
  PicSimulation sim(s);
  auto peak = [&] {
    double m = 0;
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i <= s.geom.nx; ++i) m = std::max(m, std::fabs(sim.fields().at(kEy, i, j)));
    return m;
  };
  sim.run(int(16 * kPi / s.dt));
  const double in = peak();
  sim.run(int(36 * kPi / s.dt));
  const double left = peak() / in;
  return {"Mur boundary reflection (CK, normal incidence)", left, "<= 1e-3", left <= 1e-3};
}

ValidationResult ds_stability() {
  DirectionalSplitting ds(32, 16, 0.1, 0.2);
  std::uint64_t z = 1;
  for (int c = 0; c < 6; ++c)
    for (int j = 0; j < 16; ++j)
      for (int i = 0; i < 32; ++i) {
        z = z * 6364136223846793005ULL + 1442695040888963407ULL;
        ds.at(c, i, j) = double(z >> 11) * 0x1.0p-53 - 0.5;
      }
  const double e0 = ds.energy();
  for (int n = 0; n < 1000; ++n) ds.step();
  const double ratio = ds.energy() / e0;
  return {"directional splitting at c dt = dx: energy ratio after 1000 steps", ratio, "<= 1 (stable)", ratio <= 1.0};
}

}  // namespace

std::vector<ValidationResult> run_validation_suite() {
  return {langmuir(), two_stream(), em_in_plasma(), vacuum(SolverKind::yee, 0.95), vacuum(SolverKind::ck, 1.0),
          charge_conservation(), gyration(), absorption(), ds_stability()};
}

}  // namespace nbody::pic
