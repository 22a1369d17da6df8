// Faults while writing and reading files: a write that fails for real (a file size limit on the
// child process, so writes fail with EFBIG or, without the program's own handling, SIGXFSZ
// kills it) reports one error line, exits 1 and leaves neither the file nor a temporary; files
// whose headers declare more than they hold, or values that are not numbers, are refused with
// exit 2 before anything large is read; plans that do not fit in memory are refused as a whole.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#if NBODY_HAVE_HDF5
#include <hdf5.h>
#endif

#include "core/units.hpp"
#include "io/atomic_file.hpp"
#include "io/particle_file.hpp"
#include "io/tipsy.hpp"
#include "nbody/error.hpp"
#include "support.hpp"

namespace nbody::test {
namespace {

namespace fs = std::filesystem;

// Files in `dir` that a writer left behind as temporaries.
std::vector<std::string> temporaries_in(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (is_temporary_file(e.path()) || e.path().filename().string().find(".tmp.") != std::string::npos) {
      found.push_back(e.path().filename().string());
    }
  }
  return found;
}

void expect_one_error_line(const ProcessResult& r, const std::string& needle) {
  const auto err = lines(r.err);
  ASSERT_EQ(err.size(), 1u) << r.err;
  EXPECT_EQ(err[0].rfind("nbody: error: ", 0), 0u) << r.err;
  EXPECT_NE(err[0].find(needle), std::string::npos) << r.err;
}

constexpr rlim_t kSmallFileLimit = 64 * 1024;  // bytes: far below a 20,000-body snapshot

// A snapshot of 20,000 bodies (about 1 MB in fp64) in `format`.
fs::path snapshot(const fs::path& dir, const std::string& format) {
  const fs::path file = dir / ("in." + format);
  SnapshotMeta meta;
  meta.time = 0.5;
  write_particle_file(file, *format_from_extension(file), random_particles(20000, 7), meta);
  return file;
}

class WriteUnderFileSizeLimit : public testing::TestWithParam<std::string> {};

// nbody convert into a file that cannot be written whole: exit 1 with one line naming it (not
// a crash at exit, not SIGXFSZ, not success), and neither the file nor a temporary is left.
TEST_P(WriteUnderFileSizeLimit, ConvertFailsCleanly) {
  const std::string format = GetParam();
  if (format == "hdf5" && !hdf5_available()) GTEST_SKIP() << "skipped: built without HDF5";
  const fs::path dir = temp_dir("fsize_convert_" + format);
  const fs::path in = snapshot(dir, "csv");
  const fs::path out_dir = dir / "out";
  fs::create_directories(out_dir);
  const fs::path out = out_dir / ("out." + format);
  const auto r = run_nbody_limited("convert " + in.string() + " " + out.string(), RLIMIT_FSIZE, kSmallFileLimit);
  EXPECT_EQ(r.status, 1) << r.err;
  expect_one_error_line(r, "cannot write '" + out.string() + "'");
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("convert:"), std::string::npos) << "success reported: " << r.out;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(temporaries_in(out_dir).empty());
}

// A run writing its snapshots into a directory under the same limit stops with exit 1 and
// leaves no temporary file.
TEST_P(WriteUnderFileSizeLimit, RunSnapshotFailsCleanly) {
  const std::string format = GetParam();
  if (format == "hdf5" && !hdf5_available()) GTEST_SKIP() << "skipped: built without HDF5";
  const fs::path dir = fs::path(temp_dir("fsize_run_" + format)) / "run";
  const auto r = run_nbody_limited("run --backend cpu --ic plummer -n 20000 --steps 0 --snapshot-format " + format +
                                       " --out " + dir.string(),
                                   RLIMIT_FSIZE, kSmallFileLimit);
  EXPECT_EQ(r.status, 1) << r.err;
  expect_one_error_line(r, "cannot write");
  EXPECT_FALSE(fs::exists(dir / ("snapshot_000." + format)));
  EXPECT_TRUE(temporaries_in(dir).empty());
}

INSTANTIATE_TEST_SUITE_P(Formats, WriteUnderFileSizeLimit, testing::Values("hdf5", "csv", "tipsy"),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

// write_file_atomic and replace_file_atomic in a process whose writes fail with EFBIG: an
// error, and no temporary left behind.
TEST(AtomicFile, RemovesItsTemporaryWhenAWriteFails) {
  const fs::path dir = temp_dir("atomic_fsize");
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit r{4096, 4096};
    if (::setrlimit(RLIMIT_FSIZE, &r) != 0) ::_exit(10);
    int failures = 0;
    try {
      write_file_atomic(dir / "big.txt", std::string(100000, 'x'));
    } catch (const Error&) {
      ++failures;
    }
    try {
      replace_file_atomic(dir / "lib.bin", [](const fs::path& tmp) {
        const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const std::string block(100000, 'y');
        const bool ok = ::write(fd, block.data(), block.size()) == ssize_t(block.size());
        ::close(fd);
        if (!ok) throw_runtime_error("write failed");
      });
    } catch (const Error&) {
      ++failures;
    }
    ::_exit(failures == 2 ? 0 : 11);
  }
  int raw = 0;
  ::waitpid(pid, &raw, 0);
  ASSERT_TRUE(WIFEXITED(raw)) << "signal " << WTERMSIG(raw);
  EXPECT_EQ(WEXITSTATUS(raw), 0);
  EXPECT_FALSE(fs::exists(dir / "big.txt"));
  EXPECT_FALSE(fs::exists(dir / "lib.bin"));
  EXPECT_TRUE(temporaries_in(dir).empty());
}

// The plan's peak is a sum: each allocation of this run fits in the 3 GiB address space the
// child is given, their sum (the float64 initial conditions beside the store) does not. The
// run is refused before allocating, naming what it needs and what is available.
TEST(MemoryPlan, TheWholePeakIsChecked) {
  const auto r = run_nbody_limited("run --backend cpu --precision fp64 --ic cube -n 24000000 --steps 0",
                                   RLIMIT_AS, rlim_t(3) << 30);
  EXPECT_EQ(r.status, 2) << r.err;
  expect_one_error_line(r, "n: 24000000 bodies (fp64 on cpu) need");
  EXPECT_NE(r.err.find("of host memory, but this machine has"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("available"), std::string::npos) << r.err;
}

TEST(BadParameters, SofteningThatMakesGravityVanish) {
  for (const char* args : {"--softening 1e308", "--softening 1e13 --precision fp32", "--softening 1e13 --precision mixed",
                           "--softening 1e103 --precision fp64"}) {
    const auto r = run_nbody(std::string("run --backend cpu -n 8 --steps 1 ") + args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.err;
    expect_one_error_line(r, "softening:");
    EXPECT_NE(r.err.find("too large"), std::string::npos) << r.err;
  }
  // Large but harmless softenings stay accepted.
  for (const char* args : {"--softening 1e12 --precision fp32", "--softening 1e100 --precision fp64"}) {
    const auto r = run_nbody(std::string("run --backend cpu -n 8 --steps 1 ") + args);
    EXPECT_EQ(r.status, 0) << args << ": " << r.err;
  }
}

TEST(BadParameters, ConvertIntoAMissingDirectory) {
  const fs::path dir = temp_dir("convert_missing_dir");
  const fs::path in = snapshot(dir, "csv");
  const auto r = run_nbody("convert " + in.string() + " " + (dir / "nosuch" / "out.csv").string());
  EXPECT_EQ(r.status, 2) << r.err;
  expect_one_error_line(r, "no directory");
}

// /proc/sys exists and is a directory that takes no new files, for root too.
TEST(BadParameters, UnwritableOutIsFoundBeforeTheModelIsDrawn) {
  if (!fs::is_directory("/proc/sys")) GTEST_SKIP() << "skipped: no /proc/sys";
  const auto r = run_nbody("run --backend cpu -n 8 --steps 1 --overwrite --out /proc/sys");
  EXPECT_EQ(r.status, 2) << r.err;
  expect_one_error_line(r, "out: directory '/proc/sys' is not writable");
}

TEST(ParticleFileFaults, TipsyNanTimeIsRefused) {
  const fs::path file = fs::path(temp_dir("tipsy_nan")) / "nan.tipsy";
  SnapshotMeta meta;
  meta.time = std::numeric_limits<double>::quiet_NaN();
  write_file_atomic(file, tipsy_bytes(random_particles(4, 1), meta));
  const auto r = run_nbody("convert " + file.string() + " " + (file.parent_path() / "o.csv").string());
  EXPECT_EQ(r.status, 2) << r.err;
  expect_one_error_line(r, file.string() + ": header time is not a finite number");
}

// CSV snapshots carry the time and the unit system; a convert round trip through HDF5 or
// Tipsy keeps what the target format can hold.
TEST(ParticleFileFaults, CsvKeepsTimeAndUnits) {
  const fs::path dir = temp_dir("csv_meta");
  SnapshotMeta meta;
  meta.time = 2.5;
  meta.units = unit_system_cgs("galactic");
  const auto p = random_particles(10, 3);
  write_particle_file(dir / "a.csv", ParticleFormat::csv, p, meta);
  const auto back = read_particle_file(dir / "a.csv");
  EXPECT_EQ(back.info.time, 2.5);
  ASSERT_TRUE(back.info.units.has_value());
  EXPECT_EQ(back.info.units->UnitLength_in_cm, meta.units->UnitLength_in_cm);
  EXPECT_EQ(back.info.units->UnitMass_in_g, meta.units->UnitMass_in_g);
  EXPECT_EQ(back.info.units->UnitVelocity_in_cm_per_s, meta.units->UnitVelocity_in_cm_per_s);
  EXPECT_EQ(back.info.units->UnitTime_in_s, meta.units->UnitTime_in_s);
  EXPECT_TRUE(back.info.units->physical);
  if (hdf5_available()) {
    ASSERT_EQ(run_nbody("convert " + (dir / "a.csv").string() + " " + (dir / "b.hdf5").string()).status, 0);
    ASSERT_EQ(run_nbody("convert " + (dir / "b.hdf5").string() + " " + (dir / "c.csv").string()).status, 0);
    const auto again = read_particle_file(dir / "c.csv");
    EXPECT_EQ(again.info.time, 2.5);
    ASSERT_TRUE(again.info.units.has_value());
    EXPECT_EQ(again.info.units->UnitLength_in_cm, meta.units->UnitLength_in_cm);
  }
  // A metadata comment with a value that is not a number is refused, naming the line.
  std::string text = read_text((dir / "a.csv").string());
  const auto at = text.find("time = 2.5");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 10, "time = nan");
  write_file_atomic(dir / "nan.csv", text);
  const auto r = run_nbody("convert " + (dir / "nan.csv").string() + " " + (dir / "o.csv").string());
  EXPECT_EQ(r.status, 2) << r.err;
  expect_one_error_line(r, "line 2: time is not a finite number");
}

#if NBODY_HAVE_HDF5
// HDF5 files made by hand: attributes overwritten, datasets declared and never written.
class Hdf5File {
 public:
  explicit Hdf5File(const fs::path& path, bool create) {
    id_ = create ? H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)
                 : H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  }
  ~Hdf5File() { H5Fclose(id_); }
  [[nodiscard]] hid_t get() const { return id_; }

  void set_double(const char* object, const char* name, double v) const {
    const hid_t obj = H5Oopen(id_, object, H5P_DEFAULT);
    if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t attr = H5Acreate2(obj, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, H5T_NATIVE_DOUBLE, &v);
    H5Aclose(attr);
    H5Sclose(space);
    H5Oclose(obj);
  }
  void set_array(const char* object, const char* name, hid_t file_type, hid_t mem_type, const void* data,
                 hsize_t count) const {
    const hid_t obj = H5Oopen(id_, object, H5P_DEFAULT);
    const hid_t space = H5Screate_simple(1, &count, nullptr);
    const hid_t attr = H5Acreate2(obj, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, mem_type, data);
    H5Aclose(attr);
    H5Sclose(space);
    H5Oclose(obj);
  }
  // A chunked dataset of rows x cols float64 values, none written.
  void declare(const char* group, const char* name, hsize_t rows, hsize_t cols) const {
    const hid_t g = H5Gopen2(id_, group, H5P_DEFAULT);
    const hsize_t dims[2] = {rows, cols};
    const hsize_t chunk[2] = {1024, cols};
    const hid_t space = H5Screate_simple(cols == 1 ? 1 : 2, dims, nullptr);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, cols == 1 ? 1 : 2, chunk);
    const hid_t set = H5Dcreate2(g, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Dclose(set);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Gclose(g);
  }
  void group(const char* name) const { H5Gclose(H5Gcreate2(id_, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)); }

 private:
  hid_t id_ = H5I_INVALID_HID;
};

// A header declaring `n` bodies in PartType1 with the datasets declared (chunked), never written.
fs::path declared_only(const fs::path& file, hsize_t n) {
  Hdf5File f(file, true);
  f.group("/Header");
  f.group("/PartType1");
  const std::uint64_t count[6] = {0, n, 0, 0, 0, 0};
  const double mass_table[6] = {};
  f.set_array("/Header", "NumPart_ThisFile", H5T_STD_U64LE, H5T_NATIVE_UINT64, count, 6);
  f.set_array("/Header", "MassTable", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, mass_table, 6);
  f.set_double("/Header", "Time", 0.0);
  f.declare("/PartType1", "Coordinates", n, 3);
  f.declare("/PartType1", "Velocities", n, 3);
  f.declare("/PartType1", "Masses", n, 1);
  f.declare("/PartType1", "ParticleIDs", n, 1);
  return file;
}

// A few kilobytes declaring 3e8 bodies: refused from the storage the file holds, before 38 GB
// are allocated and read.
TEST(ParticleFileFaults, HdfDeclaredButNeverWrittenIsRefused) {
  const fs::path dir = temp_dir("hdf5_declared");
  const fs::path file = declared_only(dir / "big.hdf5", 300000000);
  ASSERT_LT(fs::file_size(file), 64u * 1024);
  const auto r = run_nbody_limited("convert " + file.string() + " " + (dir / "o.csv").string(), RLIMIT_AS,
                                   rlim_t(2) << 30);
  EXPECT_EQ(r.status, 2) << r.err;
  expect_one_error_line(r, file.string() + ": dataset /PartType1/Coordinates declares 300000000 rows but holds no data");
}

// A row count no array can hold: the dataset is named, exit 2 (not an anonymous std::vector error).
TEST(ParticleFileFaults, HdfRowCountOverflowIsNamed) {
  const fs::path dir = temp_dir("hdf5_overflow");
  const fs::path file = declared_only(dir / "huge.hdf5", hsize_t(1) << 62);
  const auto r = run_nbody("convert " + file.string() + " " + (dir / "o.csv").string());
  EXPECT_EQ(r.status, 2) << r.err;
  expect_one_error_line(r, "dataset /PartType1/Coordinates declares 4611686018427387904 rows, more than can be held");
}

class HdfNonFinite : public testing::TestWithParam<std::pair<const char*, const char*>> {};

// A NaN header time or unit in an otherwise good snapshot: exit 2 naming the file and field,
// and convert writes nothing.
TEST_P(HdfNonFinite, IsRefusedByConvert) {
  const auto [object, name] = GetParam();
  const fs::path dir = temp_dir(std::string("hdf5_nan_") + name);
  const fs::path file = snapshot(dir, "hdf5");
  {
    Hdf5File f(file, false);
    f.set_double(object, name, std::numeric_limits<double>::quiet_NaN());
  }
  const auto r = run_nbody("convert " + file.string() + " " + (dir / "o.hdf5").string());
  EXPECT_EQ(r.status, 2) << r.err;
  expect_one_error_line(r, file.string() + ": " + object + "/" + name + " is not a finite number");
  EXPECT_FALSE(fs::exists(dir / "o.hdf5"));
}

INSTANTIATE_TEST_SUITE_P(Fields, HdfNonFinite,
                         testing::Values(std::pair{"/Header", "Time"}, std::pair{"/Units", "UnitLength_in_cm"},
                                         std::pair{"/Units", "UnitMass_in_g"},
                                         std::pair{"/Units", "UnitVelocity_in_cm_per_s"},
                                         std::pair{"/Units", "UnitTime_in_s"}),
                         [](const auto& info) { return std::string(info.param.second); });
#endif

}  // namespace
}  // namespace nbody::test
