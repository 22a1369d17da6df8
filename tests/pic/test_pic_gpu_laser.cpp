// The focused and oblique lasers on the GPU path against the CPU's (label gpu; skipped without a
// CUDA device): the Mur kernel evaluates the same Laser::field at the boundary, so the fields
// after 12.6 periods (300 Yee steps) agree to the bound of test_pic_gpu.cpp (measured on the CPU: the beam reaches
// |E| 0.85 (Yee, 20 degrees) and 0.67 (circular) there).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "pic/cpu/simulation.hpp"
#include "pic/cuda/pic_gpu.hpp"
#include "pic/physics/units.hpp"

namespace nbody::pic {
namespace {

constexpr double kLambda = 2 * kPi;

// A 6 x 4 lambda box at 16 cells per lambda, open on every side, a focused beam (w0 = lambda,
// focus 3 lambda in, at `angle_deg`) onto a thin electron-proton layer at 4 lambda.
PicSimulation focused_on_a_layer(Polarisation pol, double angle_deg, SolverKind solver) {
  PicSettings s;
  s.geom.nx = 96, s.geom.ny = 64, s.geom.dx = kLambda / 16, s.geom.dy = kLambda / 16;
  s.geom.y0 = -2 * kLambda;
  s.solver = solver;
  s.shape = ShapeOrder::tsc;
  s.field_bc.x = s.field_bc.y = FieldBoundary::open;
  s.dt = 0.95 * max_stable_dt_plasma(s.solver, s.geom.dx, s.geom.dy, std::sqrt(2.0));
  Laser& l = s.laser;
  l.enabled = true;
  l.a0 = 1.0;
  l.polarisation = pol;
  l.envelope = Envelope::sin2;
  l.duration = 6 * kLambda;
  l.focused = true;
  l.waist = kLambda;
  l.focus_x = 3 * kLambda;
  l.angle = angle_deg * kPi / 180;
  PicSimulation sim(s);
  LoadSpec load;
  load.profile.n0 = 2.0;
  load.profile.x_start = 4 * kLambda, load.profile.x_end = 4.5 * kLambda;
  load.ppc_x = load.ppc_y = 2;
  Species e;
  e.name = "electron";
  for (auto& b : e.bc.side) b = ParticleBoundary::absorb;
  sim.load(sim.add_species(e), load);
  Species p = e;
  p.name = "proton", p.charge = 1, p.mass = 1836.15;
  load.seed = 2;
  sim.load(sim.add_species(p), load);
  return sim;
}

double max_abs(const std::vector<double>& a) {
  double m = 0;
  for (double v : a) m = std::max(m, std::fabs(v));
  return m;
}

void gpu_matches_cpu(Polarisation pol, double angle_deg, SolverKind solver) {
  std::string why;
  if (!pic_gpu_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  PicSimulation cpu = focused_on_a_layer(pol, angle_deg, solver);
  PicSimulation back = focused_on_a_layer(pol, angle_deg, solver);
  PicGpu gpu(cpu, DepositMode::deterministic);
  // 300 of Yee's steps (12.6 periods: the pulse is in the box, at the layer) whatever the
  // solver's step: CK's is about 1.4 times Yee's, and 300 of them would end after the
  // reflected pulse has left, comparing only the small fields it leaves behind.
  const GridGeometry& g = cpu.settings().geom;
  const double yee_dt = 0.95 * max_stable_dt_plasma(SolverKind::yee, g.dx, g.dy, std::sqrt(2.0));
  const int steps = static_cast<int>(std::lround(300 * yee_dt / cpu.settings().dt));
  cpu.run(steps);
  gpu.run(steps);
  gpu.copy_to(back);
  EXPECT_GT(max_abs(cpu.fields().data[pol == Polarisation::linear_z ? kEz : kEy]), 0.1) << "the laser has entered";
  for (int c = kEx; c <= kBz; ++c) {
    const double scale = std::max(max_abs(cpu.fields().data[c]), 1e-3);
    double d = 0;
    for (std::size_t k = 0; k < cpu.fields().data[c].size(); ++k)
      d = std::max(d, std::fabs(cpu.fields().data[c][k] - back.fields().data[c][k]));
    EXPECT_LE(d / scale, 1e-8) << kComponentNames[c];
  }
}

TEST(GpuLaser, FocusedObliqueYeeLinearMatchesTheCpu) { gpu_matches_cpu(Polarisation::linear_y, 20, SolverKind::yee); }
TEST(GpuLaser, FocusedObliqueLinearZMatchesTheCpu) { gpu_matches_cpu(Polarisation::linear_z, -15, SolverKind::yee); }
// CK: the smoothing's images at the open edges (field_stencils.hpp) in the kernels as on the host.
TEST(GpuLaser, FocusedObliqueCkLinearMatchesTheCpu) { gpu_matches_cpu(Polarisation::linear_y, 20, SolverKind::ck); }
TEST(GpuLaser, FocusedNormalCkLinearZMatchesTheCpu) { gpu_matches_cpu(Polarisation::linear_z, 0, SolverKind::ck); }
TEST(GpuLaser, FocusedNormalCircularMatchesTheCpu) { gpu_matches_cpu(Polarisation::circular, 0, SolverKind::yee); }

}  // namespace
}  // namespace nbody::pic
