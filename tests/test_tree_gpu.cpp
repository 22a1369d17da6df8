// The Barnes-Hut tree on the GPU (src/gravity/tree/cuda/) against the CPU oracle (cpu_tree.hpp):
// the same keys, sort, cells (topology and boxes exactly; multipoles to float64 rounding) and
// groups; accelerations and potentials that differ from the oracle's only by the order of each
// target's terms (float64: 1e-12 of the RMS acceleration; float32, against the oracle on the
// float32-rounded positions: 1e-5 of the body's own or the RMS acceleration);
// the same bits twice; degenerate inputs. Label gpu: skipped without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gravity/tree/cpu_tree.hpp"
#include "gravity/tree/cuda_tree.hpp"
#include "ic/ic.hpp"
#include "tree_gpu_support.hpp"

namespace nbody::test {
namespace {

using gravity::tree::CpuTree;
using gravity::tree::CudaTree;
using gravity::tree::TreeParams;

struct Acc {
  std::vector<double> x, y, z;
};

Acc cpu_tree(const Particles<double>& p, CpuTree& tree) {
  const int n = int(p.size());
  Acc a{std::vector<double>(n), std::vector<double>(n), std::vector<double>(n)};
  tree.accelerations(TargetView<double>{p.x.data(), p.y.data(), p.z.data(), n, 0},
                     SourceView<double>{p.x.data(), p.y.data(), p.z.data(), p.m.data(), n},
                     Vec3Span<double>{a.x.data(), a.y.data(), a.z.data()});
  return a;
}

// max_i |a_i - ref_i| over the RMS of |ref|: the summation order changes the last bits of every
// term's sum, which near the centre of a model (|a| -> 0, large terms cancelling) is a large
// relative change of a small number; against the typical acceleration it is rounding.
double max_scaled(const Acc& a, const Acc& ref) {
  double e = 0, s = 0;
  for (std::size_t i = 0; i < a.x.size(); ++i) {
    const double dx = a.x[i] - ref.x[i], dy = a.y[i] - ref.y[i], dz = a.z[i] - ref.z[i];
    e = std::max(e, std::sqrt(dx * dx + dy * dy + dz * dz));
    s += ref.x[i] * ref.x[i] + ref.y[i] * ref.y[i] + ref.z[i] * ref.z[i];
  }
  return a.x.empty() ? 0.0 : e / std::max(std::sqrt(s / double(a.x.size())), 1e-300);
}

// max_i |a_i - ref_i| / (|ref_i| + RMS |ref|).
double max_own_or_rms(const Acc& a, const Acc& ref) {
  double s = 0;
  for (std::size_t i = 0; i < a.x.size(); ++i) s += ref.x[i] * ref.x[i] + ref.y[i] * ref.y[i] + ref.z[i] * ref.z[i];
  const double rms = std::sqrt(s / double(std::max<std::size_t>(a.x.size(), 1)));
  double e = 0;
  for (std::size_t i = 0; i < a.x.size(); ++i) {
    const double dx = a.x[i] - ref.x[i], dy = a.y[i] - ref.y[i], dz = a.z[i] - ref.z[i];
    const double own = std::sqrt(ref.x[i] * ref.x[i] + ref.y[i] * ref.y[i] + ref.z[i] * ref.z[i]);
    e = std::max(e, std::sqrt(dx * dx + dy * dy + dz * dz) / std::max(own + rms, 1e-300));
  }
  return e;
}

GravityParams plummer_softening(double eps) {
  GravityParams g;
  g.G = 1.0;
  g.softening = eps;
  g.law = SofteningLaw::plummer;
  return g;
}

TEST(TreeGpu, TheSameTreeAsTheCpuOracle) {
  REQUIRE_TREE_GPU();
  const Particles<double> p = tree_plummer_model(20000, 11);
  const GravityParams g = plummer_softening(0.01);
  TreeParams t;
  t.theta = 0.6;
  CpuTree cpu(g, t);
  (void)cpu_tree(p, cpu);
  CudaTree gpu(g, t);
  Acc a;
  gpu.accelerations(p.x, p.y, p.z, p.m, a.x, a.y, a.z);
  const auto& oc = cpu.octree();
  const auto og = gpu.octree();
  ASSERT_EQ(og.size(), oc.size());
  EXPECT_EQ(og.body_begin, oc.body_begin);
  EXPECT_EQ(og.body_count, oc.body_count);
  EXPECT_EQ(og.child_count, oc.child_count);
  EXPECT_EQ(og.level, oc.level);
  EXPECT_EQ(og.cx, oc.cx);
  EXPECT_EQ(og.half, oc.half);
  double dm = 0, dq = 0;
  for (int c = 0; c < oc.size(); ++c) {
    dm = std::max(dm, std::fabs(og.m[c] - oc.m[c]) / std::max(oc.m[c], 1e-300));
    const double scale = std::max(std::fabs(oc.qxx[c]) + std::fabs(oc.qyy[c]) + std::fabs(oc.qzz[c]), 1e-300);
    dq = std::max(dq, std::fabs(og.qxy[c] - oc.qxy[c]) / scale);
  }
  EXPECT_LE(dm, 1e-13);
  EXPECT_LE(dq, 1e-10);
  EXPECT_GT(gpu.stats().groups, 0);
  EXPECT_GT(gpu.stats().m2p + gpu.stats().p2p, 0u);
}

// The groups the walk uses are the oracle's split_groups of the sorted keys, both where they come
// from the tree itself (leaf size at most kGroupCellFactor x group size) and where the groups'
// tree is built apart (larger leaves).
TEST(TreeGpu, TheSameGroupsAsTheCpuOracle) {
  REQUIRE_TREE_GPU();
  using gravity::tree::kGroupCellFactor;
  const Particles<double> p = tree_plummer_model(20000, 13);
  const int n = int(p.size());
  const auto box = gravity::tree::bounding_cube(p.x.data(), p.y.data(), p.z.data(), n);
  const GravityParams g = plummer_softening(0.01);
  struct Shape {
    int leaf, group;
  };
  for (const Shape s : {Shape{16, 64}, Shape{1, 4}, Shape{16, 1}, Shape{600, 64}, Shape{512, 64}}) {
    TreeParams t;
    t.theta = 0.6;
    t.leaf_size = s.leaf;
    t.group_size = s.group;
    CudaTree gpu(g, t);
    Acc a;
    gpu.accelerations(p.x, p.y, p.z, p.m, a.x, a.y, a.z);
    const std::vector<std::int32_t> index = gpu.index();
    std::vector<std::uint64_t> keys(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) keys[std::size_t(k)] = box.key(p.x[index[k]], p.y[index[k]], p.z[index[k]]);
    ASSERT_TRUE(std::is_sorted(keys.begin(), keys.end()));
    std::vector<std::pair<std::int32_t, std::int32_t>> ref;
    gravity::tree::split_groups(keys, s.group, ref);
    const auto groups = gpu.groups();
    EXPECT_EQ(groups, ref) << "leaf " << s.leaf << " group " << s.group << " (tree's own groups: "
                           << (s.leaf <= kGroupCellFactor * s.group) << ")";
    EXPECT_EQ(gpu.stats().groups, int(ref.size()));
  }
}

TEST(TreeGpu, AccelerationsAgreeWithTheCpuOracle) {
  REQUIRE_TREE_GPU();
  const Particles<double> p = tree_plummer_model(30000, 5);
  for (double eps : {0.0, 0.02}) {
    const GravityParams g = plummer_softening(eps);
    for (double theta : {0.0, 0.4, 0.8}) {
      TreeParams t;
      t.theta = theta;
      CpuTree cpu(g, t);
      const Acc ref = cpu_tree(p, cpu);
      CudaTree gpu(g, t);
      Acc a;
      gpu.accelerations(p.x, p.y, p.z, p.m, a.x, a.y, a.z);
      EXPECT_LE(max_scaled(a, ref), 1e-12) << "fp64 theta " << theta << " eps " << eps;
      // float32: the oracle on the float32-rounded positions and masses (the same keys, cells
      // and lists as the GPU's), so that what differs is the float32 arithmetic of each term.
      Particles<double> pr = p;
      std::vector<float> fx(p.size()), fy(p.size()), fz(p.size()), fm(p.size()), ax, ay, az;
      for (std::size_t i = 0; i < p.size(); ++i) {
        fx[i] = float(p.x[i]), fy[i] = float(p.y[i]), fz[i] = float(p.z[i]), fm[i] = float(p.m[i]);
        pr.x[i] = fx[i], pr.y[i] = fy[i], pr.z[i] = fz[i], pr.m[i] = fm[i];
      }
      CpuTree cpu_rounded(g, t);
      const Acc ref32 = cpu_tree(pr, cpu_rounded);
      CudaTree gpu32(g, t);
      gpu32.accelerations(fx, fy, fz, fm, ax, ay, az);
      Acc a32{std::vector<double>(ax.begin(), ax.end()), std::vector<double>(ay.begin(), ay.end()),
              std::vector<double>(az.begin(), az.end())};
      // Each term rounds to 6e-8 of itself: against the body's own |a| (a close pair without
      // softening dominates it) or the typical |a| (cancelling terms near the centre), 1e-5.
      EXPECT_LE(max_own_or_rms(a32, ref32), 1e-5) << "fp32 theta " << theta << " eps " << eps;
    }
  }
}

TEST(TreeGpu, PotentialsAgreeAndTheBitsRepeat) {
  REQUIRE_TREE_GPU();
  const Particles<double> p = tree_plummer_model(10000, 8);
  const GravityParams g = plummer_softening(0.01);
  TreeParams t;
  t.theta = 0.5;
  CpuTree cpu(g, t);
  const int n = int(p.size());
  std::vector<double> ref(n), phi, again;
  cpu.potentials(TargetView<double>{p.x.data(), p.y.data(), p.z.data(), n, 0},
                 SourceView<double>{p.x.data(), p.y.data(), p.z.data(), p.m.data(), n}, ref.data());
  CudaTree gpu(g, t);
  gpu.potentials(p.x, p.y, p.z, p.m, phi);
  gpu.potentials(p.x, p.y, p.z, p.m, again);
  double e = 0;
  for (int i = 0; i < n; ++i) e = std::max(e, std::fabs(phi[i] - ref[i]) / std::fabs(ref[i]));
  EXPECT_LE(e, 1e-12);
  EXPECT_EQ(std::memcmp(phi.data(), again.data(), phi.size() * sizeof(double)), 0);
  Acc a, b;
  gpu.accelerations(p.x, p.y, p.z, p.m, a.x, a.y, a.z);
  gpu.accelerations(p.x, p.y, p.z, p.m, b.x, b.y, b.z);
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.z, b.z);
}

TEST(TreeGpu, DegenerateInputs) {
  REQUIRE_TREE_GPU();
  const GravityParams g = plummer_softening(0.05);
  TreeParams t;
  CudaTree gpu(g, t);
  std::vector<double> ax, ay, az;
  // N = 0, 1, 2; every body at one point; a cold sheet.
  gpu.accelerations(std::vector<double>{}, {}, {}, {}, ax, ay, az);
  EXPECT_TRUE(ax.empty());
  gpu.accelerations(std::vector<double>{1.0}, {2.0}, {3.0}, {1.0}, ax, ay, az);
  EXPECT_EQ(ax[0], 0.0);
  gpu.accelerations(std::vector<double>{0.0, 1.0}, {0.0, 0.0}, {0.0, 0.0}, {1.0, 1.0}, ax, ay, az);
  EXPECT_GT(ax[0], 0.0);
  EXPECT_DOUBLE_EQ(ax[0], -ax[1]);
  std::vector<double> same(1000, 0.25), m(1000, 1e-3);
  gpu.accelerations(same, same, same, m, ax, ay, az);
  for (double v : ax) EXPECT_EQ(v, 0.0);
  const Particles<double> p = tree_plummer_model(5000, 3);
  std::vector<double> zero(p.size(), 0.0);
  CpuTree cpu(g, t);
  Particles<double> sheet = p;
  sheet.z = zero;
  const Acc ref = cpu_tree(sheet, cpu);
  Acc a;
  gpu.accelerations(sheet.x, sheet.y, sheet.z, sheet.m, a.x, a.y, a.z);
  EXPECT_LE(max_scaled(a, ref), 1e-12);
  std::vector<double> bad = p.x;
  bad[17] = std::nan("");
  EXPECT_THROW(gpu.accelerations(bad, p.y, p.z, p.m, ax, ay, az), Error);
}

}  // namespace
}  // namespace nbody::test
