// The GPU path against the float64 CPU path (label gpu; skipped without a CUDA device): fields and
// particles after 100 steps within a bound derived from the arithmetic, charge conservation,
// and the deterministic deposition mode's same bits twice and across a restart.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <tuple>

#include "comm/communicator.hpp"
#include "pic/cpu/simulation.hpp"
#include "pic/cuda/gpu_slabs.hpp"
#include "pic/cuda/pic_gpu.hpp"
#include "pic/output/reduced_output.hpp"

namespace nbody::pic {
namespace {

#define REQUIRE_GPU()                                                        \
  do {                                                                       \
    std::string why_;                                                        \
    if (!pic_gpu_available(&why_)) GTEST_SKIP() << "no CUDA device: " << why_; \
  } while (0)

// A periodic thermal electron-deuteron plasma (n = 0.1 n_c: omega_p = 0.32) with a magnetic field
// (every current component), CK solver at 0.95 of its limit.
PicSimulation make_plasma(ShapeOrder shape, bool open_x = false, int pml_cells = 0) {
  PicSettings s;
  s.geom.nx = 48, s.geom.ny = 32, s.geom.dx = 0.2, s.geom.dy = 0.3;
  s.solver = SolverKind::ck;
  s.shape = shape;
  s.dt = 0.95 * max_stable_dt_plasma(s.solver, 0.2, 0.3, std::sqrt(0.1));
  s.external_b = {0.1, 0.2, 0.5};
  if (open_x) {
    s.field_bc.x = FieldBoundary::open;
    s.field_bc.pml_cells_x = pml_cells;
    s.laser.enabled = true;
    s.laser.a0 = 0.5;
    s.laser.polarisation = Polarisation::circular;
    s.laser.duration = 20;
  }
  PicSimulation sim(s);
  LoadSpec l;
  l.profile.n0 = 0.1;
  if (open_x) l.profile.x_start = 3.0;
  l.ppc_x = l.ppc_y = 3;
  l.u_thermal[0] = l.u_thermal[1] = l.u_thermal[2] = 0.2;
  Species e;
  e.name = "electron";
  if (open_x) e.bc.side[0] = e.bc.side[1] = ParticleBoundary::reflect;
  sim.load(sim.add_species(e), l);
  Species d;
  d.name = "deuteron";
  d.charge = 1, d.mass = 3670.48;
  d.bc = e.bc;
  l.u_thermal[0] = l.u_thermal[1] = l.u_thermal[2] = 0.002;
  l.seed = 2;
  sim.load(sim.add_species(d), l);
  return sim;
}

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t k = 0; k < a.size(); ++k) m = std::max(m, std::fabs(a[k] - b[k]));
  return m;
}
double max_abs(const std::vector<double>& a) {
  double m = 0;
  for (double v : a) m = std::max(m, std::fabs(v));
  return m;
}

// The bound: the GPU sums each grid point's current contributions in another order (atomics, or
// the sorted order) and nvcc contracts a*b+c into FMAs: each step's currents differ by at most
// ~ (contributions per point, ~ ppc K^2 = 225) x 2^-53 relative ~ 3e-14; over 100 steps these
// differences add (3e-12 of the field scale), and the particle orbits, which diverge at most
// like exp(omega_p t) with omega_p t = 0.32 x 18 = 6 here, amplify them by at most e^6 ~ 400:
// ~1e-9 in the worst case, 1e-11 typically; bound 1e-8.
void compare(const PicSimulation& cpu, const PicSimulation& gpu, const char* label) {
  for (int c = kEx; c <= kBz; ++c) {
    const double scale = std::max(max_abs(cpu.fields().data[c]), 1e-3);
    EXPECT_LE(max_abs_diff(cpu.fields().data[c], gpu.fields().data[c]) / scale, 1e-8) << label << " " << kComponentNames[c];
  }
  for (std::size_t s = 0; s < cpu.species().size(); ++s) {
    const Species& a = cpu.species()[s];
    const Species& b = gpu.species()[s];
    ASSERT_EQ(a.size(), b.size()) << label;
    EXPECT_LE(max_abs_diff(a.x, b.x) / cpu.settings().geom.dx, 1e-8) << label;
    EXPECT_LE(max_abs_diff(a.ux, b.ux) / std::max(max_abs(a.ux), 1e-6), 1e-8) << label;
    EXPECT_LE(max_abs_diff(a.uz, b.uz) / std::max(max_abs(a.uz), 1e-6), 1e-8) << label;
  }
}

class GpuVsCpu : public ::testing::TestWithParam<std::tuple<ShapeOrder, DepositMode, bool>> {};

TEST_P(GpuVsCpu, FieldsAndParticlesAfter100Steps) {
  REQUIRE_GPU();
  const auto [shape, mode, open_x] = GetParam();
  PicSimulation cpu = make_plasma(shape, open_x);
  PicSimulation back = make_plasma(shape, open_x);
  PicGpu gpu(cpu, mode);
  cpu.run(100);
  gpu.run(100);
  gpu.copy_to(back);
  EXPECT_EQ(back.step_count(), 100);
  compare(cpu, back, mode == DepositMode::atomic ? "atomic" : "deterministic");
}

std::string mode_name(const ::testing::TestParamInfo<std::tuple<ShapeOrder, DepositMode, bool>>& info) {
  std::string n = std::get<0>(info.param) == ShapeOrder::tsc ? "tsc" : "cic";
  n += std::get<1>(info.param) == DepositMode::atomic ? "_atomic" : "_deterministic";
  n += std::get<2>(info.param) ? "_laser" : "_periodic";
  return n;
}

INSTANTIATE_TEST_SUITE_P(Modes, GpuVsCpu,
                         ::testing::Combine(::testing::Values(ShapeOrder::cic, ShapeOrder::tsc),
                                            ::testing::Values(DepositMode::atomic, DepositMode::deterministic),
                                            ::testing::Values(false, true)),
                         mode_name);

TEST(Gpu, GaussLawHoldsToRounding) {
  REQUIRE_GPU();
  for (DepositMode mode : {DepositMode::atomic, DepositMode::deterministic}) {
    PicSimulation sim = make_plasma(ShapeOrder::tsc);
    sim.compute_rho(0);
    const double rho_e = sim.rho_abs_max();
    sim.compute_rho();
    const std::vector<double> r0 = sim.gauss_residual_field();
    PicGpu gpu(sim, mode);
    gpu.run(1000);
    gpu.copy_to(sim);
    sim.compute_rho();
    const std::vector<double> r1 = sim.gauss_residual_field();
    EXPECT_LE(max_abs_diff(r0, r1) / rho_e, 1e-12);
  }
}

// The diagnostics reduced on the device against the host's of the same state (brought back by
// copy_to): the energies and fluxes differ only by the summation order (relative 1e-12), the
// counts are equal, the Gauss change differs by the atomics' order of rho (absolute, 1e-12 of the
// species' rho scale). The time integrals of the Poynting fluxes against the CPU run's, which
// samples every step as the device does: within the GPU-vs-CPU bound above (1e-8).
TEST(Gpu, DiagnosticsOnTheDeviceMatchTheHost) {
  REQUIRE_GPU();
  for (bool open_x : {false, true}) {
    PicSimulation cpu = make_plasma(ShapeOrder::tsc, open_x);
    PicSimulation back = make_plasma(ShapeOrder::tsc, open_x);
    const int i_left = 1, i_right = cpu.settings().geom.nx - 2;
    cpu.compute_rho(0);
    const double rho_scale = cpu.rho_abs_max();
    cpu.compute_rho();
    const std::vector<double> r0 = cpu.gauss_residual_field();
    PicGpu gpu(cpu, DepositMode::atomic);
    gpu.track_poynting(i_left, i_right);
    gpu.set_gauss_reference(r0);
    double in = 0, out = 0;
    for (int n = 0; n < 60; ++n) {
      cpu.step();
      gpu.step();
      in += cpu.poynting_flux_x(i_left) * cpu.settings().dt;
      out += cpu.poynting_flux_x(i_right) * cpu.settings().dt;
    }
    const DeviceDiagnostics d = gpu.diagnostics();
    const DeviceDiagnostics again = gpu.diagnostics();
    gpu.copy_to(back);
    const EnergyReport e = back.energies();
    const char* label = open_x ? "laser" : "periodic";
    EXPECT_NEAR(d.energies.e_field, e.e_field, 1e-12 * e.total) << label;
    EXPECT_NEAR(d.energies.b_field, e.b_field, 1e-12 * e.total) << label;
    ASSERT_EQ(d.energies.kinetic.size(), e.kinetic.size());
    for (std::size_t k = 0; k < e.kinetic.size(); ++k) {
      EXPECT_NEAR(d.energies.kinetic[k], e.kinetic[k], 1e-12 * e.kinetic[k]) << label << " species " << k;
      EXPECT_EQ(d.counts[k], back.species()[k].size()) << label;
    }
    EXPECT_NEAR(d.energies.total, e.total, 1e-12 * e.total) << label;
    EXPECT_EQ(std::memcmp(&d.energies.total, &again.energies.total, sizeof(double)), 0) << "the same bits twice";
    back.compute_rho();
    double host_change = 0;
    const std::vector<double> r1 = back.gauss_residual_field();
    for (std::size_t k = 0; k < r1.size(); ++k) host_change = std::max(host_change, std::fabs(r1[k] - r0[k]));
    EXPECT_NEAR(d.gauss_change_max, host_change, 1e-12 * rho_scale) << label;
    EXPECT_LE(d.gauss_change_max / rho_scale, 1e-12) << label;
    const double flux_scale = std::max({std::fabs(back.poynting_flux_x(i_left)), std::fabs(back.poynting_flux_x(i_right)), 1e-300});
    EXPECT_NEAR(d.flux_left, back.poynting_flux_x(i_left), 1e-12 * flux_scale) << label;
    EXPECT_NEAR(d.flux_right, back.poynting_flux_x(i_right), 1e-12 * flux_scale) << label;
    const double energy_scale = std::max({std::fabs(in), std::fabs(out), 1e-12 * e.total});
    EXPECT_NEAR(d.energy_in_left, in, 1e-8 * energy_scale) << label;
    EXPECT_NEAR(d.energy_out_right, out, 1e-8 * energy_scale) << label;
    if (open_x) {
      EXPECT_GT(d.energy_in_left, 0) << "the laser brings energy in";
    }
  }
}

// The deposition kernels of the optimisation study against the CPU after 100 steps. atomic, cas
// and tiled keep float64 sums in another order: the bound of `compare` (1e-8) for the fields; the
// tiled kernel reorders the particles (sorting by tile), so they are compared as sorted sets of
// positions, and their number (absorbing x sides here: empty slots dropped by the sorts). float32
// rounds each contribution to 2^-24: the fields within 1e-4 of their scale (the per-step error
// ~ 225 contributions x 6e-8 of the largest, adding over 100 steps and amplified as above, is
// ~1e-3 in the worst case and ~1e-5 typically), and Gauss's law no longer kept to rounding: the
// change of the residual is reported and bounded by 1e-4 of the charge scale.
PicSimulation make_absorbing_plasma(ShapeOrder shape) {
  PicSimulation sim = make_plasma(shape, true);
  for (Species& sp : sim.species()) sp.bc.side[0] = sp.bc.side[1] = ParticleBoundary::absorb;
  return sim;
}

std::vector<double> sorted_copy(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// The PML on the GPU against the CPU's (the laser enters at the left, the layer at the right end
// absorbs what reaches it): fields, the layer's memories and particles within the bound above.
TEST(Gpu, PmlAgreesWithTheCpu) {
  REQUIRE_GPU();
  for (ShapeOrder shape : {ShapeOrder::cic, ShapeOrder::tsc}) {
    PicSimulation cpu = make_plasma(shape, true, 8);
    PicSimulation back = make_plasma(shape, true, 8);
    ASSERT_GT(cpu.solver().pml().cells, 0);
    PicGpu gpu(cpu, DepositMode::atomic);
    cpu.run(100);
    gpu.run(100);
    gpu.copy_to(back);
    compare(cpu, back, "pml");
    for (int c = 0; c < kPsiCount; ++c) {
      ASSERT_EQ(back.fields().psi[c].size(), cpu.fields().psi[c].size());
      const double scale = std::max(max_abs(cpu.fields().psi[c]), 1e-6);
      EXPECT_LE(max_abs_diff(cpu.fields().psi[c], back.fields().psi[c]) / scale, 1e-8) << "psi " << c;
    }
  }
}

// The reduced outputs' histograms made on the device are the host's of the same state (the state
// copy_to brings back: the same live particles): the same extremes and bins exactly, each bin's
// weight within the rounding of another summation order. After 100 steps of the warp kernel
// (sorted, slots emptied by the absorbing sides) with the laser in.
TEST(Gpu, ReducedHistogramsOnTheDeviceAreTheHosts) {
  REQUIRE_GPU();
  PicSimulation sim = make_absorbing_plasma(ShapeOrder::tsc);
  PicSimulation back = make_absorbing_plasma(ShapeOrder::tsc);
  PicGpuOptions o;
  o.deposit = DepositKernel::warp;
  PicGpu gpu(sim, o);
  gpu.run(100);
  const ReducedData d = gpu.reduced();
  gpu.copy_to(back);
  const ReducedData h = reduce_on_host(back);
  ASSERT_EQ(d.species.size(), h.species.size());
  auto close = [](const std::vector<double>& a, const std::vector<double>& b, const char* what, std::size_t k) {
    ASSERT_EQ(a.size(), b.size()) << what << " of species " << k;
    if (b.empty()) return;  // (a spectrum of particles at rest)
    double total = 0;
    for (double v : b) total += std::fabs(v);
    EXPECT_GT(total, 0.0) << what << " of species " << k;
    for (std::size_t i = 0; i < a.size(); ++i)
      EXPECT_LE(std::fabs(a[i] - b[i]), 1e-12 * total) << what << " bin " << i << " of species " << k;
  };
  for (std::size_t k = 0; k < h.species.size(); ++k) {
    const SpeciesReduction &a = d.species[k], &b = h.species[k];
    ASSERT_TRUE(b.live) << "species " << k;
    EXPECT_EQ(a.live, b.live);
    EXPECT_EQ(a.top_mev, b.top_mev) << "species " << k;
    EXPECT_EQ(a.u0, b.u0) << "species " << k;
    EXPECT_EQ(a.du, b.du) << "species " << k;
    close(a.profile, b.profile, "profile", k);
    close(a.spectrum, b.spectrum, "spectrum", k);
    close(a.phase, b.phase, "phase", k);
  }
  EXPECT_EQ(d.ey_mid, h.ey_mid);
  EXPECT_EQ(d.ez_mid, h.ez_mid);
}

class GpuDepositKernels : public ::testing::TestWithParam<std::tuple<ShapeOrder, DepositKernel>> {};

TEST_P(GpuDepositKernels, AgreeWithTheCpu) {
  REQUIRE_GPU();
  const auto [shape, kind] = GetParam();
  PicSimulation cpu = make_absorbing_plasma(shape);
  PicSimulation back = make_absorbing_plasma(shape);
  cpu.compute_rho(0);
  const double rho_scale = cpu.rho_abs_max();
  cpu.compute_rho();
  const std::vector<double> r0 = cpu.gauss_residual_field();
  PicGpuOptions o;
  o.deposit = kind;
  o.sort_every = 0;
  o.empty_ratio = 0.02;
  PicGpu gpu(cpu, o);
  cpu.run(100);
  gpu.run(100);
  gpu.copy_to(back);
  const bool f32 = deposit_kernel_info(kind).float32_sums();
  const double field_bound = f32 ? 1e-4 : 1e-8;
  for (int c = kEx; c <= kBz; ++c) {
    const double scale = std::max(max_abs(cpu.fields().data[c]), 1e-3);
    EXPECT_LE(max_abs_diff(cpu.fields().data[c], back.fields().data[c]) / scale, field_bound) << kComponentNames[c];
  }
  for (std::size_t k = 0; k < cpu.species().size(); ++k) {
    const Species& a = cpu.species()[k];
    const Species& b = back.species()[k];
    ASSERT_EQ(a.size(), b.size()) << "species " << k;
    const double pos_bound = (f32 ? 1e-4 : 1e-8) * cpu.settings().geom.dx;
    EXPECT_LE(max_abs_diff(sorted_copy(a.x), sorted_copy(b.x)), pos_bound) << "species " << k;
    EXPECT_LE(max_abs_diff(sorted_copy(a.y), sorted_copy(b.y)), pos_bound) << "species " << k;
  }
  back.compute_rho();
  const double change = max_abs_diff(r0, back.gauss_residual_field()) / rho_scale;
  EXPECT_LE(change, f32 ? 1e-4 : 1e-12);
  if (deposit_kernel_info(kind).sorted()) {
    EXPECT_GE(gpu.sorts(), 1);
  }
  EXPECT_GT(gpu.device_bytes(), 0u);
}

// Every row of the deposition table (deposit_kernels.hpp).
std::vector<DepositKernel> table_kernels() {
  std::vector<DepositKernel> k;
  for (const DepositKernelInfo& row : deposit_kernels()) k.push_back(row.kind);
  return k;
}

std::string kernel_name(const ::testing::TestParamInfo<std::tuple<ShapeOrder, DepositKernel>>& info) {
  const std::string n = std::get<0>(info.param) == ShapeOrder::tsc ? "tsc" : "cic";
  return n + "_" + std::string(deposit_kernel_info(std::get<1>(info.param)).name);
}

INSTANTIATE_TEST_SUITE_P(Kernels, GpuDepositKernels,
                         ::testing::Combine(::testing::Values(ShapeOrder::cic, ShapeOrder::tsc),
                                            ::testing::ValuesIn(table_kernels())),
                         kernel_name);

// Every row of the deposition table a few steps against the CPU, within the bounds above (a row
// with float32 sums: float32's): on one GPU, and where the row runs over blocks also as the one
// block of the GPU slabs on one process (DomainPicGpu: the block's own step, guards and folds).
class GpuDepositTable : public ::testing::TestWithParam<DepositKernel> {};

TEST_P(GpuDepositTable, AFewStepsAgreeWithTheCpu) {
  REQUIRE_GPU();
  const DepositKernelInfo& row = deposit_kernel_info(GetParam());
  const double bound = row.float32_sums() ? 1e-4 : 1e-8;
  const int steps = 20;
  const PicSimulation start = make_absorbing_plasma(ShapeOrder::tsc);
  PicSimulation cpu = start;
  cpu.run(steps);
  auto check = [&](const PicSimulation& back, const char* where) {
    EXPECT_EQ(back.step_count(), steps) << where;
    for (int c = kEx; c <= kBz; ++c) {
      const double scale = std::max(max_abs(cpu.fields().data[c]), 1e-3);
      EXPECT_LE(max_abs_diff(cpu.fields().data[c], back.fields().data[c]) / scale, bound)
          << row.name << " " << where << " " << kComponentNames[c];
    }
    for (std::size_t k = 0; k < cpu.species().size(); ++k) {
      const Species& a = cpu.species()[k];
      const Species& b = back.species()[k];
      ASSERT_EQ(a.size(), b.size()) << row.name << " " << where << " species " << k;
      EXPECT_LE(max_abs_diff(sorted_copy(a.x), sorted_copy(b.x)), bound * cpu.settings().geom.dx)
          << row.name << " " << where << " species " << k;
    }
  };
  PicGpuOptions o;
  o.deposit = row.kind;
  {
    PicGpu gpu(start, o);
    gpu.run(steps);
    PicSimulation back = make_absorbing_plasma(ShapeOrder::tsc);
    gpu.copy_to(back);
    check(back, "on one GPU");
    if (row.sorted()) EXPECT_GE(gpu.sorts(), 1) << row.name;
  }
  if (row.over_blocks()) {
    PicSimulation back = start;
    comm::NullCommunicator one;
    DomainPicGpu blocks(back, one, o);
    for (int n = 0; n < steps; ++n) blocks.step();
    blocks.gather(back);
    check(back, "as one block");
  }
}

INSTANTIATE_TEST_SUITE_P(Table, GpuDepositTable, ::testing::ValuesIn(table_kernels()),
                         [](const ::testing::TestParamInfo<DepositKernel>& info) {
                           return std::string(deposit_kernel_info(info.param).name);
                         });

// The warp-reduced deposit where the lanes of a warp do not share a window: the particles of
// every species shuffled (each lane adds its own currents), or every other block of 16 slots
// shuffled (warps half inside a window, half outside). Fields within the float64 bound of the
// CPU's, Gauss's law kept to rounding.
TEST(Gpu, WarpDepositWithoutCellOrder) {
  REQUIRE_GPU();
  for (const bool half : {false, true}) {
    PicSimulation cpu = make_absorbing_plasma(ShapeOrder::tsc);
    std::mt19937_64 rng(half ? 7 : 3);
    for (Species& sp : cpu.species()) {
      const std::size_t n = sp.size();
      std::vector<std::size_t> perm(n);
      std::iota(perm.begin(), perm.end(), std::size_t(0));
      if (half) {
        std::vector<std::size_t> odd;  // slots in odd blocks of 16
        for (std::size_t i = 0; i < n; ++i)
          if ((i / 16) % 2 == 1) odd.push_back(i);
        std::vector<std::size_t> moved = odd;
        std::shuffle(moved.begin(), moved.end(), rng);
        for (std::size_t k = 0; k < odd.size(); ++k) perm[odd[k]] = moved[k];
      } else {
        std::shuffle(perm.begin(), perm.end(), rng);
      }
      for (std::vector<double>* a : {&sp.x, &sp.y, &sp.ux, &sp.uy, &sp.uz, &sp.w}) {
        std::vector<double> b(n);
        for (std::size_t i = 0; i < n; ++i) b[i] = (*a)[perm[i]];
        *a = std::move(b);
      }
    }
    PicSimulation back = cpu;
    cpu.compute_rho(0);
    const double rho_scale = cpu.rho_abs_max();
    cpu.compute_rho();
    const std::vector<double> r0 = cpu.gauss_residual_field();
    PicGpuOptions o;
    o.deposit = DepositKernel::warp;
    PicGpu gpu(cpu, o);
    cpu.run(100);
    gpu.run(100);
    gpu.copy_to(back);
    for (int c = kEx; c <= kBz; ++c) {
      const double scale = std::max(max_abs(cpu.fields().data[c]), 1e-3);
      EXPECT_LE(max_abs_diff(cpu.fields().data[c], back.fields().data[c]) / scale, 1e-8)
          << (half ? "half shuffled " : "shuffled ") << kComponentNames[c];
    }
    back.compute_rho();
    EXPECT_LE(max_abs_diff(r0, back.gauss_residual_field()) / rho_scale, 1e-12) << (half ? "half shuffled" : "shuffled");
  }
}

// The sorting policy (tiled: by tile; warp: by cell): sorting every step, every 10 steps, or by
// empty_ratio gives the same physics (fields within the float64 bound) and sorts as often as asked.
TEST(Gpu, SortPoliciesAgree) {
  REQUIRE_GPU();
  PicSimulation ref = make_absorbing_plasma(ShapeOrder::tsc);
  PicSimulation cpu = make_absorbing_plasma(ShapeOrder::tsc);
  cpu.run(60);
  struct Case {
    int every;
    double ratio;
  };
  for (const DepositKernelInfo& row : deposit_kernels()) {
    if (!row.sorted()) continue;
    const DepositKernel kind = row.kind;
    const std::string name(row.name);
    for (const Case c : {Case{1, -1}, Case{10, -1}, Case{0, 0.0}, Case{0, 0.05}, Case{0, 0.2}}) {
      PicSimulation back = make_absorbing_plasma(ShapeOrder::tsc);
      PicGpuOptions o;
      o.deposit = kind;
      o.sort_every = c.every;
      o.empty_ratio = c.ratio;
      PicGpu gpu(ref, o);
      gpu.run(60);
      gpu.copy_to(back);
      for (int k = kEx; k <= kBz; ++k) {
        const double scale = std::max(max_abs(cpu.fields().data[k]), 1e-3);
        EXPECT_LE(max_abs_diff(cpu.fields().data[k], back.fields().data[k]) / scale, 1e-8)
            << name << " every " << c.every << " ratio " << c.ratio << " " << kComponentNames[k];
      }
      if (c.every == 1) {
        EXPECT_EQ(gpu.sorts(), 60) << name;
      }
      if (c.every == 10) {
        EXPECT_EQ(gpu.sorts(), 6) << name;
      }
      if (c.every == 0 && c.ratio == 0.0) {
        EXPECT_GE(gpu.sorts(), 2) << name << ": any particle out of place triggers a sort";
      }
    }
  }
}

std::vector<double> all_bits(const PicSimulation& s) {
  std::vector<double> out;
  for (const auto& f : s.fields().data) out.insert(out.end(), f.begin(), f.end());
  for (const Species& sp : s.species())
    for (const auto* v : {&sp.x, &sp.y, &sp.ux, &sp.uy, &sp.uz, &sp.w}) out.insert(out.end(), v->begin(), v->end());
  return out;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST(Gpu, DeterministicModeSameBitsTwiceAndAcrossRestart) {
  REQUIRE_GPU();
  std::vector<double> runs[2];
  for (auto& r : runs) {
    PicSimulation sim = make_plasma(ShapeOrder::tsc, true);
    PicGpu gpu(sim, DepositMode::deterministic);
    gpu.run(200);
    gpu.copy_to(sim);
    r = all_bits(sim);
  }
  EXPECT_TRUE(same_bits(runs[0], runs[1])) << "two runs differ";
  // Stop after 100 steps, bring the state to the host (a checkpoint holds exactly this), start a
  // new device copy from it, run 100 more.
  PicSimulation sim = make_plasma(ShapeOrder::tsc, true);
  {
    PicGpu first(sim, DepositMode::deterministic);
    first.run(100);
    first.copy_to(sim);
  }
  PicGpu second(sim, DepositMode::deterministic);
  second.run(100);
  second.copy_to(sim);
  EXPECT_TRUE(same_bits(runs[0], all_bits(sim))) << "restart differs";
}

// The footprint a plan checks before anything is built (pic_gpu_device_bytes) covers what the
// object holds on the device after steps (sorts, diagnostics, every buffer allocated on the way),
// for every row of the deposition table, and is not far above it.
TEST(Gpu, PlannedDeviceBytesCoverWhatTheStepHolds) {
  REQUIRE_GPU();
  for (const DepositKernelInfo& row : deposit_kernels()) {
    for (ShapeOrder shape : {ShapeOrder::cic, ShapeOrder::tsc}) {
      PicSimulation sim = make_plasma(shape);
      PicGpuFootprint f;
      f.geom = sim.settings().geom;
      f.shape = shape;
      for (const Species& s : sim.species()) f.particles += s.size(), f.most = std::max(f.most, s.size());
      f.species = sim.species().size();
      const std::size_t planned = pic_gpu_device_bytes(f, row.kind);
      PicGpuOptions o;
      o.deposit = row.kind;
      PicGpu gpu(sim, o);
      gpu.set_gauss_reference(sim.gauss_residual_field());
      for (int k = 0; k < 5; ++k) gpu.step();
      (void)gpu.diagnostics();
      EXPECT_GE(planned, gpu.device_bytes()) << row.name;
      EXPECT_LE(double(planned), 2.0 * double(gpu.device_bytes()) + 65536.0) << row.name;
    }
  }
}

}  // namespace
}  // namespace nbody::pic
