#include "support.hpp"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <array>
#include <csignal>
#include <cmath>
#include <limits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/rng.hpp"
#include "gravity/interaction.hpp"

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

Particles<double> rounded_to(Precision precision, const Particles<double>& p) {
  return precision == Precision::fp64 ? p : p.as<float>().as<double>();
}

double unit_roundoff(Precision p) {
  return p == Precision::fp32 || p == Precision::mixed ? std::numeric_limits<float>::epsilon() / 2
                                                       : std::numeric_limits<double>::epsilon() / 2;
}

std::vector<double> term_magnitudes(const Particles<double>& p, const GravityParams& g) {
  const bool spline = g.law == SofteningLaw::spline && g.softening > 0;
  const auto kernel = gravity::SplinePair<double>::from_softening(g.softening);
  std::vector<double> s(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    double sum = 0;
    for (std::size_t j = 0; j < p.size(); ++j) {
      if (i == j) continue;
      const double dx = p.x[j] - p.x[i], dy = p.y[j] - p.y[i], dz = p.z[j] - p.z[i];
      const double d2 = dx * dx + dy * dy + dz * dz;
      sum += p.m[j] * std::sqrt(d2) * (spline ? kernel.factor(d2) : std::pow(d2 + g.eps2(), -1.5));
    }
    s[i] = g.G * sum;
  }
  return s;
}

ForceErrors force_errors(const Accelerations<double>& got, const Particles<double>& p, const GravityParams& g,
                         Precision precision) {
  auto reference = make_system<double>("cpu-reference", p.size(), g);
  reference->upload(p);
  reference->compute_accelerations();
  Accelerations<double> ref;
  reference->download_accelerations(ref);
  const auto s = term_magnitudes(p, g);
  ForceErrors out;
  out.allowance = 4 * unit_roundoff(precision) * (10 + std::sqrt(double(p.size())));
  double err2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double ex = got.ax[i] - ref.ax[i], ey = got.ay[i] - ref.ay[i], ez = got.az[i] - ref.az[i];
    const double e = std::sqrt(ex * ex + ey * ey + ez * ez);
    if (!std::isfinite(e)) {
      out.finite = false;
      out.worst_body = i;
      return out;
    }
    err2 += e * e;
    ref2 += ref.ax[i] * ref.ax[i] + ref.ay[i] * ref.ay[i] + ref.az[i] * ref.az[i];
    const double ratio = e / (out.allowance * s[i]);
    if (ratio > out.worst) {
      out.worst = ratio;
      out.worst_body = i;
    }
  }
  out.rel_rms = std::sqrt(err2 / ref2);
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

Particles<double> many_small_terms(std::size_t far, std::uint64_t seed) {
  Particles<double> p = random_particles(far + 2, seed);
  for (std::size_t i = 0; i < p.size(); ++i) p.vx[i] = p.vy[i] = p.vz[i] = 0;
  p.x[0] = p.y[0] = p.z[0] = 0;
  p.m[0] = 1;
  p.x[1] = 1;  // the neighbour: a pull of about 1.5 (float32 spacing 2^-23 there)
  p.y[1] = p.z[1] = 0;
  p.m[1] = 1.5;
  for (std::size_t i = 2; i < p.size(); ++i) {
    p.x[i] += 1000;
    p.m[i] = 0x1p-25 * 1000.0 * 1000.0;  // a pull of about 2^-25 each
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

ProcessResult run_nbody_limited(const std::string& args, int resource, unsigned long long limit) {
  const std::string dir = temp_dir("limited");
  const std::string out_file = dir + "/stdout", err_file = dir + "/stderr";
  const std::string cmd = std::string(NBODY_EXE_PATH) + " " + args + " >" + out_file + " 2>" + err_file + " </dev/null";
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_DFL);
    const rlimit r{rlim_t(limit), rlim_t(limit)};
    if (::setrlimit(resource, &r) != 0) ::_exit(120);
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int raw = 0;
  ::waitpid(pid, &raw, 0);
  ProcessResult res;
  res.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  res.out = read_text(out_file);
  res.err = read_text(err_file);
  return res;
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

ProcessResult run_straight_and_resumed(const std::string& args, const std::string& base, int first, int steps) {
  const std::string run = base + "/run";
  const auto straight = run_nbody(args + " --steps " + std::to_string(steps) + " --out " + run);
  EXPECT_EQ(straight.status, 0) << straight.err;
  std::filesystem::rename(run, base + "/straight");
  const auto stopped = run_nbody(args + " --steps " + std::to_string(first) + " --out " + run);
  EXPECT_EQ(stopped.status, 0) << stopped.err;
  const auto resumed = run_nbody("run --resume " + run + " --steps " + std::to_string(steps));
  EXPECT_EQ(resumed.status, 0) << resumed.err;
  return resumed;
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
