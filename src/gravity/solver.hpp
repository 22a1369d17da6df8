#pragma once
// A force solver computes gravitational accelerations of a set of targets from a set of sources
// (and, where it can, potential energies and jerks), where its memory location says. It is the
// one thing a new gravity algorithm implements: the store, the element-wise operations, the
// integrators and the run loop are shared by every solver. Solvers count the target-source
// pairs they evaluate and describe their kernel for logs and benchmark records.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gravity/names.hpp"
#include "gravity/params.hpp"
#include "gravity/tree/params.hpp"
#include "nbody/checkpoint.hpp"
#include "nbody/error.hpp"
#include "nbody/precision.hpp"
#include "particles/memory.hpp"
#include "particles/views.hpp"

namespace nbody {
namespace comm {
class Communicator;
}

// What a solver can do beyond accelerations; checked when a configuration is validated (an
// integrator that needs jerks refuses a solver without them).
struct SolverCapabilities {
  bool potential = false;  // potential_energy
  bool jerk = false;       // acc_jerk (hermite4)
  bool euler_steps = false;  // fused Euler steps (an optimisation; Euler works with any solver)
  bool counted_jerk = false;  // acc_jerk_counted: the count read where the solver computes (a
                              // device's block-step loop; the solver queues on the store's stream)
  bool snap_crackle = false;  // snap_crackle (Hermite's first step; Plummer softening)
};

// The error of asking a solver for something its capabilities do not include.
[[noreturn]] inline void solver_lacks(const std::string& solver, const std::string& what) {
  throw_runtime_error("gravity " + solver + " does not compute " + what);
}

template <class T>
class ForceSolver {
 public:
  virtual ~ForceSolver() = default;

  [[nodiscard]] virtual std::string name() const = 0;      // "direct", "reference"
  [[nodiscard]] virtual std::string kernel() const = 0;    // "direct 128x4/s1 fp32", for logs and JSON
  [[nodiscard]] virtual std::string device() const = 0;    // what it runs on ("CPU, 2 OpenMP threads")
  [[nodiscard]] virtual Location location() const = 0;     // where the views it takes must point
  [[nodiscard]] virtual Precision precision() const = 0;   // of the pair arithmetic (mixed: float32 terms)
  [[nodiscard]] virtual SolverCapabilities capabilities() const = 0;
  [[nodiscard]] const GravityParams& gravity() const noexcept { return gravity_; }

  // out_i = G sum_j m_j d_ij g(|d_ij|) for every target i from every source j.
  void accelerations(const TargetView<T>& targets, const SourceView<T>& sources, Vec3Span<T> out) {
    do_accelerations(targets, sources, out);
    count(targets.n, sources.n);
  }
  // W = 1/2 sum_i m_i phi_i of the sources (each body's own term left out).
  [[nodiscard]] virtual double potential_energy(const SourceView<T>& sources) {
    (void)sources;
    solver_lacks(name(), "potential energies");
  }
  // phi_i = G sum_{j != i} m_j phi(|d_ij|) of every source (each body's own term left out),
  // copied to the host in the sources' order, for snapshots (--snapshot-fields pot). The tree
  // computes them; the direct sums give the potential energy only.
  [[nodiscard]] virtual std::vector<double> potentials(const SourceView<T>& sources) {
    (void)sources;
    solver_lacks(name(), "per-body potentials");
  }
  // Acceleration and jerk of the targets (bodies of `sources` by index) from every source,
  // compact: entry k is target index[k]. The target's own term is left out.
  void acc_jerk(const IndexView& targets, const MotionView<T>& sources, Vec3Span<T> acc, Vec3Span<T> jerk) {
    do_acc_jerk(targets, sources, acc, jerk);
    count(targets.count, sources.n);
  }
  // The same pass for a count that lives where the solver computes: the targets index[0, *count),
  // at most `max_count` of them, queued without the host knowing *count (a device's block-step
  // loop, captured into a graph; capabilities().counted_jerk). The same bits as acc_jerk for the
  // same targets. It allocates nothing: reserve_counted_jerk(sources) once before, outside any
  // capture. Not counted in interactions(): count_counted_jerk adds the passes' pairs once the
  // host knows how many targets they had.
  void acc_jerk_counted(const std::int32_t* index, const int* count, int max_count, const MotionView<T>& sources,
                        Vec3Span<T> acc, Vec3Span<T> jerk) {
    do_acc_jerk_counted(index, count, max_count, sources, acc, jerk);
  }
  virtual void reserve_counted_jerk(std::int64_t sources) { (void)sources; }
  // Snap and crackle (the second and third time derivatives of the acceleration) of the bodies
  // first ... first + count - 1 of `sources` (count < 0: to the last) from every other, given
  // every body's acceleration and jerk (a pass over all of them, in the sources' order), into
  // entries [first, first + count) of snap and crackle: what Hermite's first step needs for
  // Aarseth's criterion (capabilities().snap_crackle). Float64 pair terms
  // (gravity/snap_crackle.hpp); once a run, so not counted in interactions().
  void snap_crackle(const MotionView<T>& sources, ConstVec3Span<T> acc, ConstVec3Span<T> jerk, Vec3Span<T> snap,
                    Vec3Span<T> crackle, int first = 0, int count = -1) {
    if (count < 0) count = sources.n - first;
    do_snap_crackle(sources, acc, jerk, first, count, snap, crackle);
  }
  void count_counted_jerk(std::uint64_t targets, std::int64_t sources) noexcept {
    interactions_ += targets * std::uint64_t(sources);
  }
  // `count` of the documents' Euler steps (v += a(x) dt, then x += v dt) of the bodies of p,
  // fused into the force pass; the same bits as separate passes of this solver. Only where
  // capabilities().euler_steps.
  void euler_steps(const ParticleView<T>& p, double dt, std::int64_t count_steps) {
    do_euler_steps(p, dt, count_steps);
    for (std::int64_t k = 0; k < count_steps; ++k) count(p.n, p.n);
  }

  // State a solver carries from one pass into the next that changes what the next pass computes
  // (the tree's relative criterion: the previous pass's |a| of every body), for checkpoints: a
  // resumed run then makes the passes the uninterrupted one made. Empty (no tag): none.
  //
  // `repeats_last_pass`: whether the resumed run's first pass is the last pass made again. A
  // checkpoint holds no accelerations: where the integrator ends a step with the accelerations
  // at the current positions and uses them in the next step (leapfrog, yoshida4: the system's
  // accelerations are current), the resumed run recomputes them, at the same positions, as its
  // first pass, and for the same bits that pass must start from the state the last pass started
  // from, not the one it left. Otherwise (euler, whose steps start with a pass at the new
  // positions; a checkpoint before the first step) the first pass is the next one, and it starts
  // from the state the last pass left. Where the state the last pass started from is "none"
  // (it was the first), nothing is saved: the repeated pass starts from none too.
  [[nodiscard]] virtual TaggedBlob save_state(bool repeats_last_pass) const {
    (void)repeats_last_pass;
    return {};
  }
  // Takes what save_state() gave, for n bodies: the state the resumed run's first pass starts
  // from. State of another tag (a run continued with other physics) is ignored; state of its own
  // tag that does not fit n bodies is an input error.
  virtual void restore_state(const TaggedBlob& state, std::size_t n) { (void)state, (void)n; }
  // After a pass over several ranks gathered every rank's block of `targets` into `out`: a solver
  // that keeps per-body state from its passes (save_state) keeps it for every body, so that the
  // state rank 0 saves is the whole run's, not its block's.
  virtual void gathered(const TargetView<T>& targets, const SourceView<T>& sources, Vec3Span<T> out) {
    (void)targets, (void)sources, (void)out;
  }

  // Target-source pairs evaluated so far (the i = j pair included: targets x sources a pass; an
  // approximate method such as the tree counts the terms it evaluated, see pass_terms).
  [[nodiscard]] std::uint64_t interactions() const noexcept { return interactions_; }
  // Whether a pass's count is its targets x sources (pass_terms' default), so that a pass split
  // over ranks counts the whole pass without asking the other ranks.
  [[nodiscard]] virtual bool counts_pairs() const noexcept { return true; }

 protected:
  explicit ForceSolver(const GravityParams& g) : gravity_(g) {}
  virtual void do_accelerations(const TargetView<T>& targets, const SourceView<T>& sources, Vec3Span<T> out) = 0;
  virtual void do_acc_jerk(const IndexView& targets, const MotionView<T>& sources, Vec3Span<T> acc,
                           Vec3Span<T> jerk) {
    (void)targets, (void)sources, (void)acc, (void)jerk;
    unsupported("jerks");
  }
  virtual void do_acc_jerk_counted(const std::int32_t* index, const int* count, int max_count,
                                   const MotionView<T>& sources, Vec3Span<T> acc, Vec3Span<T> jerk) {
    (void)index, (void)count, (void)max_count, (void)sources, (void)acc, (void)jerk;
    unsupported("jerks for a count on the device");
  }
  virtual void do_snap_crackle(const MotionView<T>& sources, ConstVec3Span<T> acc, ConstVec3Span<T> jerk, int first,
                               int count, Vec3Span<T> snap, Vec3Span<T> crackle) {
    (void)sources, (void)acc, (void)jerk, (void)first, (void)count, (void)snap, (void)crackle;
    unsupported("snap and crackle");
  }
  virtual void do_euler_steps(const ParticleView<T>& p, double dt, std::int64_t count_steps) {
    (void)p, (void)dt, (void)count_steps;
    unsupported("fused Euler steps");
  }
  [[noreturn]] void unsupported(const std::string& what) const { solver_lacks(name(), what); }
  // The terms the pass just made evaluated, for interactions(): every target-source pair (a
  // direct sum); the tree overrides it with its multipole and pair terms.
  [[nodiscard]] virtual std::uint64_t pass_terms(std::int64_t targets, std::int64_t sources) const noexcept {
    return std::uint64_t(targets) * std::uint64_t(sources);
  }

 private:
  void count(std::int64_t targets, std::int64_t sources) noexcept {
    interactions_ += pass_terms(targets, sources);
  }
  GravityParams gravity_;
  std::uint64_t interactions_ = 0;
};

// What a solver needs to be made: the choice (device resolved), the arithmetic, n, the gravity
// parameters, and for benchmarks and tests a launch shape of the CUDA direct sum.
struct SolverRequest {
  SolverChoice choice;  // device "cpu" or "cuda" (not "auto"), gravity "direct", "reference" or "tree"
  int ordinal = 0;      // the CUDA device, for device "cuda"
  Precision precision = Precision::fp32;
  std::size_t n = 0;
  GravityParams gravity;
  std::string kernel_shape;  // cuda direct only; empty: the launch policy's choice
  gravity::tree::TreeParams tree;  // gravity "tree" only: opening criterion, leaf and group sizes
  // Bytes the caller allocates beside the solver in the same memory (the store): the solver's
  // memory check covers both, before anything is allocated.
  std::size_t other_bytes = 0;
  // The ranks the force passes are spread over (gravity/direct/distributed.hpp); null or one
  // rank: this process alone. transport: how a GPU run moves device buffers between ranks
  // ("auto": NCCL when built, else staged through the host; "nccl"; "host").
  std::shared_ptr<comm::Communicator> comm;
  std::string transport = "auto";
  // How the ranks exchange the accelerations (distributed.hpp): "gather" or "pipelined" in
  // `exchange_chunks` pieces.
  std::string exchange = "gather";
  int exchange_chunks = 4;
};

class DeviceContext;

// The solver for a request (T = float for fp32, double for fp64 and mixed). Throws an input
// error for a combination that does not exist or does not fit in memory. `device` is the
// context of device solvers (null for the CPU).
template <class T>
[[nodiscard]] std::unique_ptr<ForceSolver<T>> make_solver(const SolverRequest& request,
                                                          const std::shared_ptr<DeviceContext>& device);

}  // namespace nbody
