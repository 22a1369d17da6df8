// The viewer's pieces (src/view/): the subsampling and its mass, the binary point cloud, the
// catalog of a run directory (snapshots of every format, PIC images), /api/run, and `nbody view`'s
// refusals of bad input.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "io/particle_file.hpp"
#include "nbody/error.hpp"
#include "support.hpp"
#include "view/point_cloud.hpp"
#include "view/run_catalog.hpp"
#include "view/snapshot_source.hpp"

namespace nbody::test {
namespace {
namespace fs = std::filesystem;
using view::PointCloud;

Particles<double> random_bodies(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> pos(-1, 1), mass(0.5, 3.0);
  Particles<double> p;
  p.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    p.x[i] = pos(rng);
    p.y[i] = pos(rng);
    p.z[i] = pos(rng);
    p.m[i] = mass(rng);
    p.id[i] = i + 1;
  }
  return p;
}

TEST(ViewSubsample, KeepsEveryBodyUpToTheLimit) {
  const auto keep = view::subsample_indices(5, 5);
  EXPECT_EQ(keep, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(view::subsample_indices(3, 1000).size(), 3u);
}

TEST(ViewSubsample, EvenlySpreadIncreasingAndTheSameEachTime) {
  const std::size_t n = 1'000'003, m = 1000;
  const auto keep = view::subsample_indices(n, m);
  ASSERT_EQ(keep.size(), m);
  for (std::size_t k = 1; k < m; ++k) ASSERT_LT(keep[k - 1], keep[k]);
  EXPECT_EQ(keep.front(), n / (2 * m));           // the middle of the first of m equal ranges
  EXPECT_EQ(keep.back(), ((2 * m - 1) * n) / (2 * m));
  EXPECT_LT(keep.back(), n);
  for (std::size_t k = 0; k < m; ++k) EXPECT_NEAR(double(keep[k]), (k + 0.5) * double(n) / m, 1.0);
  EXPECT_EQ(keep, view::subsample_indices(n, m));
  // Indices of a huge count do not overflow.
  const auto big = view::subsample_indices(std::size_t{1} << 62, 3);
  EXPECT_EQ(big[2], 3843071682022823253u);  // floor(5 * 2^62 / 6)
}

TEST(ViewPointCloud, SubsampleKeepsTheTotalMassAndThePositions) {
  const Particles<double> p = random_bodies(10'000, 7);
  double total = 0;
  for (const double m : p.m) total += m;
  const PointCloud c = view::make_point_cloud(p, 2.5, 999);
  ASSERT_EQ(c.size(), 999u);
  EXPECT_EQ(c.total, 10'000u);
  EXPECT_EQ(c.time, 2.5);
  double kept = 0;
  for (const float m : c.mass) kept += m;
  EXPECT_NEAR(kept, total, 1e-6 * total);  // float32 masses: rounding only
  const auto keep = view::subsample_indices(p.size(), 999);
  for (std::size_t k = 0; k < keep.size(); k += 97) {
    EXPECT_EQ(c.xyz[3 * k], static_cast<float>(p.x[keep[k]]));
    EXPECT_EQ(c.xyz[3 * k + 2], static_cast<float>(p.z[keep[k]]));
  }
  // Not subsampled: the masses as they are.
  const PointCloud all = view::make_point_cloud(p, 0, 10'000);
  EXPECT_EQ(all.mass[17], static_cast<float>(p.m[17]));
  EXPECT_TRUE(all.component.empty());
}

TEST(ViewPointCloud, KeptBodiesKeepTheirComponentsAndTheRunNamesThem) {
  Particles<double> p = random_bodies(1000, 5);
  p.component.resize(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) p.component[i] = std::uint8_t(i % 3);
  p.component_names = {"disk", "bulge", "halo"};
  const PointCloud c = view::make_point_cloud(p, 0, 100);
  ASSERT_EQ(c.component.size(), 100u);
  const auto keep = view::subsample_indices(p.size(), 100);
  for (std::size_t k = 0; k < keep.size(); ++k) EXPECT_EQ(c.component[k], keep[k] % 3);
  // One named component colours nothing: no tags sent.
  p.component_names = {"stars"};
  EXPECT_TRUE(view::make_point_cloud(p, 0, 100).component.empty());
  const std::string json = view::run_json(view::RunCatalog{}, {}, 100, {"disk", "bulge", "halo"});
  std::string compact;
  for (const char ch : json)
    if (ch != ' ' && ch != '\n') compact += ch;
  EXPECT_NE(compact.find(R"("components":["disk","bulge","halo"])"), std::string::npos) << json;
}

TEST(ViewPointCloud, EncodingHasTheDocumentedLayout) {
  const Particles<double> p = random_bodies(10, 3);
  PointCloud c = view::make_point_cloud(p, 0.75, 4);
  const std::string bytes = view::encode(c);
  ASSERT_EQ(bytes.size(), view::kPointCloudHeaderBytes + 16 * 4);
  EXPECT_EQ(bytes.substr(0, 4), "NBV1");
  std::uint32_t flags = 1;
  std::uint64_t total = 0, n = 0;
  double time = 0;
  std::memcpy(&flags, bytes.data() + 4, 4);
  std::memcpy(&total, bytes.data() + 8, 8);
  std::memcpy(&n, bytes.data() + 16, 8);
  std::memcpy(&time, bytes.data() + 24, 8);
  EXPECT_EQ(flags, 0u);
  EXPECT_EQ(total, 10u);
  EXPECT_EQ(n, 4u);
  EXPECT_EQ(time, 0.75);
  float y1 = 0, m3 = 0;
  std::memcpy(&y1, bytes.data() + 32 + 4 * 4, 4);
  std::memcpy(&m3, bytes.data() + 32 + 12 * 4 + 3 * 4, 4);
  EXPECT_EQ(y1, c.xyz[4]);
  EXPECT_EQ(m3, c.mass[3]);
  // With components: one byte each after the masses, and flag bit 0.
  c.component = {0, 1, 2, 1};
  const std::string tagged = view::encode(c);
  ASSERT_EQ(tagged.size(), view::kPointCloudHeaderBytes + 17 * 4);
  EXPECT_EQ(tagged[4], 1);
  EXPECT_EQ(tagged[32 + 16 * 4 + 2], 2);
}

void write_snapshot(const fs::path& file, ParticleFormat format, std::size_t n, double time) {
  SnapshotMeta meta;
  meta.time = time;
  write_particle_file(file, format, random_bodies(n, static_cast<unsigned>(n)), meta);
}

TEST(ViewCatalog, SnapshotsOfAnyFormatInNumberOrderWithTheirTimes) {
  const fs::path dir = temp_dir("view_catalog");
  write_snapshot(dir / "snapshot_010.csv", ParticleFormat::csv, 30, 10.0);
  write_snapshot(dir / "snapshot_002.tipsy", ParticleFormat::tipsy, 20, 2.0);
  write_snapshot(dir / "snapshot_000.csv", ParticleFormat::csv, 10, 0.5);
  if (hdf5_available()) write_snapshot(dir / "snapshot_003.hdf5", ParticleFormat::hdf5, 40, 3.0);
  std::ofstream(dir / "snapshot_004.txt") << "not a snapshot\n";
  std::ofstream(dir / "snapshot_x.csv") << "not numbered\n";
  const view::RunCatalog c = view::scan_run(dir);
  EXPECT_EQ(c.kind, view::RunCatalog::Kind::gravity);
  std::vector<int> numbers;
  for (const auto& s : c.snapshots) numbers.push_back(s.number);
  const std::vector<int> expected = hdf5_available() ? std::vector<int>{0, 2, 3, 10} : std::vector<int>{0, 2, 10};
  EXPECT_EQ(numbers, expected);
  EXPECT_EQ(c.snapshots.front().time, 0.5);
  EXPECT_EQ(c.snapshots.back().time, 10.0);
  EXPECT_EQ(c.snapshots.back().file.filename(), "snapshot_010.csv");

  // Counts are known once a snapshot is read.
  view::SnapshotSource source(c, 25);
  EXPECT_NE(source.run_json().find("\"count\": null"), std::string::npos);
  const std::string bytes = source.encoded(c.snapshots.size() - 1);
  EXPECT_EQ(bytes.size(), view::kPointCloudHeaderBytes + 16 * 25);  // 30 bodies, 25 sent
  const std::string json = source.run_json();
  EXPECT_NE(json.find("\"file\": \"snapshot_010.csv\",\n      \"time\": 10,\n      \"count\": 30"), std::string::npos)
      << json;
  EXPECT_NE(json.find("\"max_points\": 25"), std::string::npos);
  EXPECT_NE(json.find("\"kind\": \"gravity\""), std::string::npos);
}

TEST(ViewCatalog, PicImagesGroupedByQuantityInStepOrder) {
  const fs::path dir = temp_dir("view_pic");
  fs::create_directories(dir / "images");
  for (const char* name : {"Ey_00000100.png", "Ey_00000000.png", "density_electron_00000000.png",
                           "E_abs_00000050.png", "notes.txt", "Ey_last.png"}) {
    std::ofstream(dir / "images" / name) << "png";
  }
  const view::RunCatalog c = view::scan_run(dir);
  EXPECT_EQ(c.kind, view::RunCatalog::Kind::pic);
  ASSERT_EQ(c.images.size(), 3u);
  EXPECT_EQ(c.images[0].quantity, "E_abs");
  EXPECT_EQ(c.images[1].quantity, "Ey");
  EXPECT_EQ(c.images[2].quantity, "density_electron");
  ASSERT_EQ(c.images[1].frames.size(), 2u);
  EXPECT_EQ(c.images[1].frames[0].step, 0);
  EXPECT_EQ(c.images[1].frames[1].step, 100);
  EXPECT_EQ(c.images[1].frames[1].file, "Ey_00000100.png");
  const std::string json = view::run_json(c, {}, 10);
  EXPECT_NE(json.find("\"kind\": \"pic\""), std::string::npos);
  EXPECT_NE(json.find("\"quantity\": \"density_electron\""), std::string::npos);
}

TEST(ViewCatalog, RefusesWhatIsNotARunWithOneLineNamingIt) {
  const fs::path dir = temp_dir("view_refuse");
  auto message_of = [](const fs::path& p) {
    try {
      (void)view::scan_run(p);
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_status(), 2);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message_of(dir / "missing").find("no run directory '" + (dir / "missing").string() + "'"),
            std::string::npos);
  EXPECT_NE(message_of(dir).find("holds no snapshots"), std::string::npos);
  std::ofstream(dir / "file") << "x";
  EXPECT_NE(message_of(dir / "file").find("is not a run directory"), std::string::npos);
  // A snapshot whose header cannot be read is named.
  std::ofstream(dir / "snapshot_000.tipsy") << "short";
  EXPECT_NE(message_of(dir).find("snapshot_000.tipsy"), std::string::npos);
}

TEST(ViewCatalog, ASnapshotThatCannotBeReadIsNamedWhenAskedFor) {
  const fs::path dir = temp_dir("view_bad_snapshot");
  std::ofstream(dir / "snapshot_000.csv") << "id,m,x,y,z,vx,vy,vz\n1,-1,0,0,0,0,0,0\n";
  view::SnapshotSource source(view::scan_run(dir), 10);
  try {
    (void)source.encoded(0);
    ADD_FAILURE() << "a mass of -1 was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("snapshot_000.csv"), std::string::npos) << e.what();
  }
}

TEST(ViewCommand, BadInputIsOneLineAndStatus2) {
  const fs::path dir = temp_dir("view_cli");
  auto one_line = [](const ProcessResult& r) { return lines(r.err).size() == 1; };
  const ProcessResult missing = run_nbody("view '" + (dir / "none").string() + "' --no-open");
  EXPECT_EQ(missing.status, 2);
  EXPECT_TRUE(one_line(missing)) << missing.err;
  EXPECT_NE(missing.err.find((dir / "none").string()), std::string::npos) << missing.err;
  EXPECT_EQ(missing.out, "");

  const ProcessResult port = run_nbody("view '" + dir.string() + "' --no-open --port 70000");
  EXPECT_EQ(port.status, 2);
  EXPECT_TRUE(one_line(port)) << port.err;
  EXPECT_NE(port.err.find("--port"), std::string::npos) << port.err;

  const ProcessResult points = run_nbody("view '" + dir.string() + "' --no-open --max-points 0");
  EXPECT_EQ(points.status, 2);
  EXPECT_NE(points.err.find("--max-points"), std::string::npos) << points.err;
}

TEST(ViewCommand, APortInUseIsRefusedNamingIt) {
  if (!NBODY_HAVE_VIEW) GTEST_SKIP() << "skipped: this build has no viewer (cpp-httplib)";
  const fs::path dir = temp_dir("view_port");
  write_snapshot(dir / "snapshot_000.csv", ParticleFormat::csv, 5, 0);
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const int port = ntohs(addr.sin_port);
  const ProcessResult r = run_nbody("view '" + dir.string() + "' --no-open --port " + std::to_string(port));
  ::close(fd);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("--port " + std::to_string(port)), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace nbody::test
