// The GPU path's float32 particle store (solver.particle_precision = "float32";
// pic/physics/particle_precision.hpp) against the float64 store (label gpu; skipped without a
// CUDA device). Every bound is derived from what the store rounds, before any run:
//   - a position is moved onto the store's grid once a step: at most 2^-25 cell (half the
//     2^-24 quantum), summed over N steps at most N 2^-25 cell;
//   - a momentum component is rounded to float32 once a step: at most 2^-24 of itself, over N
//     steps at most N 2^-24 of |u| (worst case: every rounding the same way);
//   - the weights are rounded once, at the upload: the reference runs start from the same
//     rounded state (round_to_float32_store), so only the per-step roundings differ.
// Charge: the deposit's move ends at the stored position (snap_to_store), so Esirkepov's
// continuity holds to float64 rounding as in the float64 store: the same 1e-12 bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "nbody/error.hpp"
#include "pic/cpu/simulation.hpp"
#include "pic/cuda/pic_gpu.hpp"
#include "pic/driver/probes.hpp"
#include "pic/physics/particle_precision.hpp"
#include "pic/physics/units.hpp"

namespace nbody::pic {
namespace {

using probes::background_of;
using probes::electrons;
using probes::frequency_from_zeros;
using probes::periodic_settings;
using probes::project;

constexpr double kU = 0x1.0p-24;  // a float32 rounding, relative (a momentum), or the offsets' quantum (cells)

#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    std::string why_;                                                          \
    if (!pic_gpu_available(&why_)) GTEST_SKIP() << "no CUDA device: " << why_; \
  } while (0)

PicGpuOptions options(ParticlePrecision p, DepositKernel k = DepositKernel::warp) {
  PicGpuOptions o;
  o.deposit = k;
  o.particle_precision = p;
  return o;
}

void round_all(PicSimulation& sim) {
  for (Species& s : sim.species()) round_to_float32_store(s, store_cells_of(sim.settings().geom));
}

std::vector<double> particle_bits(const PicSimulation& s) {
  std::vector<double> out;
  for (const Species& sp : s.species())
    for (const auto* v : {&sp.x, &sp.y, &sp.ux, &sp.uy, &sp.uz, &sp.w}) out.insert(out.end(), v->begin(), v->end());
  return out;
}
std::vector<double> all_bits(const PicSimulation& s) {
  std::vector<double> out;
  for (const auto& f : s.fields().data) out.insert(out.end(), f.begin(), f.end());
  const std::vector<double> p = particle_bits(s);
  out.insert(out.end(), p.begin(), p.end());
  return out;
}
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}
double max_abs(const std::vector<double>& a) {
  double m = 0;
  for (double v : a) m = std::max(m, std::fabs(v));
  return m;
}
double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t k = 0; k < a.size(); ++k) m = std::max(m, std::fabs(a[k] - b[k]));
  return m;
}

// max |a - b| over the slots, a coordinate's difference taken modulo the period len (a particle
// at the periodic edge may have wrapped in one run and not in the other).
double max_periodic_diff(const std::vector<double>& a, const std::vector<double>& b, double len) {
  double m = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    const double d = std::fabs(a[k] - b[k]);
    m = std::max(m, std::min(d, std::fabs(len - d)));
  }
  return m;
}

// test_pic_gpu.cpp's periodic thermal electron-deuteron plasma (n = 0.1 n_c, omega_p = 0.32, CK
// at 0.95 of its limit, an external B so every current component is driven).
PicSimulation make_plasma(ShapeOrder shape) {
  PicSettings s;
  s.geom.nx = 48, s.geom.ny = 32, s.geom.dx = 0.2, s.geom.dy = 0.3;
  s.solver = SolverKind::ck;
  s.shape = shape;
  s.dt = 0.95 * max_stable_dt_plasma(s.solver, 0.2, 0.3, std::sqrt(0.1));
  s.external_b = {0.1, 0.2, 0.5};
  PicSimulation sim(s);
  LoadSpec l;
  l.profile.n0 = 0.1;
  l.ppc_x = l.ppc_y = 3;
  l.u_thermal[0] = l.u_thermal[1] = l.u_thermal[2] = 0.2;
  Species e;
  e.name = "electron";
  sim.load(sim.add_species(e), l);
  Species d;
  d.name = "deuteron";
  d.charge = 1, d.mass = 3670.48;
  l.u_thermal[0] = l.u_thermal[1] = l.u_thermal[2] = 0.002;
  l.seed = 2;
  sim.load(sim.add_species(d), l);
  return sim;
}

// The store holds what round_to_float32_store gives on the host, bit for bit, and a state brought
// back and uploaded again is the same store (what a checkpoint of a float32 run restores).
TEST(GpuFloat32Store, HoldsTheRoundedStateAndRestoresItsBits) {
  REQUIRE_GPU();
  PicSimulation sim = make_plasma(ShapeOrder::tsc);
  PicSimulation rounded = sim;
  round_all(rounded);
  PicSimulation back = make_plasma(ShapeOrder::tsc);
  {
    PicGpu gpu(sim, options(ParticlePrecision::float32));
    gpu.copy_to(back);
  }
  EXPECT_TRUE(same_bits(particle_bits(rounded), particle_bits(back))) << "the upload is not round_to_float32_store";
  // After steps: brought back, uploaded again, brought back: the same bits.
  PicGpu gpu(sim, options(ParticlePrecision::float32));
  gpu.run(20);
  gpu.copy_to(back);
  PicSimulation again = make_plasma(ShapeOrder::tsc);
  PicGpu second(back, options(ParticlePrecision::float32));
  second.copy_to(again);
  EXPECT_TRUE(same_bits(particle_bits(back), particle_bits(again))) << "a state brought back does not upload to itself";
  PicSimulation twice = back;
  round_all(twice);
  EXPECT_TRUE(same_bits(particle_bits(back), particle_bits(twice))) << "the store's state is not a fixed point of the rounding";
}

// The deterministic kernel with the float32 store: the same bits twice, and across a stop, a copy
// to the host (a checkpoint holds exactly this) and a new device copy.
TEST(GpuFloat32Store, DeterministicSameBitsTwiceAndAcrossRestart) {
  REQUIRE_GPU();
  const PicGpuOptions o = options(ParticlePrecision::float32, DepositKernel::deterministic);
  std::vector<double> runs[2];
  for (auto& r : runs) {
    PicSimulation sim = make_plasma(ShapeOrder::tsc);
    PicGpu gpu(sim, o);
    gpu.run(100);
    gpu.copy_to(sim);
    r = all_bits(sim);
  }
  EXPECT_TRUE(same_bits(runs[0], runs[1])) << "two runs differ";
  PicSimulation sim = make_plasma(ShapeOrder::tsc);
  {
    PicGpu first(sim, o);
    first.run(50);
    first.copy_to(sim);
  }
  PicGpu second(sim, o);
  second.run(50);
  second.copy_to(sim);
  EXPECT_TRUE(same_bits(runs[0], all_bits(sim))) << "restart differs";
}

// Gauss's law over 1000 steps (the validation suite's case and the thermal plasma), for the
// kernels the default path and the bench use: to float64 rounding, as with the float64 store
// (the residual's reference from the stored state).
TEST(GpuFloat32Store, ChargeConservedToRounding) {
  REQUIRE_GPU();
  for (DepositKernel k : {DepositKernel::warp, DepositKernel::atomic, DepositKernel::deterministic}) {
    PicSimulation sim = make_plasma(ShapeOrder::tsc);
    round_all(sim);
    sim.compute_rho(0);
    const double rho_e = sim.rho_abs_max();
    sim.compute_rho();
    const std::vector<double> r0 = sim.gauss_residual_field();
    PicGpu gpu(sim, options(ParticlePrecision::float32, k));
    gpu.run(1000);
    gpu.copy_to(sim);
    sim.compute_rho();
    EXPECT_LE(max_abs_diff(r0, sim.gauss_residual_field()) / rho_e, 1e-12) << deposit_kernel_info(k).name;
  }
  // The validation suite's case: TSC, CK, 2 x 2 particles a cell, u_th = 0.3, external B.
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
  round_all(sim);
  sim.compute_rho();
  const double rho = sim.rho_abs_max();
  const std::vector<double> r0 = sim.gauss_residual_field();
  PicGpu gpu(sim, options(ParticlePrecision::float32));
  gpu.run(1000);
  gpu.copy_to(sim);
  sim.compute_rho();
  EXPECT_LE(max_abs_diff(r0, sim.gauss_residual_field()) / rho, 1e-12) << "validation case";
}

// The thermal plasma over 10 steps (the atomic kernel: the slots stay in the loading order; omega_p t = 0.6: orbits diverge by at most e^0.6 < 2),
// float32 store against float64 store from the same rounded state. Momenta: each step rounds
// each component by at most 2^-24 of itself: 10 steps, amplified by 2, at most 20 x 2^-24 of the
// largest |u| (bound 4e-6, twice that). Positions: 10 snaps of 2^-25 cell, and the momentum
// differences moving them by at most dt/dx |dv| a step (dt/dx < 1, |dv| <= k 2^-24 max|u| at step
// k): (10 x 2^-25 + 55 x 2^-24 max|u|) x 2 cells (bound: twice that).
TEST(GpuFloat32Store, ParticlesWithinTheRoundingOfTenSteps) {
  REQUIRE_GPU();
  for (ShapeOrder shape : {ShapeOrder::cic, ShapeOrder::tsc}) {
    PicSimulation start = make_plasma(shape);
    round_all(start);
    PicSimulation a = start, b = start;
    {
      PicGpu gpu(start, options(ParticlePrecision::float64, DepositKernel::atomic));
      gpu.run(10);
      gpu.copy_to(a);
    }
    {
      PicGpu gpu(start, options(ParticlePrecision::float32, DepositKernel::atomic));
      gpu.run(10);
      gpu.copy_to(b);
    }
    for (std::size_t k = 0; k < a.species().size(); ++k) {
      const Species& p = a.species()[k];
      const Species& q = b.species()[k];
      ASSERT_EQ(p.size(), q.size());
      const double umax = std::max({max_abs(p.ux), max_abs(p.uy), max_abs(p.uz)});
      const double u_bound = 2 * 20 * kU * umax;
      const double x_bound = 2 * 2 * (10 * 0.5 * kU + 55 * kU * umax);
      for (const auto& [u, v] : {std::pair{&p.ux, &q.ux}, std::pair{&p.uy, &q.uy}, std::pair{&p.uz, &q.uz}})
        EXPECT_LE(max_abs_diff(*u, *v), u_bound) << p.name;
      const GridGeometry& g = a.settings().geom;
      EXPECT_LE(max_periodic_diff(p.x, q.x, g.nx * g.dx) / g.dx, x_bound) << p.name;
      EXPECT_LE(max_periodic_diff(p.y, q.y, g.ny * g.dy) / g.dy, x_bound) << p.name;
      EXPECT_TRUE(same_bits(p.w, q.w)) << "weights are stored once";
    }
  }
}

// The validation suite's Langmuir case (float64 store, float32 store, and float32 currents; k = 0.5, u0 = 0.01, 64 cells, 4 regular particles a
// cell, 10.5 periods, N = 507 steps) on both stores. The oscillation is linear and stable: the
// store's roundings add up without growth. The displacement amplitude is u0/omega_p = 0.05
// cell; N snaps of 2^-25 cell are at most 1.5e-5 cell, 3e-4 of it; the momenta's N x 2^-24 =
// 3e-5 of theirs: the zero crossings move by at most ~3e-4 rad, the frequency over 10 periods
// by at most 2 x 3e-4 / (20 pi) = 1e-5 (bound 1e-4). Both within the suite's 1% of theory.
TEST(GpuFloat32Store, LangmuirFrequencyAsTheFloat64Stores) {
  REQUIRE_GPU();
  const double k = 0.5, u0 = 0.01, dx = 2 * kPi / k / 64;
  const PicSettings s = periodic_settings(64, 2, dx, dx, 0.13);
  PicSimulation start(s);
  LoadSpec l;
  l.profile.n0 = 1;
  l.ppc_x = 4;
  l.regular = true;
  start.load(start.add_species(electrons()), l);
  start.add_species(background_of(start.species()[0]));
  for (std::size_t p = 0; p < start.species()[0].size(); ++p)
    start.species()[0].ux[p] = u0 * std::sin(k * start.species()[0].x[p]);
  round_all(start);
  const double theory = 2 / s.dt * std::asin(0.5 * s.dt);
  double omega[3] = {0, 0, 0};
  for (int f32 = 0; f32 < 3; ++f32) {
    PicSimulation host = start;
    PicGpuOptions o = options(f32 ? ParticlePrecision::float32 : ParticlePrecision::float64);
    o.float32_currents = f32 == 2;
    PicGpu gpu(start, o);
    std::vector<double> t, a;
    for (int n = 0; n < int(10.5 * 2 * kPi / s.dt); ++n) {
      gpu.step();
      gpu.copy_fields_to(host);
      t.push_back(s.t0 + double(gpu.step_count()) * s.dt);
      a.push_back(project(host.fields(), kEx, k, 0.5, true));
    }
    omega[f32] = frequency_from_zeros(t, a);
    EXPECT_NEAR(omega[f32] / theory, 1.0, 0.01) << f32;
  }
  EXPECT_NEAR(omega[1] / omega[0], 1.0, 1e-4);
  // Float32 currents: each contribution rounded by at most 16 (W - 1) 2^-24 = 3.8e-6 of itself a
  // step (CIC, W = 5: below), over 507 steps 1.9e-3 of the mode at the worst, the frequency over
  // 10 periods by 2 x 1.9e-3 / (20 pi) = 6e-5: the same bound.
  EXPECT_NEAR(omega[2] / omega[0], 1.0, 1e-4) << "float32 currents";
}

// The validation suite's EM wave in a plasma (omega^2 = omega_p^2 + c^2 k^2 = 2, 64 cells, 4
// regular electrons a cell, Ey = 1e-3 cos kx, 10.5 periods: N = 933 steps) on both stores. The
// snaps do not add up: each step's move starts at the last stored position, so the charge moved
// is that of the stored positions, within 2^-25 cell of the float64 store's at any time, against
// a displacement amplitude of u/omega = 7e-4 c/omega0 = 7e-3 cell: 5e-6 of the plasma response;
// the momenta's N x 2^-24 = 5.6e-5: the frequency over 10 periods within 2 x 6e-5 / (20 pi) =
// 2e-6 (bound 1e-4). Both within the suite's 1% of theory.
TEST(GpuFloat32Store, EmWaveInPlasmaAsTheFloat64Stores) {
  REQUIRE_GPU();
  const double k = 1, dx = 2 * kPi / 64;
  const PicSettings s = periodic_settings(64, 2, dx, dx, 0.05);
  PicSimulation start(s);
  LoadSpec l;
  l.profile.n0 = 1;
  l.ppc_x = 4;
  l.regular = true;
  start.load(start.add_species(electrons()), l);
  start.add_species(background_of(start.species()[0]));
  for (int j = -kGuard; j < 2 + kGuard; ++j)
    for (int i = -kGuard; i < 64 + kGuard; ++i) start.fields().at(kEy, i, j) = 1e-3 * std::cos(k * i * dx);
  round_all(start);
  double omega[2] = {0, 0};
  for (int f32 = 0; f32 < 2; ++f32) {
    PicSimulation host = start;
    PicGpu gpu(start, options(f32 ? ParticlePrecision::float32 : ParticlePrecision::float64));
    std::vector<double> t, a;
    for (int n = 0; n < int(10.5 * 2 * kPi / std::sqrt(2.0) / s.dt); ++n) {
      gpu.step();
      gpu.copy_fields_to(host);
      t.push_back(s.t0 + double(gpu.step_count()) * s.dt);
      a.push_back(project(host.fields(), kEy, k, 0, false));
    }
    omega[f32] = frequency_from_zeros(t, a);
    EXPECT_NEAR(omega[f32] / std::sqrt(2.0), 1.0, 0.01) << f32;
  }
  EXPECT_NEAR(omega[1] / omega[0], 1.0, 1e-4);
}

// The validation suite's gyration case (u0 = 2, gamma = sqrt 5, B = 1, 400 steps a period, 4000
// steps; no deposit, no field solve). The rotation keeps |u| in float64; the store rounds each
// component by 2^-24 of itself a step, |u| by at most 2^-24 of itself: over 4000 steps gamma by at
// most (u^2/gamma^2) 4000 x 2^-24 = 1.9e-4 of itself, and the frequency 1/gamma the same (bound
// 4000 x 2^-24 = 2.4e-4). Both within the suite's 1e-3 of theory (float32: plus that bound).
TEST(GpuFloat32Store, GyrationFrequencyAsTheFloat64Stores) {
  REQUIRE_GPU();
  const double u0 = 2, g = std::sqrt(5.0), theory = 1 / g, dt = 2 * kPi / theory / 400;
  PicSettings s = periodic_settings(8, 8, 100, 100, dt);
  s.deposit = false, s.solve_fields = false;
  s.external_b = {0, 0, 1};
  double omega[2] = {0, 0};
  for (int f32 = 0; f32 < 2; ++f32) {
    PicSimulation sim(s);
    Species e = electrons();
    e.push_back(400, 400, 0, u0, 0, 1);
    sim.add_species(e);
    PicSimulation host = sim;
    PicGpu gpu(sim, options(f32 ? ParticlePrecision::float32 : ParticlePrecision::float64));
    std::vector<double> t, a;
    for (int n = 0; n < 4000; ++n) {
      gpu.step();
      gpu.copy_to(host);
      t.push_back(host.time());
      a.push_back(host.species()[0].ux[0]);
    }
    omega[f32] = frequency_from_zeros(t, a);
  }
  EXPECT_NEAR(omega[0] / theory, 1.0, 1e-3);
  EXPECT_NEAR(omega[1] / theory, 1.0, 1e-3 + 4000 * kU);
  EXPECT_NEAR(omega[1] / omega[0], 1.0, 4000 * kU);
}

// The warp window's float32 currents (PicGpuOptions::float32_currents) conserve charge to their
// rounding. A lane's running sums take 2 (W - 1) float32 operations a value (W = K + 1 = 6 for
// TSC), each rounding by at most 2^-24 of a partial sum bounded by 2 |q w| c / (dx dy); a node's
// divergence takes 4 such values, dt times it at most 16 (W - 1) 2^-24 = 4.8e-6 of a particle's
// charge density q w / (dx dy). A node is reached by the particles of K^2 = 25 cells, 9 of each
// species a cell (equal weights and |charges| here), the largest single-species density being 9 of
// them: at most 2 x 25 x 4.8e-6 = 2.4e-4 of the charge scale a step with every rounding the same
// way, over 100 steps 2.4e-2 (the bound; random signs would give ~1e-5). And without float32
// currents the same kernel keeps 1e-12 (ChargeConservedToRounding).
TEST(GpuFloat32Store, Float32CurrentsConserveChargeToTheirRounding) {
  REQUIRE_GPU();
  PicSimulation sim = make_plasma(ShapeOrder::tsc);
  round_all(sim);
  sim.compute_rho(0);
  const double rho_e = sim.rho_abs_max();
  sim.compute_rho();
  const std::vector<double> r0 = sim.gauss_residual_field();
  PicGpuOptions o = options(ParticlePrecision::float32);
  o.float32_currents = true;
  PicGpu gpu(sim, o);
  gpu.run(100);
  gpu.copy_to(sim);
  sim.compute_rho();
  const double change = max_abs_diff(r0, sim.gauss_residual_field()) / rho_e;
  EXPECT_LE(change, 100 * 2 * 25 * 16 * 5 * kU);
  std::printf("[ float32 currents: Gauss change %.3g of the charge scale over 100 steps ]\n", change);
  // Refused without the float32 store.
  PicGpuOptions bad = options(ParticlePrecision::float64);
  bad.float32_currents = true;
  const auto build = [&] { PicGpu refused(sim, bad); };
  EXPECT_THROW(build(), Error);
}

// The memory plan covers the float32 store (28 bytes and a flag a particle instead of 48) and the
// store takes fewer bytes than the float64 one.
TEST(GpuFloat32Store, PlannedDeviceBytesCoverTheStore) {
  REQUIRE_GPU();
  std::size_t held[2] = {0, 0};
  for (int f32 = 0; f32 < 2; ++f32) {
    const ParticlePrecision p = f32 ? ParticlePrecision::float32 : ParticlePrecision::float64;
    PicSimulation sim = make_plasma(ShapeOrder::tsc);
    PicGpuFootprint f;
    f.geom = sim.settings().geom;
    f.shape = ShapeOrder::tsc;
    for (const Species& s : sim.species()) f.particles += s.size(), f.most = std::max(f.most, s.size());
    f.species = sim.species().size();
    f.precision = p;
    const std::size_t planned = pic_gpu_device_bytes(f, DepositKernel::warp);
    PicGpu gpu(sim, options(p));
    for (int k = 0; k < 5; ++k) gpu.step();
    EXPECT_GE(planned, gpu.device_bytes()) << particle_precision_name(p);
    held[f32] = gpu.device_bytes();
  }
  EXPECT_LT(held[1], held[0]);
}

}  // namespace
}  // namespace nbody::pic
