#include "support.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

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

Child start_nbody(const std::string& args, const std::string& log_dir) {
  Child c;
  c.out_file = log_dir + "/stdout";
  c.err_file = log_dir + "/stderr";
  const std::string cmd =
      "exec " + std::string(NBODY_EXE_PATH) + " " + args + " >" + c.out_file + " 2>" + c.err_file + " </dev/null";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  c.pid = pid;
  return c;
}

int wait_child(const Child& c, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int raw = 0;
  while (true) {
    const pid_t r = ::waitpid(c.pid, &raw, WNOHANG);
    if (r == c.pid) break;
    if (r < 0) return -1;
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "nbody (pid " << c.pid << ") still running after " << timeout_s << " s; killed";
      ::kill(c.pid, SIGKILL);
      ::waitpid(c.pid, &raw, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
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
