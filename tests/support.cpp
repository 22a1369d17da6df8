#include "support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/rng.hpp"

namespace nbody::test {

std::string case_name(const testing::TestParamInfo<BackendCase>& info) {
  std::string s = info.param.backend + "_" + std::string(to_string(info.param.precision));
  for (auto& ch : s) {
    if (ch == '-') ch = '_';
  }
  return s;
}

std::vector<BackendCase> backend_cases(Precision p) {
  std::vector<BackendCase> out;
  for (const auto& c : backend_cases()) {
    if (c.precision == p) out.push_back(c);
  }
  return out;
}

Particles<double> random_particles(std::size_t n, std::uint64_t seed) {
  Particles<double> p;
  p.resize(n);
  Rng rng(seed);
  for (std::size_t i = 0; i < n; ++i) {
    p.x[i] = rng.uniform(-1, 1);
    p.y[i] = rng.uniform(-1, 1);
    p.z[i] = rng.uniform(-1, 1);
    p.vx[i] = rng.uniform(-1, 1);
    p.vy[i] = rng.uniform(-1, 1);
    p.vz[i] = rng.uniform(-1, 1);
    p.m[i] = rng.uniform(0.5, 1.5);
    p.id[i] = i;
  }
  return p;
}

std::string temp_dir(const std::string& tag) {
  namespace fs = std::filesystem;
  const fs::path base = fs::temp_directory_path() / ("nbody-test-" + std::to_string(::getpid()));
  const fs::path dir = base / tag;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

ProcessResult run_nbody(const std::string& args) {
  const std::string dir = temp_dir("proc");
  const std::string out_file = dir + "/stdout", err_file = dir + "/stderr";
  const std::string cmd = std::string(NBODY_EXE_PATH) + " " + args + " >" + out_file + " 2>" + err_file + " </dev/null";
  const int raw = std::system(cmd.c_str());
  ProcessResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  auto slurp = [](const std::string& f) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  r.out = slurp(out_file);
  r.err = slurp(err_file);
  return r;
}

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", v);
  return buf;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace nbody::test
