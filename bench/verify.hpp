#pragma once
// Verification of a rung before it is timed.
//  - N <= kTrajectoryCheckMaxN: the documents' check — the rung runs the whole program (10 steps)
//    from the shared initial state and its median relative position error must stay within 20x
//    the rounding sensitivity of the float64 reference (sim/documents_program.hpp).
//  - larger N (where a float64 reference trajectory would take hours): the rung runs one step and
//    its accelerations, recovered as (v1 - v0) / dt, are compared on 512 sampled bodies with the
//    float64 direct sum from the same (rounded) positions, each within the rounding bound
//    4 u (10 + sqrt N) S_i + 2 u (|v0| + |v1|) / dt + 2 u |a_i| (S_i: the sum of the magnitudes of
//    body i's terms; the tests derive the first part in tests/support.hpp, force_errors).
#include <cstdint>
#include <string>
#include <vector>

#include "bench.hpp"
#include "ladder/rung.hpp"
#include "sim/documents_program.hpp"

namespace nbody::bench {

inline constexpr std::int64_t kTrajectoryCheckMaxN = 16384;

// The float64 direct sum (G = 1, Plummer eps2, the masses of p) for `count` bodies spread evenly
// over p (index k is body k N / count), with S_i, the sum of the magnitudes of body i's terms, which
// rounding-error bounds scale with. Used by the verifier and by the tuner's force check.
struct SampledForces {
  std::vector<std::size_t> index;
  std::vector<double> ax, ay, az, s;
};
[[nodiscard]] SampledForces sampled_forces(const Particles<double>& p, std::size_t count, double eps2);

class Verifier {
 public:
  Verifier(std::int64_t n, Precision precision);
  [[nodiscard]] const Particles<double>& initial() const noexcept { return initial_; }
  // Runs the rung from the initial state and fills record.verified, .verification and, when the
  // check fails, .error. Returns the seconds per step that run took (a first estimate).
  double verify(Rung& rung, Record& record) const;

 private:
  std::int64_t n_;
  Precision precision_;
  Particles<double> initial_;
  bool trajectory_ = false;
  DocumentsReference reference_;           // trajectory check
  SampledForces sample_;                   // sampled force check (unit masses)
};

}  // namespace nbody::bench
