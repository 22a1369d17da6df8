// A build without the renderer (NBODY_ENABLE_RENDER=OFF, as on machines without libpng and
// cairo): a run asking for images is refused up front, in one line naming the key, exit 2,
// nothing written. Skipped in a build that has the renderer (test_pic_images.cpp runs there).
#include <gtest/gtest.h>

#include <unistd.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "pic/output/images.hpp"

namespace nbody::pic {
namespace {

namespace fs = std::filesystem;

TEST(PicImagesRefused, ARunAskingForImagesIsRefusedWithoutTheRenderer) {
  std::string why;
  if (images_available(&why)) GTEST_SKIP() << "this build has the renderer";
  EXPECT_NE(why.find("renderer"), std::string::npos) << why;
  const fs::path d = fs::temp_directory_path() / ("nbody_pic_norender_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  std::ofstream(d / "pic.toml") << "[grid]\nnx = 16\nny = 4\ndx = 0.05\ndy = 0.05\n[time]\nsteps = 2\n"
                                   "[output]\nimages_every = 1\n[[species]]\nname = \"electron\"\nppc = 1\n"
                                   "density = 1.0\n";
  const std::string cmd = std::string(NBODY_EXE_PATH) + " pic run --config " + (d / "pic.toml").string() +
                          " --out " + (d / "o").string() + " >/dev/null 2>" + (d / "e").string();
  const int s = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(s));
  EXPECT_EQ(WEXITSTATUS(s), 2);
  std::ifstream err(d / "e");
  std::string line, more;
  std::getline(err, line);
  EXPECT_NE(line.find("output.images_every"), std::string::npos) << line;
  EXPECT_NE(line.find("no renderer"), std::string::npos) << line;
  EXPECT_FALSE(std::getline(err, more)) << "one line";
  EXPECT_FALSE(fs::exists(d / "o")) << "nothing written";
  fs::remove_all(d);
}

}  // namespace
}  // namespace nbody::pic
