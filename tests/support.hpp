#pragma once
// Shared by the test programs: the backend x precision cases, skipping where a backend is not
// usable, and helpers to run things.
#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "gravity/names.hpp"
#include "nbody/config.hpp"
#include "integrate/system.hpp"
#include "nbody/particles.hpp"

namespace nbody::test {

struct BackendCase {
  std::string backend;
  Precision precision;
};

inline std::ostream& operator<<(std::ostream& os, const BackendCase& c) {
  return os << c.backend << "_" << to_string(c.precision);
}
// gtest parameter names: "cpu_fp32", "cpu_reference_fp64".
std::string case_name(const testing::TestParamInfo<BackendCase>& info);

// A backend case's name as the configuration's device and gravity ("cpu-reference": cpu, reference).
inline void set_backend(RunConfig& cfg, const std::string& backend) {
  const SolverChoice c = solver_choice_of_backend(backend);
  cfg.device = c.device;
  cfg.gravity = c.gravity;
}

// The cases a test program instantiates its test bodies with (defined in instantiate_*.cpp).
std::vector<BackendCase> backend_cases();
// The same, restricted to one precision.
std::vector<BackendCase> backend_cases(Precision p);

// GTEST_SKIP()s the calling test when `c` names a backend this build or machine cannot run.
#define NBODY_SKIP_IF_UNAVAILABLE(c)                                              \
  do {                                                                            \
    std::string nbody_why_;                                                       \
    if ((c).backend == "cuda" && !::nbody::cuda_device_available(&nbody_why_)) \
      GTEST_SKIP() << "skipped: no CUDA device (" << nbody_why_ << ")";          \
  } while (0)

// The precision a state type has on its own (mixed is asked for explicitly).
template <class T>
constexpr Precision native_precision() {
  return sizeof(T) == 4 ? Precision::fp32 : Precision::fp64;
}

// A System of n bodies for a backend name ("cpu", "cuda", "cpu-reference": the --backend
// spelling of a device and an algorithm), the precision (fp32 with T = float; fp64 or mixed with
// T = double) and for the CUDA direct sum a launch shape.
template <class T>
std::unique_ptr<System<T>> make_system(const std::string& backend, std::size_t n, const GravityParams& g,
                                       Precision precision = native_precision<T>(), const std::string& shape = {}) {
  SolverRequest r;
  r.choice = solver_choice_of_backend(backend);
  r.precision = precision;
  r.n = n;
  r.gravity = g;
  r.kernel_shape = shape;
  return std::make_unique<System<T>>(r);
}

// The same for a test case (its backend and precision).
template <class T>
std::unique_ptr<System<T>> make_system(const BackendCase& c, std::size_t n, const GravityParams& g) {
  return make_system<T>(c.backend, n, g, c.precision);
}

// Calls f.template operator()<T>() with the state type of a precision (float for fp32, double
// for fp64 and mixed).
template <class F>
decltype(auto) with_state_type(Precision p, F&& f) {
  if (p == Precision::fp32) return f.template operator()<float>();
  return f.template operator()<double>();
}

// n bodies uniform in the unit cube with masses uniform in [0.5, 1.5) (not all equal, so a
// kernel that drops the masses fails).
Particles<double> random_particles(std::size_t n, std::uint64_t seed);
// A body at the origin, a heavy neighbour at distance 1 and `far` light bodies in a cube of side
// 2 around (1000, 0, 0), each pulling body 0 with about a quarter of a float32 unit in the last
// place of the neighbour's pull: added one at a time to that pull in float32, each rounds away.
Particles<double> many_small_terms(std::size_t far, std::uint64_t seed);

// Uploads p (rounded to T) into b, computes the accelerations and returns them in float64.
template <class T>
Accelerations<double> accelerations_from(System<T>& b, const Particles<double>& p) {
  b.upload(p.as<T>());
  b.compute_accelerations();
  Accelerations<T> a;
  b.download_accelerations(a);
  Accelerations<double> out;
  out.resize(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    out.ax[i] = a.ax[i];
    out.ay[i] = a.ay[i];
    out.az[i] = a.az[i];
  }
  return out;
}

// p as the pair arithmetic of a precision sees it, back in float64: rounded to float32 for fp32
// and mixed (whose float64 state holds those values exactly), unchanged for fp64.
Particles<double> rounded_to(Precision precision, const Particles<double>& p);

// The unit roundoff u of a precision (2^-24 or 2^-53; mixed: its float32 pair terms).
double unit_roundoff(Precision p);

// S_i = G sum_j m_j |d_ij| g(|d_ij|) (Plummer: g = (|d|^2 + eps^2)^{-3/2}; or the spline law's
// g): the sum of the magnitudes of the terms whose sum is a_i. Rounding errors scale with it,
// not with |a_i| (which cancellation shrinks).
std::vector<double> term_magnitudes(const Particles<double>& p, const GravityParams& g);

// Accelerations against the float64 reference of the same inputs. Each term is computed with a
// relative error of a few units of roundoff u (the difference, three FMAs for r^2 + eps^2, an
// rsqrt good to 2 ulp on the GPU, three products); a sum of N such terms in a fixed order adds
// errors that grow like sqrt(N) u S_i for rounding errors of random sign. The allowance is
// 4 u (10 + sqrt(N)) S_i per body: a probabilistic bound with a factor ~4 of margin, far below the
// deterministic worst case N u S_i. `worst` is the largest error / allowance over the bodies;
// `rel_rms` the norm-wise relative error (with cancellation |S| / |a| of order 10 in the test
// sets, expected below 10 x allowance / S).
struct ForceErrors {
  double worst = 0;
  std::size_t worst_body = 0;
  double rel_rms = 0;
  double allowance = 0;  // 4 u (10 + sqrt N)
  bool finite = true;
};
ForceErrors force_errors(const Accelerations<double>& got, const Particles<double>& p, const GravityParams& g,
                         Precision precision);

// Result of running a program: exit status, stdout and stderr.
struct ProcessResult {
  int status = -1;
  std::string out;
  std::string err;
};
// Runs the nbody program with `args` (a shell-quoted argument string).
ProcessResult run_nbody(const std::string& args);
// Runs the nbody program with `args` in a child process under a resource limit (setrlimit's
// `resource`, soft and hard), SIGXFSZ left at its default (killing) disposition as a shell gives it.
ProcessResult run_nbody_limited(const std::string& args, int resource, unsigned long long limit);
// The nbody program started in the background with `args` (a shell-quoted argument string),
// stdout and stderr to files; for tests that signal or kill a run.
struct Child {
  int pid = -1;
  std::string out_file, err_file;
};
Child start_nbody(const std::string& args, const std::string& log_dir);
// Waits for it: the exit status, or 128 + the signal that ended it. A child still running
// after `timeout_s` is killed with SIGKILL (and the test fails).
int wait_child(const Child& c, double timeout_s = 60);
std::string read_text(const std::string& path);
// Lines of text (without empty trailing line).
std::vector<std::string> lines(const std::string& text);
// A fresh empty directory for one test.
std::string temp_dir(const std::string& tag);
// The run `args` (without --steps and --out) twice: whole to `steps` steps into base/straight,
// and stopped after `first` steps in base/run, then resumed there to `steps`. The resumed run's
// result (its stdout says what ran); a run that fails is a test failure.
ProcessResult run_straight_and_resumed(const std::string& args, const std::string& base, int first, int steps);
// "1.234e-07": measured values for RecordProperty (std::to_string prints them as 0.000000).
std::string sci(double v);

}  // namespace nbody::test
