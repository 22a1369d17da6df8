// examples/pic/hole_boring_compare.py on two made-up run directories: the front velocity, the ion
// spectrum peaks (hole_boring.json) and the ion density peaks of the last common profile compared
// with the tolerance, exit status 0 within it and 1 beyond (run through scripts/python, which
// finds an interpreter with numpy).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <sys/wait.h>

#include "pic_test_util.hpp"

namespace nbody::pic::test {
namespace {

namespace fs = std::filesystem;

void write_run(const fs::path& dir, double v_hb, double deuteron_mev, double deuteron_column) {
  fs::create_directories(dir);
  std::ofstream(dir / "hole_boring.json") << "{\"v_hb_measured\": " << v_hb
                                          << ", \"ion_peaks\": {\"deuteron\": {\"peak_MeV\": " << deuteron_mev
                                          << ", \"expected_MeV\": 25.0}}}\n";
  std::ofstream(dir / "profile_00000010.csv") << "x_lambda,weight_electron,weight_deuteron\n"
                                              << "0.5,1,2\n1.0,3," << deuteron_column << "\n1.5,2,4\n";
  std::ofstream(dir / "profile_00000005.csv") << "x_lambda,weight_electron,weight_deuteron\n0.5,1,1\n";
}

std::string read(const fs::path& p) {
  std::ifstream f(p);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

TEST(HoleBoringCompare, ComparesFrontSpectrumPeaksAndDensityPeaksWithTheTolerance) {
  const std::string python = NBODY_EXAMPLES "/../scripts/python --needs numpy ";
  if (std::system((python + "-c 'pass' > /dev/null 2>&1").c_str()) != 0) GTEST_SKIP() << "no python3 with numpy";
  const fs::path base = temp_dir("hole_boring_compare");
  write_run(base / "ref", 0.0806, 24.0, 100.0);
  write_run(base / "near", 0.0807, 24.3, 101.0);  // 0.12 %, 1.25 %, 1 %
  write_run(base / "far", 0.0806, 24.0, 110.0);   // the density peak 10 % off
  const std::string script = python + NBODY_EXAMPLES "/pic/hole_boring_compare.py ";
  const fs::path out = base / "out.txt";
  const int near = std::system((script + (base / "ref").string() + " " + (base / "near").string() + " > " +
                                out.string()).c_str());
  const std::string text = read(out);
  EXPECT_EQ(WEXITSTATUS(near), 0) << text;
  EXPECT_NE(text.find("front velocity"), std::string::npos) << text;
  EXPECT_NE(text.find("deuteron spectrum peak (MeV)"), std::string::npos) << text;
  EXPECT_NE(text.find("deuteron density peak (step 00000010)"), std::string::npos) << text;
  EXPECT_EQ(text.find("BEYOND"), std::string::npos) << text;
  const int far = std::system((script + (base / "ref").string() + " " + (base / "far").string() + " > " +
                               out.string()).c_str());
  const std::string far_text = read(out);
  EXPECT_EQ(WEXITSTATUS(far), 1) << far_text;
  EXPECT_NE(far_text.find("BEYOND"), std::string::npos) << far_text;
  fs::remove_all(base);
}

}  // namespace
}  // namespace nbody::pic::test
