#pragma once
// Helpers of the PIC tests: those of `nbody pic check` (pic/probes.hpp), under the tests' names,
// and a fresh directory for a test's files.
#include <unistd.h>

#include <filesystem>
#include <string>

#include "pic/driver/probes.hpp"

namespace nbody::pic::test {

using probes::periodic_settings;
using probes::electrons;
using probes::background_of;
using probes::project;
using probes::frequency_from_zeros;
using probes::frequency_from_recurrence;
using probes::log_slope;

// A fresh empty directory for one test's files: <tmp>/nbody_pic_<name>_<pid>.
inline std::filesystem::path temp_dir(const std::string& name) {
  const std::filesystem::path d =
      std::filesystem::temp_directory_path() / ("nbody_pic_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace nbody::pic::test
