// Initial conditions from a file (--ic file:PATH) and nbody convert: the happy paths, and every
// kind of malformed file: exit status 2, one line on stderr naming the file and what is wrong
// (with the line or record), and no output directory.
#include <cmath>
#include <filesystem>
#include <functional>

#include "io/atomic_file.hpp"
#include "io/particle_file.hpp"
#include "io/tipsy.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

namespace fs = std::filesystem;

const char* const kHeader = "id,m,x,y,z,vx,vy,vz\n";

std::string csv_rows(int n) {
  std::string s = kHeader;
  for (int i = 0; i < n; ++i) {
    s += std::to_string(i) + ",1," + std::to_string(0.1 * i) + ",0.5,-0.25,0.01,0,0\n";
  }
  return s;
}

std::string tipsy_of(const Particles<double>& p) { return tipsy_bytes(p, {Precision::fp32, 0.0, nullptr}); }

// Bytes of an HDF5 snapshot of `p` (written through the library, then read back as bytes).
std::string hdf5_of(const Particles<double>& p) {
  const fs::path f = fs::path(temp_dir("hdf5_src")) / "x.hdf5";
  write_particle_file(f, ParticleFormat::hdf5, p, {Precision::fp64, 0, nullptr});
  return read_text(f.string());
}

struct BadFile {
  std::string name;
  std::string file;                      // file name (its extension chooses the format)
  std::function<std::string()> content;  // its bytes
  std::string problem;                   // what the error line must say
  bool needs_hdf5 = false;
};

void PrintTo(const BadFile& c, std::ostream* os) { *os << c.name; }

class IcFileBad : public testing::TestWithParam<BadFile> {};

TEST_P(IcFileBad, ExitsTwoNamingTheFileAndTheProblemAndWritesNothing) {
  const BadFile& c = GetParam();
  if (c.needs_hdf5 && !hdf5_available()) GTEST_SKIP() << "skipped: built without HDF5";
  const fs::path base = temp_dir("icbad_" + c.name);
  const fs::path file = base / c.file;
  if (c.content) write_file_atomic(file, c.content());
  const fs::path out = base / "out";
  for (const std::string& cmd : {"run --backend cpu --ic file:" + file.string() + " --out " + out.string(),
                                 "convert " + file.string() + " " + (base / "converted.csv").string()}) {
    const auto r = run_nbody(cmd);
    EXPECT_EQ(r.status, 2) << cmd << "\n" << r.out << r.err;
    const auto err = lines(r.err);
    ASSERT_EQ(err.size(), 1u) << r.err;
    EXPECT_EQ(err[0].rfind("nbody: error: ", 0), 0u) << err[0];
    EXPECT_NE(err[0].find(file.string()), std::string::npos) << "does not name the file: " << err[0];
    EXPECT_NE(err[0].find(c.problem), std::string::npos) << "does not say '" << c.problem << "': " << err[0];
    EXPECT_FALSE(fs::exists(out)) << "an output directory was written";
    EXPECT_FALSE(fs::exists(base / "converted.csv"));
  }
}

std::string with_row(const std::string& row) { return std::string(kHeader) + "0,1,0,0,0,0,0,0\n" + row + "\n"; }

Particles<double> two() { return random_particles(2, 5); }

std::string tipsy_patched(std::size_t offset, std::int32_t big_endian_value) {
  std::string b = tipsy_of(random_particles(4, 5));
  for (int k = 0; k < 4; ++k) b[offset + k] = char((big_endian_value >> (8 * (3 - k))) & 0xff);
  return b;
}

std::string tipsy_with_value(std::size_t record, std::size_t field, float v) {
  std::string b = tipsy_of(random_particles(4, 5));
  const auto bits = std::bit_cast<std::uint32_t>(v);
  const std::size_t at = kTipsyHeaderBytes + record * kTipsyDarkBytes + field * 4;
  for (int k = 0; k < 4; ++k) b[at + k] = char((bits >> (8 * (3 - k))) & 0xff);
  return b;
}

Particles<double> with_nan() {
  auto p = random_particles(5, 1);
  p.vy[3] = NAN;
  return p;
}
Particles<double> with_duplicate() {
  auto p = random_particles(5, 1);
  p.id[4] = p.id[1];
  return p;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, IcFileBad,
    testing::Values(
        BadFile{"missing", "nosuch.csv", nullptr, "no such file"},
        BadFile{"csv_empty", "e.csv", [] { return std::string(); }, "empty file"},
        BadFile{"csv_blank", "b.csv", [] { return std::string("\n\n"); }, "empty file"},
        BadFile{"csv_no_rows", "h.csv", [] { return std::string(kHeader); }, "no particles"},
        BadFile{"csv_wrong_header", "w.csv", [] { return std::string("x,y,z\n1,2,3\n"); },
                "line 1: expected the CSV header"},
        BadFile{"csv_nan", "n.csv", [] { return with_row("1,1,nan,0,0,0,0,0"); }, "line 3: x is not a finite number"},
        BadFile{"csv_inf", "i.csv", [] { return with_row("1,1,0,0,0,0,-inf,0"); }, "line 3: vy is not a finite number"},
        BadFile{"csv_negative_mass", "m.csv", [] { return with_row("1,-2,0,0,0,0,0,0"); }, "line 3: mass must be > 0"},
        BadFile{"csv_zero_mass", "z.csv", [] { return with_row("1,0,0,0,0,0,0,0"); }, "line 3: mass must be > 0"},
        BadFile{"csv_duplicate_id", "d.csv", [] { return with_row("0,1,1,1,1,0,0,0"); },
                "line 3: duplicate id 0 (also at line 2)"},
        BadFile{"csv_truncated", "t.csv", [] { return csv_rows(5).substr(0, csv_rows(5).size() - 12); },
                "values, expected 8 (the row is incomplete"},
        BadFile{"csv_not_a_number", "x.csv", [] { return with_row("1,1,0,zero,0,0,0,0"); },
                "line 3: y is not a number"},
        BadFile{"csv_bad_id", "id.csv", [] { return with_row("-1,1,0,0,0,0,0,0"); },
                "line 3: id is not a whole number"},
        BadFile{"tipsy_empty", "e.tipsy", [] { return std::string(); }, "empty file"},
        BadFile{"tipsy_short_header", "s.tipsy", [] { return std::string(20, '\0'); }, "shorter than the 32-byte"},
        BadFile{"tipsy_truncated", "t.tipsy",
                [] {
                  const auto b = tipsy_of(random_particles(4, 5));
                  return b.substr(0, b.size() - 40);
                },
                "record 3 is incomplete"},
        BadFile{"tipsy_trailing_bytes", "x.std", [] { return tipsy_of(random_particles(4, 5)) + "junk"; },
                "4 bytes too many"},
        BadFile{"tipsy_wrong_ndim", "n.bin", [] { return tipsy_patched(12, 7); }, "header ndim = 7 (expected 3)"},
        BadFile{"tipsy_counts_disagree", "c.tipsy", [] { return tipsy_patched(8, 5); },
                "nbodies = 5 but nsph + ndark + nstar = 4"},
        BadFile{"tipsy_nan", "nan.tipsy", [] { return tipsy_with_value(2, 3, NAN); },
                "record 3: z is not a finite number"},
        BadFile{"tipsy_zero_mass", "m.tipsy", [] { return tipsy_with_value(1, 0, 0.0f); },
                "record 2: mass must be > 0"},
        BadFile{"unknown_format", "data.dat", [] { return std::string("hello, this is not a particle file\n"); },
                "cannot tell the file format"},
        BadFile{"hdf5_wrong_magic", "w.hdf5", [] { return std::string(kHeader); }, "not an HDF5 file (wrong signature",
                true},
        BadFile{"hdf5_truncated", "t.h5",
                [] {
                  const auto b = hdf5_of(two());
                  return b.substr(0, b.size() / 2);
                },
                "truncated or corrupt", true},
        BadFile{"hdf5_nan", "n.hdf5", [] { return hdf5_of(with_nan()); },
                "PartType1 record 4: vy is not a finite number", true},
        BadFile{"hdf5_duplicate_id", "d.hdf5", [] { return hdf5_of(with_duplicate()); },
                "PartType1 record 5: duplicate id 1 (also at PartType1 record 2)", true}),
    [](const testing::TestParamInfo<BadFile>& info) { return info.param.name; });

TEST(IcFile, RunTakesItsBodiesFromTheFile) {
  const fs::path base = temp_dir("ic_ok");
  write_file_atomic(base / "ic.csv", csv_rows(37));
  const auto r =
      run_nbody("run --backend cpu --steps 3 -n 5 --snapshot-format csv --ic file:" + (base / "ic.csv").string() +
                " --out " + (base / "out").string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("N = 37"), std::string::npos) << r.out;
  EXPECT_NE(read_text((base / "out" / "config.toml").string()).find("n = 37\n"), std::string::npos);
  // The first snapshot is the file, in the run's precision (fp32 by default).
  const auto in = read_particle_file(base / "ic.csv").particles;
  const auto first = read_particle_file(base / "out" / "snapshot_000.csv").particles;
  EXPECT_EQ(first.as<float>().x, in.as<float>().x);
  EXPECT_EQ(first.id, in.id);
}

TEST(IcFile, APrefixWithoutAPathIsRefused) {
  const fs::path out = fs::path(temp_dir("ic_nopath")) / "out";
  const auto r = run_nbody("run --ic file: --out " + out.string());
  EXPECT_EQ(r.status, 2);
  ASSERT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("--ic: 'file:' needs a path"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(IcFile, HelpSaysNComesFromTheFile) {
  const auto h = run_nbody("run --help");
  EXPECT_NE(h.out.find("file:PATH"), std::string::npos);
  EXPECT_NE(h.out.find("taken from the file"), std::string::npos);
  for (const char* flag :
       {"--snapshot-every-t", "--snapshot-format", "--checkpoint-every", "--checkpoint-every-s", "--resume"}) {
    EXPECT_NE(h.out.find(flag), std::string::npos) << flag;
  }
}

TEST(Convert, BetweenEveryFormatWithoutLoss) {
  const fs::path base = temp_dir("convert");
  auto p = random_particles(21, 8).as<float>().as<double>();  // Tipsy holds float32
  write_particle_file(base / "a.csv", ParticleFormat::csv, p, {Precision::fp64, 0, nullptr});
  std::vector<std::string> chain = {"a.csv", "b.tipsy"};
  if (hdf5_available()) chain.push_back("c.hdf5");
  chain.push_back("d.csv");
  for (std::size_t i = 1; i < chain.size(); ++i) {
    const auto r = run_nbody("convert " + (base / chain[i - 1]).string() + " " + (base / chain[i]).string());
    ASSERT_EQ(r.status, 0) << r.err;
  }
  // The last CSV holds float32 values (9 digits), as the Tipsy file did.
  const auto back = read_particle_file(base / chain.back()).particles.as<float>();
  EXPECT_EQ(back.x, p.as<float>().x);
  EXPECT_EQ(back.vz, p.as<float>().vz);
  EXPECT_EQ(back.m, p.as<float>().m);
  EXPECT_EQ(back.id, p.id);
  // OUT exists: refused unless --overwrite
  const auto again = run_nbody("convert " + (base / "a.csv").string() + " " + (base / "b.tipsy").string());
  EXPECT_EQ(again.status, 2);
  EXPECT_NE(again.err.find("--overwrite"), std::string::npos);
  const auto unknown = run_nbody("convert " + (base / "a.csv").string() + " " + (base / "x.txt").string());
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("x.txt"), std::string::npos);
}

}  // namespace
}  // namespace nbody::test
