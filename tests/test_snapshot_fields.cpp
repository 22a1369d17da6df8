// --snapshot-fields acc,pot: HDF5 snapshots carry GADGET-4's PartType1/Acceleration (N x 3)
// and PartType1/Potential (N), computed by the run's solver at the snapshot's state. Read back
// with the HDF5 library, they are the solver's values for the positions in the same file (the
// CPU tree's, recomputed here; the direct sum's); formats that cannot carry them, unknown fields
// and potentials without the tree are input errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#if NBODY_HAVE_HDF5
#include <hdf5.h>
#endif

#include "gravity/tree/cpu_tree.hpp"
#include "io/parameters.hpp"
#include "io/particle_file.hpp"
#include "nbody/error.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

namespace fs = std::filesystem;

TEST(SnapshotFields, ParsesTheCommaList) {
  EXPECT_FALSE(parse_snapshot_fields("").any());
  const SnapshotFields a = parse_snapshot_fields("acc");
  EXPECT_TRUE(a.acceleration);
  EXPECT_FALSE(a.potential);
  const SnapshotFields b = parse_snapshot_fields("pot,acc");
  EXPECT_TRUE(b.acceleration && b.potential);
  for (const char* bad : {"vel", "acc,", ",pot", "acc pot", "ACC"}) {
    try {
      (void)parse_snapshot_fields(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_status(), 2);
      EXPECT_NE(std::string(e.what()).find("snapshot_fields"), std::string::npos) << e.what();
    }
  }
}

TEST(SnapshotFields, BadRequestsAreInputErrors) {
  struct Refusal {
    std::string args;
    const char* says;
  };
  const std::string base = "run -n 64 --steps 1 --device cpu --snapshot-every 1 ";
  std::vector<Refusal> cases = {
      {base + "--gravity tree --snapshot-fields vel", "unknown field 'vel'"},
      {base + "--gravity tree --snapshot-fields acc --snapshot-format csv", "needs --snapshot-format hdf5"},
      {base + "--gravity tree --snapshot-fields pot --snapshot-format tipsy", "needs --snapshot-format hdf5"},
  };
  if (hdf5_available()) {
    cases.push_back({base + "--gravity direct --snapshot-fields pot --snapshot-format hdf5", "pot needs --gravity tree"});
  }
  for (const Refusal& r : cases) {
    const std::string dir = temp_dir("fields_refused") + "/out";
    const auto res = run_nbody(r.args + " --out " + dir);
    EXPECT_EQ(res.status, 2) << r.args << "\n" << res.err;
    EXPECT_NE(res.err.find(r.says), std::string::npos) << r.args << "\n" << res.err;
    EXPECT_EQ(lines(res.err).size(), 1u) << r.args << "\n" << res.err;
    EXPECT_FALSE(fs::exists(dir)) << r.args;
  }
}

#if NBODY_HAVE_HDF5

// A dataset of doubles (converted by the library from what is stored) and its dimensions.
std::vector<double> read_dataset(const fs::path& file, const std::string& name, std::vector<hsize_t>* dims) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT_GE(f, 0) << file;
  const hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
  EXPECT_GE(d, 0) << name;
  const hid_t space = H5Dget_space(d);
  const int rank = H5Sget_simple_extent_ndims(space);
  dims->assign(std::size_t(std::max(rank, 0)), 0);
  H5Sget_simple_extent_dims(space, dims->data(), nullptr);
  std::size_t count = 1;
  for (hsize_t v : *dims) count *= std::size_t(v);
  std::vector<double> out(count);
  EXPECT_GE(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), 0) << name;
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  return out;
}

bool has_dataset(const fs::path& file, const std::string& name) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const bool yes = H5Lexists(f, name.c_str(), H5P_DEFAULT) > 0;
  H5Fclose(f);
  return yes;
}

fs::path last_snapshot(const fs::path& dir) {
  fs::path last;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("snapshot_", 0) == 0 && e.path().extension() == ".hdf5" && e.path() > last) last = e.path();
  }
  return last;
}

struct Fields {
  std::vector<double> x, y, z, m, a, phi;  // positions, masses, accelerations (N x 3), potentials
};

Fields read_fields(const fs::path& file, std::size_t n, bool potential) {
  Fields f;
  std::vector<hsize_t> dims;
  const auto c = read_dataset(file, "/PartType1/Coordinates", &dims);
  f.m = read_dataset(file, "/PartType1/Masses", &dims);
  f.a = read_dataset(file, "/PartType1/Acceleration", &dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{n, 3}));
  if (potential) {
    f.phi = read_dataset(file, "/PartType1/Potential", &dims);
    EXPECT_EQ(dims, (std::vector<hsize_t>{n}));
  }
  for (std::size_t i = 0; i < n; ++i) f.x.push_back(c[3 * i]), f.y.push_back(c[3 * i + 1]), f.z.push_back(c[3 * i + 2]);
  return f;
}

// The CPU tree's run (fp64): the file's accelerations and potentials are the tree's for the
// file's positions (recomputed here with the same parameters: the same bits, the tree being
// deterministic for any thread count), and within the tree's error of the float64 direct sum.
TEST(SnapshotFields, TreeRunWritesTheTreesAccelerationsAndPotentials) {
  const fs::path dir = fs::path(temp_dir("fields_tree")) / "out";
  const int n = 1024;
  const auto r = run_nbody("run -n " + std::to_string(n) + " --device cpu --gravity tree --theta 0.5 --precision fp64 "
                           "--softening 0.01 --steps 4 --snapshot-every 2 --snapshot-format hdf5 "
                           "--snapshot-fields acc,pot --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const fs::path file = last_snapshot(dir);
  ASSERT_FALSE(file.empty());
  const Fields f = read_fields(file, std::size_t(n), true);
  const GravityParams g{1.0, 0.01};
  gravity::tree::TreeParams t;
  t.theta = 0.5;
  gravity::tree::CpuTree tree(g, t);
  std::vector<double> ax(n), ay(n), az(n), phi(n);
  const SourceView<double> s{f.x.data(), f.y.data(), f.z.data(), f.m.data(), n};
  const TargetView<double> targets{f.x.data(), f.y.data(), f.z.data(), n, 0};
  tree.accelerations(targets, s, Vec3Span<double>{ax.data(), ay.data(), az.data()});
  tree.potentials(targets, s, phi.data());
  double worst_a = 0, worst_phi = 0, rms = 0;
  for (int i = 0; i < n; ++i) rms += ax[i] * ax[i] + ay[i] * ay[i] + az[i] * az[i];
  rms = std::sqrt(rms / n);
  for (int i = 0; i < n; ++i) {
    const double dx = f.a[3 * i] - ax[i], dy = f.a[3 * i + 1] - ay[i], dz = f.a[3 * i + 2] - az[i];
    worst_a = std::max(worst_a, std::sqrt(dx * dx + dy * dy + dz * dz) / rms);
    worst_phi = std::max(worst_phi, std::fabs(f.phi[i] - phi[i]) / std::fabs(phi[i]));
  }
  EXPECT_LE(worst_a, 1e-14);
  EXPECT_LE(worst_phi, 1e-14);
  // Physics: the potentials against the float64 direct sum (the tree's error at theta 0.5:
  // 1e-5 on the potential energy, docs/tree.md), and the acceleration of a body points inward
  // on average (W < 0 and the virial sum sum m x.a = W for a self-gravitating system).
  double w_tree = 0, w_direct = 0, virial = 0;
  for (int i = 0; i < n; ++i) {
    double p = 0;
    for (int j = 0; j < n; ++j) {
      if (j == i) continue;
      const double dx = f.x[j] - f.x[i], dy = f.y[j] - f.y[i], dz = f.z[j] - f.z[i];
      p -= f.m[j] / std::sqrt(dx * dx + dy * dy + dz * dz + 1e-4);
    }
    w_direct += 0.5 * f.m[i] * p;
    w_tree += 0.5 * f.m[i] * f.phi[i];
    virial += f.m[i] * (f.x[i] * f.a[3 * i] + f.y[i] * f.a[3 * i + 1] + f.z[i] * f.a[3 * i + 2]);
  }
  EXPECT_NEAR(w_tree, w_direct, 1e-4 * std::fabs(w_direct));
  EXPECT_LT(virial, 0.0);
  EXPECT_NEAR(virial, w_direct, 0.05 * std::fabs(w_direct));  // equal without softening; eps = 0.01 shifts it
}

// Accelerations with any solver (the direct sum, fp32): the float32 file values are the
// float64 direct sum's to float32 rounding; no Potential dataset unless asked; the
// configuration's key (output.snapshot_fields) works as the flag does.
TEST(SnapshotFields, DirectRunWritesAccelerationsFromTheConfigurationKey) {
  const fs::path base = temp_dir("fields_direct");
  const fs::path cfg = base / "run.toml";
  {
    std::ofstream out(cfg);
    out << "n = 300\nsteps = 3\nsoftening = 0.01\nprecision = \"fp32\"\n"
        << "[output]\nsnapshot_every = 3\nsnapshot_format = \"hdf5\"\nsnapshot_fields = \"acc\"\n";
  }
  const fs::path dir = base / "out";
  const auto r = run_nbody("run --config " + cfg.string() + " --backend cpu --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const fs::path file = last_snapshot(dir);
  ASSERT_FALSE(file.empty());
  EXPECT_TRUE(has_dataset(file, "/PartType1/Acceleration"));
  EXPECT_FALSE(has_dataset(file, "/PartType1/Potential"));
  const Fields f = read_fields(file, 300, false);
  double worst = 0;
  for (int i = 0; i < 300; ++i) {
    double a[3] = {0, 0, 0};
    for (int j = 0; j < 300; ++j) {
      const double d[3] = {f.x[j] - f.x[i], f.y[j] - f.y[i], f.z[j] - f.z[i]};
      const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + 1e-4;
      const double k = f.m[j] / (r2 * std::sqrt(r2));
      for (int c = 0; c < 3; ++c) a[c] += k * d[c];
    }
    const double norm = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    for (int c = 0; c < 3; ++c) worst = std::max(worst, std::fabs(f.a[3 * i + c] - a[c]) / norm);
  }
  EXPECT_LE(worst, 1e-4);  // float32 terms summed over 300 bodies, relative to |a|
  // Without the option: no field datasets.
  const fs::path plain = base / "plain";
  const auto r2 = run_nbody("run -n 64 --steps 1 --backend cpu --snapshot-every 1 --snapshot-format hdf5 --out " +
                            plain.string());
  ASSERT_EQ(r2.status, 0) << r2.err;
  EXPECT_FALSE(has_dataset(last_snapshot(plain), "/PartType1/Acceleration"));
}

#endif  // NBODY_HAVE_HDF5

}  // namespace
}  // namespace nbody::test
