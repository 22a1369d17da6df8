// Particle files and checkpoints: exact round trips in every format and precision, Tipsy in
// both byte orders, sniffing, byte-identical HDF5 for the same state, and checkpoints that
// detect damage.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/checkpoint.hpp"
#include "io/particle_file.hpp"
#include "io/tipsy.hpp"
#include "nbody/error.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

namespace fs = std::filesystem;

template <class V>
bool same_bits(const std::vector<V>& a, const std::vector<V>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(V)) == 0;
}

template <class T>
void expect_same(const Particles<T>& a, const Particles<T>& b) {
  EXPECT_TRUE(same_bits(a.x, b.x));
  EXPECT_TRUE(same_bits(a.y, b.y));
  EXPECT_TRUE(same_bits(a.z, b.z));
  EXPECT_TRUE(same_bits(a.vx, b.vx));
  EXPECT_TRUE(same_bits(a.vy, b.vy));
  EXPECT_TRUE(same_bits(a.vz, b.vz));
  EXPECT_TRUE(same_bits(a.m, b.m));
  EXPECT_EQ(a.id, b.id);
}

// Values that stress a text format: tiny, huge, negative, not short decimals.
Particles<double> awkward_particles(std::size_t n) {
  auto p = random_particles(n, 42);
  p.x[0] = 1e-300;
  p.y[0] = -1.2345678901234567e+200;
  p.z[1] = 0.1 + 0.2;
  p.m[2] = 5e-324;  // the smallest denormal: still > 0
  p.vx[3] = -0.0;
  for (std::size_t i = 0; i < n; ++i) p.id[i] = 1000 + 7 * i;  // not 0..n-1
  return p;
}

struct FormatCase {
  ParticleFormat format;
  Precision precision;
};

class RoundTrip : public testing::TestWithParam<FormatCase> {};

TEST_P(RoundTrip, WriteThenReadGivesTheSameBits) {
  const auto [format, precision] = GetParam();
  if (format == ParticleFormat::hdf5 && !hdf5_available()) GTEST_SKIP() << "skipped: built without HDF5";
  Particles<double> p = awkward_particles(97);
  if (precision == Precision::fp32) {
    p = random_particles(97, 42).as<float>().as<double>();  // values a float file can hold
    for (std::size_t i = 0; i < p.size(); ++i) p.id[i] = 1000 + 7 * i;
  }
  if (format == ParticleFormat::tipsy) {
    // Tipsy stores float32 and no ids: the round trip is exact for float values and ids 0..n-1.
    p = random_particles(97, 42).as<float>().as<double>();
  }
  const fs::path file = fs::path(temp_dir("roundtrip")) / ("p" + std::string(file_extension(format)));
  const SnapshotMeta meta{precision, 1.25, nullptr};
  write_particle_file(file, format, p, meta);
  const auto back = read_particle_file(file);
  EXPECT_EQ(back.info.format, format);
  if (format != ParticleFormat::csv) EXPECT_EQ(back.info.time, 1.25);
  if (precision == Precision::fp32 || format == ParticleFormat::tipsy) {
    if (format != ParticleFormat::csv) EXPECT_EQ(back.info.precision, Precision::fp32);
    expect_same(back.particles.as<float>(), p.as<float>());
    // and a binary file holds floats: widening them back loses nothing
    if (format != ParticleFormat::csv) expect_same(back.particles, back.particles.as<float>().as<double>());
  } else {
    expect_same(back.particles, p);
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, RoundTrip,
                         testing::Values(FormatCase{ParticleFormat::csv, Precision::fp64},
                                         FormatCase{ParticleFormat::csv, Precision::fp32},
                                         FormatCase{ParticleFormat::tipsy, Precision::fp64},
                                         FormatCase{ParticleFormat::tipsy, Precision::fp32},
                                         FormatCase{ParticleFormat::hdf5, Precision::fp64},
                                         FormatCase{ParticleFormat::hdf5, Precision::fp32}),
                         [](const testing::TestParamInfo<FormatCase>& info) {
                           return std::string(to_string(info.param.format)) + "_" +
                                  std::string(to_string(info.param.precision));
                         });

TEST(Tipsy, NativeLittleEndianIsReadToo) {
  const auto p = random_particles(33, 3).as<float>().as<double>();
  const fs::path dir = temp_dir("tipsy_le");
  write_file_atomic(dir / "le.std", tipsy_bytes(p, {Precision::fp32, 0.5, nullptr}, ByteOrder::little));
  write_file_atomic(dir / "be.std", tipsy_bytes(p, {Precision::fp32, 0.5, nullptr}, ByteOrder::big));
  EXPECT_NE(read_text(dir / "le.std"), read_text(dir / "be.std"));
  const auto le = read_particle_file(dir / "le.std");
  const auto be = read_particle_file(dir / "be.std");
  expect_same(le.particles, p);
  expect_same(be.particles, p);
  EXPECT_EQ(le.info.time, 0.5);
}

TEST(Tipsy, HeaderIsTheStandard32BytesBigEndian) {
  const auto p = random_particles(2, 3);
  const std::string bytes = tipsy_bytes(p, {Precision::fp32, 0.0, nullptr});
  ASSERT_EQ(bytes.size(), kTipsyHeaderBytes + 2 * kTipsyDarkBytes);
  // nbodies = 2, ndim = 3, nsph = 0, ndark = 2, nstar = 0, pad, big-endian
  const unsigned char want[] = {0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0};
  EXPECT_EQ(std::memcmp(bytes.data() + 8, want, sizeof want), 0);
}

TEST(ParticleFile, FormatIsSniffedWhenTheExtensionIsUnknown) {
  const auto p = random_particles(10, 1);
  const fs::path dir = temp_dir("sniff");
  std::vector<ParticleFormat> formats = {ParticleFormat::csv, ParticleFormat::tipsy};
  if (hdf5_available()) formats.push_back(ParticleFormat::hdf5);
  for (const auto f : formats) {
    const fs::path file = dir / ("data_" + std::string(to_string(f)) + ".dat");
    write_particle_file(file, f, p, {Precision::fp64, 0, nullptr});
    EXPECT_EQ(read_particle_file(file).info.format, f) << to_string(f);
  }
}

TEST(ParticleFile, SameStateGivesTheSameHdf5Bytes) {
  if (!hdf5_available()) GTEST_SKIP() << "skipped: built without HDF5";
  const auto p = random_particles(50, 9);
  const fs::path dir = temp_dir("hdf5_bytes");
  RunConfig cfg;
  write_particle_file(dir / "a.hdf5", ParticleFormat::hdf5, p, {Precision::fp64, 2.0, &cfg});
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // a timestamp would now differ
  write_particle_file(dir / "b.hdf5", ParticleFormat::hdf5, p, {Precision::fp64, 2.0, &cfg});
  EXPECT_EQ(read_text(dir / "a.hdf5"), read_text(dir / "b.hdf5"));
}

TEST(ParticleFile, WritesLeaveNoTemporaryFiles) {
  const auto p = random_particles(10, 1);
  const fs::path dir = temp_dir("no_tmp");
  for (const auto f : {ParticleFormat::csv, ParticleFormat::tipsy}) {
    write_particle_file(dir / ("x" + std::string(file_extension(f))), f, p, {Precision::fp64, 0, nullptr});
  }
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_FALSE(is_temporary_file(e.path())) << e.path();
  EXPECT_TRUE(is_temporary_file("snapshot_001.hdf5.tmp.1234"));
  EXPECT_FALSE(is_temporary_file("snapshot_001.hdf5"));
}

Checkpoint sample_checkpoint() {
  Checkpoint ck;
  ck.config.ic = "cube";
  ck.config.n = 40;
  ck.config.dt = 0.1 + 0.2;
  ck.config.out = "a dir\twith\ttabs\nand a newline";
  ck.config.device = "cpu";
  ck.step = 123;
  ck.time = 123 * ck.config.dt;
  ck.state = awkward_particles(40).as<float>();
  ck.integrator = {"leapfrog", {1, 2, 3, 255}};
  // Every value of the step-0 diagnostics and radii is distinct, so a field read into the wrong
  // place is seen.
  Diagnostics& d0 = ck.progress.initial;
  d0 = {3, 0.03, 0.125, -0.375, -0.25, {1e-17, -2e-17, 3e-17}, {0.1, 0.2, 0.3}, {-1e-3, 2e-3, -3e-3}, 0.6667};
  ck.progress.initial_radii = {0.05, 0.11, 0.2, 0.33, 0.77, 1.31, 2.2};
  ck.progress.diagnostics_rows = 13;
  ck.progress.snapshots = 4;
  return ck;
}

TEST(CheckpointFile, RoundTripIsExact) {
  for (const bool fp64 : {false, true}) {
    Checkpoint ck = sample_checkpoint();
    if (fp64) ck.state = awkward_particles(40);
    const Checkpoint back = decode_checkpoint(encode_checkpoint(ck), "test");
    EXPECT_EQ(back.config, ck.config);
    EXPECT_EQ(back.step, ck.step);
    EXPECT_EQ(back.time, ck.time);
    EXPECT_EQ(back.integrator, ck.integrator);
    EXPECT_EQ(back.progress, ck.progress);
    ASSERT_EQ(back.state.index(), ck.state.index());
    if (fp64) {
      expect_same(std::get<Particles<double>>(back.state), std::get<Particles<double>>(ck.state));
    } else {
      expect_same(std::get<Particles<float>>(back.state), std::get<Particles<float>>(ck.state));
    }
  }
}

std::string decode_error(const std::string& bytes) {
  try {
    (void)decode_checkpoint(bytes, "ck");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(CheckpointFile, DamageIsDetected) {
  const std::string good = encode_checkpoint(sample_checkpoint());
  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x10;
  EXPECT_NE(decode_error(flipped).find("checksum"), std::string::npos);
  EXPECT_NE(decode_error(good.substr(0, good.size() - 100)).find("checksum"), std::string::npos);
  EXPECT_NE(decode_error(good.substr(0, 10)).find("truncated"), std::string::npos);
  EXPECT_NE(decode_error("").find("empty"), std::string::npos);
  std::string magic = good;
  magic[0] = 'X';
  EXPECT_NE(decode_error(magic).find("wrong magic"), std::string::npos);
  std::string version = good;
  version[8] = 99;
  EXPECT_NE(decode_error(version).find("version"), std::string::npos);
}

// Bytes no UTF-8 text holds (ASCII with its control characters, lone continuation bytes, 0xf8 to
// 0xff), so that a message quoting them printably is pure printable ASCII.
std::string garbage_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::string out;
  while (out.size() < n) {
    const auto b = static_cast<unsigned char>(rng());
    if (b < 0xc0 || b >= 0xf8) out += static_cast<char>(b);
  }
  return out;
}

// The error line of nbody on stderr: one line ("nbody: error: ... \n"), every byte printable.
void expect_one_printable_line(const std::string& err) {
  ASSERT_FALSE(err.empty());
  EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
  for (std::size_t i = 0; i + 1 < err.size(); ++i) {
    const auto c = static_cast<unsigned char>(err[i]);
    ASSERT_TRUE(c >= 0x20 && c < 0x7f) << "byte " << i << " is " << int(c) << " in: " << err;
  }
  EXPECT_LT(err.size(), 600u) << err;
}

// A CSV file of random bytes: the error is one printable line (the header it quotes escaped), and
// so is each kind of bad row; a very long bad value is cut.
TEST(ParticleFile, ErrorsQuoteTheFilePrintably) {
  const std::string dir = temp_dir("garbage_csv");
  for (const std::uint32_t seed : {1u, 2u, 3u}) {
    const std::string path = dir + "/garbage" + std::to_string(seed) + ".csv";
    std::ofstream(path, std::ios::binary) << "\x1b[2J\x07" << garbage_bytes(4096, seed);
    const auto run = run_nbody("run --ic file:" + path + " --device cpu --steps 1");
    EXPECT_EQ(run.status, 2);
    expect_one_printable_line(run.err);
    EXPECT_NE(run.err.find("expected the CSV header"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("'\\x1b[2J\\x07"), std::string::npos) << run.err;
    const auto convert = run_nbody("convert " + path + " " + dir + "/out.tipsy");
    EXPECT_EQ(convert.status, 2);
    expect_one_printable_line(convert.err);
  }
  const std::string header = "id,m,x,y,z,vx,vy,vz\n";
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"0,1,0,0,0,0,0,\x01\x02\n", "vz is not a number ('\\x01\\x02')"},
      {"\x7f,1,0,0,0,0,0,0\n", "id is not a whole number >= 0 ('\\x7f')"},
      {"0,1,0,0,0,0,0," + std::string(5000, '\x05') + "\n", "'... (5000 bytes)"},
      {"# time = \x1b, softening = 1\n0,1,0,0,0,0,0,0\n", "time is not a finite number ('\\x1b')"},
  };
  for (const auto& [row, want] : rows) {
    SCOPED_TRACE(want);
    std::ofstream(dir + "/row.csv", std::ios::binary) << header << row;
    const auto r = run_nbody("run --ic file:" + dir + "/row.csv --device cpu --steps 1");
    EXPECT_EQ(r.status, 2);
    expect_one_printable_line(r.err);
    EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace nbody::test
