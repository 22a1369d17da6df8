// The GPU tree as a production force solver (--gravity tree --device cuda): a System on the
// device with the tree, its accelerations against the CPU tree (the oracle, the same tree and
// lists) and against the float64 direct sum (error percentiles), the same bits twice, the
// potential energy, the run loop (energy over crossing times, the announcement, a bit-exact
// resume), and the refusals. Label gpu: skipped without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gravity/tree/cpu_tree.hpp"
#include "gravity/tree/cuda_tree.hpp"
#include "ic/ic.hpp"
#include "tree_gpu_support.hpp"
#include "model_stats.hpp"
#include "integrate/system.hpp"
#include "support.hpp"
#include "tree_plummer.hpp"

namespace nbody::test {
namespace {

using gravity::tree::CpuTree;
using gravity::tree::TreeParams;

template <class T>
std::unique_ptr<System<T>> tree_system(std::size_t n, const GravityParams& g, const TreeParams& t) {
  SolverRequest r;
  r.choice = {"cuda", "tree"};
  r.precision = sizeof(T) == 4 ? Precision::fp32 : Precision::fp64;
  r.n = n;
  r.gravity = g;
  r.tree = t;
  return std::make_unique<System<T>>(r);
}

// The CPU tree's accelerations of p (the oracle).
Accelerations<double> oracle(const Particles<double>& p, const GravityParams& g, const TreeParams& t) {
  const int n = int(p.size());
  Accelerations<double> a;
  a.resize(p.size());
  CpuTree cpu(g, t);
  cpu.accelerations(TargetView<double>{p.x.data(), p.y.data(), p.z.data(), n, 0},
                    SourceView<double>{p.x.data(), p.y.data(), p.z.data(), p.m.data(), n},
                    Vec3Span<double>{a.ax.data(), a.ay.data(), a.az.data()});
  return a;
}

// The float64 direct sum (Plummer softening), every body.
Accelerations<double> direct_sum(const Particles<double>& p, double eps) {
  const std::size_t n = p.size();
  Accelerations<double> a;
  a.resize(n);
  const double e2 = eps * eps;
  for (std::size_t i = 0; i < n; ++i) {
    double sx = 0, sy = 0, sz = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const double dx = p.x[j] - p.x[i], dy = p.y[j] - p.y[i], dz = p.z[j] - p.z[i];
      const double r2 = dx * dx + dy * dy + dz * dz + e2;
      if (r2 == 0) continue;
      const double inv = 1.0 / std::sqrt(r2);
      const double f = p.m[j] * inv * inv * inv;
      sx += f * dx, sy += f * dy, sz += f * dz;
    }
    a.ax[i] = sx, a.ay[i] = sy, a.az[i] = sz;
  }
  return a;
}

// max_i |a_i - ref_i| / (|ref_i| + RMS |ref|) (as test_tree_gpu.cpp).
double max_own_or_rms(const Accelerations<double>& a, const Accelerations<double>& ref) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += ref.ax[i] * ref.ax[i] + ref.ay[i] * ref.ay[i] + ref.az[i] * ref.az[i];
  const double rms = std::sqrt(s / double(std::max<std::size_t>(a.size(), 1)));
  double e = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double dx = a.ax[i] - ref.ax[i], dy = a.ay[i] - ref.ay[i], dz = a.az[i] - ref.az[i];
    const double own = std::sqrt(ref.ax[i] * ref.ax[i] + ref.ay[i] * ref.ay[i] + ref.az[i] * ref.az[i]);
    e = std::max(e, std::sqrt(dx * dx + dy * dy + dz * dz) / std::max(own + rms, 1e-300));
  }
  return e;
}

// Relative errors |a - ref| / |ref|, sorted.
std::vector<double> relative_errors(const Accelerations<double>& a, const Accelerations<double>& ref) {
  std::vector<double> e(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double dx = a.ax[i] - ref.ax[i], dy = a.ay[i] - ref.ay[i], dz = a.az[i] - ref.az[i];
    const double r = std::sqrt(ref.ax[i] * ref.ax[i] + ref.ay[i] * ref.ay[i] + ref.az[i] * ref.az[i]);
    e[i] = std::sqrt(dx * dx + dy * dy + dz * dz) / r;
  }
  std::sort(e.begin(), e.end());
  return e;
}
double percentile(const std::vector<double>& sorted, double q) {
  return sorted[std::min(sorted.size() - 1, std::size_t(q * double(sorted.size())))];
}

template <class T>
void check_against_oracles(const char* label) {
  const Particles<double> p = tree_plummer_model(8192, 11);
  const GravityParams g{1.0, 0.01};
  TreeParams t;  // theta 0.5, leaf 16, group 32
  auto sys = tree_system<T>(p.size(), g, t);
  EXPECT_EQ(sys->solver().name(), "tree");
  EXPECT_TRUE(sys->solver().location().on_device());
  const Accelerations<double> a = accelerations_from(*sys, p);
  // The oracle on the state's positions (float32-rounded for fp32): the same keys, cells and
  // lists; what differs is the order of each target's terms (and float32 terms for fp32).
  const Particles<double> seen = rounded_to(sizeof(T) == 4 ? Precision::fp32 : Precision::fp64, p);
  const double to_oracle = max_own_or_rms(a, oracle(seen, g, t));
  const double bound = sizeof(T) == 4 ? 1e-5 : 1e-12;
  // Against the float64 direct sum: the tree's own error at theta 0.5 (docs/tree.md; the CPU
  // tree's bounds of TreeAccuracy, kBounds: 2e-4 / 5e-4 / 1.3e-3 / 1e-2).
  const auto e = relative_errors(a, direct_sum(p, 0.01));
  NBODY_MEASURED("%s tree solver, Plummer N = 8192, theta 0.5: vs the CPU tree %.2e (own or RMS); vs the float64 "
                 "direct sum p50 %.2e p90 %.2e p99 %.2e max %.2e; %llu terms",
                 label, to_oracle, percentile(e, 0.5), percentile(e, 0.9), percentile(e, 0.99), e.back(),
                 static_cast<unsigned long long>(sys->interactions()));
  EXPECT_LE(to_oracle, bound) << label;
  EXPECT_LE(percentile(e, 0.5), 2e-4) << label;
  EXPECT_LE(percentile(e, 0.9), 5e-4) << label;
  EXPECT_LE(percentile(e, 0.99), 1.3e-3) << label;
  EXPECT_LE(e.back(), 1e-2) << label;
  EXPECT_GT(sys->interactions(), 0u);
  EXPECT_LT(sys->interactions(), std::uint64_t(8192) * 8192 / 2);
  // The same bits twice (a new pass over the same positions).
  sys->compute_accelerations();
  Accelerations<T> again;
  sys->download_accelerations(again);
  for (std::size_t i = 0; i < p.size(); ++i) {
    ASSERT_EQ(T(a.ax[i]), again.ax[i]) << label << " body " << i;
    ASSERT_EQ(T(a.ay[i]), again.ay[i]) << label << " body " << i;
    ASSERT_EQ(T(a.az[i]), again.az[i]) << label << " body " << i;
  }
  // The potential energy against the CPU tree's of the same positions.
  const int n = int(p.size());
  CpuTree cpu(g, t);
  const double w_ref = cpu.potential_energy(SourceView<double>{seen.x.data(), seen.y.data(), seen.z.data(),
                                                               seen.m.data(), n});
  const double w = sys->potential_energy();
  EXPECT_NEAR(w, w_ref, (sizeof(T) == 4 ? 1e-6 : 1e-12) * std::fabs(w_ref)) << label;
  EXPECT_EQ(w, sys->potential_energy()) << label;
}

TEST(TreeSolverGpu, Fp32AgreesWithTheCpuTreeAndTheDirectSum) {
  REQUIRE_TREE_GPU();
  check_against_oracles<float>("fp32");
}

TEST(TreeSolverGpu, Fp64AgreesWithTheCpuTreeAndTheDirectSum) {
  REQUIRE_TREE_GPU();
  check_against_oracles<double>("fp64");
}

// Two systems with the same bodies: the same bits (nothing depends on timing or on what ran
// before), over several steps of the run loop's kick-drift-kick.
TEST(TreeSolverGpu, TheSameBitsFromTwoSystems) {
  REQUIRE_TREE_GPU();
  const Particles<double> p = tree_plummer_model(20000, 3);
  const GravityParams g{1.0, 0.01};
  TreeParams t;
  t.theta = 0.6;
  Particles<float> out[2];
  for (auto& o : out) {
    auto sys = tree_system<float>(p.size(), g, t);
    sys->upload(p.as<float>());
    for (int s = 0; s < 5; ++s) {
      sys->compute_accelerations();
      sys->kick(0.005);
      sys->drift(0.01);
      sys->compute_accelerations();
      sys->kick(0.005);
    }
    sys->download(o);
  }
  EXPECT_EQ(out[0].x, out[1].x);
  EXPECT_EQ(out[0].vz, out[1].vz);
}

// The relative criterion on the device: the second pass uses the first pass's |a| and is at
// least as accurate at the 99th percentile as Barnes-Hut's first pass.
TEST(TreeSolverGpu, RelativeCriterion) {
  REQUIRE_TREE_GPU();
  const Particles<double> p = tree_plummer_model(8192, 13);
  const GravityParams g{1.0, 0.01};
  TreeParams t;
  t.criterion = gravity::tree::Criterion::relative;
  t.alpha = 0.001;
  auto sys = tree_system<double>(p.size(), g, t);
  const auto first = accelerations_from(*sys, p);
  sys->compute_accelerations();
  Accelerations<double> second;
  sys->download_accelerations(second);
  const auto ref = direct_sum(p, 0.01);
  const auto e1 = relative_errors(first, ref), e2 = relative_errors(second, ref);
  NBODY_MEASURED("GPU tree, relative alpha 0.001, N = 8192: p99 %.2e (first pass, theta 0.5) -> %.2e, max %.2e",
                 percentile(e1, 0.99), percentile(e2, 0.99), e2.back());
  EXPECT_LE(percentile(e2, 0.99), 1e-3);
  // The CPU tree with the same history (two passes) agrees.
  const int n = int(p.size());
  CpuTree cpu(g, t);
  Accelerations<double> c;
  c.resize(p.size());
  for (int k = 0; k < 2; ++k) {
    cpu.accelerations(TargetView<double>{p.x.data(), p.y.data(), p.z.data(), n, 0},
                      SourceView<double>{p.x.data(), p.y.data(), p.z.data(), p.m.data(), n},
                      Vec3Span<double>{c.ax.data(), c.ay.data(), c.az.data()});
  }
  EXPECT_LE(max_own_or_rms(second, c), 1e-12);
}

// Plummer with the GPU tree (fp32, theta 0.5) over 10 crossing times: energy to 1e-3 and the
// Lagrangian radii within their sampling bounds (the CPU test's check, on the device).
TEST(TreeSolverGpu, PlummerKeepsEnergyOverTenCrossingTimes) {
  REQUIRE_TREE_GPU();
  check_tree_plummer(4096, 0.05, 0.025, 10.0, 1e-3, "cuda", "fp32");
}

// The long run: 100 crossing times (11,314 steps, ~110 s on an H100) at N = 65536, where the
// half-mass relaxation time (~1300 time units) is far beyond the run's 283: the 10, 50 and 90 %
// radii flat within 5 % (measured on an H100: 3.7 %, 2.8 %, 2.3 %; their sampling bounds at this
// N, 2.8 %, 2.0 %, 3.6 %, are below the inner radii's adjustment to the softened potential),
// the energy to 1e-3 (measured 1.6e-5).
TEST(TreeSolverGpu, PlummerOverAHundredCrossingTimes) {
  REQUIRE_TREE_GPU();
  check_tree_plummer(65536, 0.05, 0.025, 100.0, 1e-3, "cuda", "fp32", 0.05);
}

TEST(TreeSolverGpu, RunAnnouncesTheTreeOnCudaAndRefusesMixed) {
  REQUIRE_TREE_GPU();
  const auto ok = run_nbody("run -n 4096 --steps 5 --gravity tree --device cuda --theta 0.5");
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find("gravity: tree (cuda, fp32, theta 0.5)"), std::string::npos) << ok.out;
  const auto automatic = run_nbody("run -n 1024 --steps 2 --gravity tree --precision fp64");
  ASSERT_EQ(automatic.status, 0) << automatic.err;
  EXPECT_NE(automatic.out.find("gravity: tree (cuda, fp64, theta 0.5)"), std::string::npos) << automatic.out;
  const auto mixed = run_nbody("run -n 64 --steps 1 --gravity tree --device cuda --precision mixed");
  EXPECT_EQ(mixed.status, 2) << mixed.err;
  EXPECT_NE(mixed.err.find("mixed"), std::string::npos) << mixed.err;
  EXPECT_EQ(lines(mixed.err).size(), 1u) << mixed.err;
  const auto hermite = run_nbody("run -n 64 --steps 1 --gravity tree --device cuda --integrator hermite4");
  EXPECT_EQ(hermite.status, 2) << hermite.err;
  EXPECT_NE(hermite.err.find("needs jerks"), std::string::npos) << hermite.err;
}

TEST(TreeSolverGpu, StateLargerThanTheDeviceIsAnInputError) {
  REQUIRE_TREE_GPU();
  const std::string dir = temp_dir("tree_toolarge") + "/out";
  const auto r = run_nbody("run --gravity tree --device cuda --precision fp64 -n 2000000000 --out " + dir);
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  ASSERT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("n:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("GPU memory"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir));
}

// Barnes-Hut, and the relative criterion, whose |a| history the checkpoint carries (the resumed
// run's first pass opens the cells the uninterrupted run's pass opened): with leapfrog, whose
// resumed run computes the accelerations at the checkpoint's positions again (the last pass made
// again, by the history that pass read), and with euler, whose resumed run's first pass is the
// next one (by the last pass's |a|).
TEST(TreeSolverGpu, ResumedRunGivesTheSameBytes) {
  REQUIRE_TREE_GPU();
  namespace fs = std::filesystem;
  for (const std::string integrator : {"leapfrog", "euler"}) {
    for (const std::string criterion : {"", " --tree-criterion relative --tree-alpha 0.05"}) {
      const fs::path base = temp_dir("gpu_tree_restart_" + integrator + (criterion.empty() ? "" : "_relative"));
      const auto resumed = run_straight_and_resumed("run --gravity tree --device cuda -n 5000 --dt 0.002 --diag-every 10 "
                                                    "--snapshot-every 25 --snapshot-format csv --integrator " +
                                                        integrator + criterion,
                                                    base.string(), 50, 100);
      EXPECT_NE(resumed.out.find("gravity: tree (cuda"), std::string::npos) << resumed.out;
      for (const char* f : {"snapshot_003.csv", "snapshot_004.csv", "diagnostics.csv", "checkpoint_0000000100.ckpt"}) {
        EXPECT_TRUE(read_text(base / "straight" / f) == read_text(base / "run" / f))
            << f << " differs: " << integrator << criterion;
      }
    }
  }
}

}  // namespace
}  // namespace nbody::test
