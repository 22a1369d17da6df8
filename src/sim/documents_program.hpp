#pragma once
// The source documents' simulation (the NVIDIA DLI 01-nbody program): N bodies with positions
// and velocities uniform in [-1, 1]^3, unit masses, G = 1, eps^2 = 1e-9, explicit Euler with
// dt = 0.01 for 10 steps. `nbody check` and the benchmark ladder both run it.
#include <cstdint>
#include <string>

#include "nbody/config.hpp"
#include "nbody/particles.hpp"

namespace nbody {

inline constexpr std::int64_t kDocumentsBodies = 4096;
inline constexpr std::int64_t kDocumentsSteps = 10;
inline constexpr double kDocumentsDt = 0.01;
inline constexpr double kDocumentsEps2 = 1e-9;
inline constexpr std::int64_t kDocumentsSeed = 42;

[[nodiscard]] RunConfig documents_program(std::int64_t n = kDocumentsBodies);

// Position errors of `p` against the float64 reference `ref` (same bodies, same order):
// e_i = |r_i - r_ref,i| / |r_ref,i|; their maximum, root mean square and median.
struct PositionErrors {
  double max_rel = 0;
  double rms_rel = 0;
  double median_rel = 0;
};
[[nodiscard]] PositionErrors position_errors(const Particles<double>& p, const Particles<double>& ref);

// The documents' program is chaotic: close encounters with eps^2 = 1e-9 amplify a rounding
// error by up to 1e6 within 10 steps for the few bodies that have one, so neither the maximum
// nor the RMS error (which those bodies dominate) separates "rounding" from "wrong". The check
// therefore (1) decides on the median error, which reflects the typical body, and (2) measures
// how much rounding alone moves it: the reference is rerun from initial conditions perturbed by
// delta = u max(1, sqrt(N / 4096)) (u the unit roundoff of the checked precision; the factor
// follows the rounding error of an N-term force sum beyond the documents' N), each value times
// 1 + delta r with r uniform in [-1, 1]. Measured at N = 1024 ... 16384: a correct fp32 backend
// lands at 0.8-1.2x that sensitivity, a correct fp64 one at 1-7x; a force wrong by one part in
// 1e4 lands at 200-450x. The tolerance is 20x the sensitivity.
inline constexpr double kCheckToleranceFactor = 20.0;

struct CheckResult {
  std::string backend;  // resolved name
  std::string device;
  std::string precision;
  std::int64_t n = 0;
  PositionErrors errors;       // backend against the float64 reference
  PositionErrors sensitivity;  // perturbed reference against the reference
  double tolerance = 0;        // on the median: kCheckToleranceFactor x sensitivity.median_rel
  bool correct = false;
};

// The float64 reference of the documents' program for one N and one checked precision: the
// initial state, the final state after kDocumentsSteps steps on cpu-reference, and the rounding
// sensitivity and tolerance described above. Computed once and compared with many runs.
struct DocumentsReference {
  std::int64_t n = 0;
  std::string precision;
  Particles<double> initial;
  Particles<double> final;
  PositionErrors sensitivity;
  double tolerance = 0;  // on the median relative position error
};
[[nodiscard]] DocumentsReference documents_reference(std::int64_t n, const std::string& precision);

// Each position and velocity times (1 + delta r), r uniform in [-1, 1] from `seed`.
[[nodiscard]] Particles<double> perturb(const Particles<double>& p, double delta, std::uint64_t seed);
// delta for a precision ("fp32", "fp64") and N, as described above.
[[nodiscard]] double check_perturbation(const std::string& precision, std::int64_t n);

// Runs the documents' program on `backend` in `precision` and on cpu-reference in float64, and
// compares the final positions against the tolerance above.
[[nodiscard]] CheckResult check_documents_program(const std::string& backend, const std::string& precision,
                                                  std::int64_t n);

}  // namespace nbody
