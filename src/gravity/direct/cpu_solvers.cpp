// The CPU direct sums as force solvers: each implements ForceSolver and nothing else.
#include "gravity/direct/cpu_solvers.hpp"

#include <omp.h>

#include <string>
#include <type_traits>

#include "gravity/direct/cpu_direct.hpp"
#include "gravity/snap_crackle.hpp"

namespace nbody {
namespace {

template <class T>
constexpr Precision precision_of() {
  return sizeof(T) == 4 ? Precision::fp32 : Precision::fp64;
}

SolverCapabilities with_snap_crackle(SolverCapabilities c, const GravityParams& g) {
  c.snap_crackle = gravity::has_snap_crackle(g);
  return c;
}

std::string cpu_device() { return "CPU, " + std::to_string(omp_get_max_threads()) + " OpenMP threads"; }

template <class T>
class ReferenceSolver final : public ForceSolver<T> {
 public:
  explicit ReferenceSolver(const GravityParams& g) : ForceSolver<T>(g) {}
  std::string name() const override { return "reference"; }
  std::string kernel() const override { return "direct float64 reference"; }
  std::string device() const override { return cpu_device(); }
  Location location() const override { return Location::host(); }
  Precision precision() const override { return precision_of<T>(); }
  SolverCapabilities capabilities() const override { return with_snap_crackle({true, true, false}, this->gravity()); }
  double potential_energy(const SourceView<T>& s) override { return direct::reference_potential_energy(s, this->gravity()); }

 protected:
  void do_accelerations(const TargetView<T>& t, const SourceView<T>& s, Vec3Span<T> out) override {
    direct::reference_accelerations(t, s, out, this->gravity());
  }
  void do_acc_jerk(const IndexView& t, const MotionView<T>& s, Vec3Span<T> acc, Vec3Span<T> jerk) override {
    direct::reference_acc_jerk(t, s, acc, jerk, this->gravity());
  }
  void do_snap_crackle(const MotionView<T>& s, ConstVec3Span<T> a, ConstVec3Span<T> j, int first, int count,
                       Vec3Span<T> snap, Vec3Span<T> crackle) override {
    direct::reference_snap_crackle(s, a, j, first, count, snap, crackle, this->gravity());
  }
};

template <class T>
class CpuDirectSolver final : public ForceSolver<T> {
 public:
  CpuDirectSolver(const GravityParams& g, bool mixed) : ForceSolver<T>(g), mixed_(mixed) {}
  std::string name() const override { return "direct"; }
  std::string kernel() const override { return "direct simd " + std::string(to_string(precision())); }
  std::string device() const override { return cpu_device(); }
  Location location() const override { return Location::host(); }
  Precision precision() const override { return mixed_ ? Precision::mixed : precision_of<T>(); }
  SolverCapabilities capabilities() const override { return with_snap_crackle({true, true, false}, this->gravity()); }
  double potential_energy(const SourceView<T>& s) override { return direct::simd_potential_energy(s, this->gravity()); }

 protected:
  void do_accelerations(const TargetView<T>& t, const SourceView<T>& s, Vec3Span<T> out) override {
    if constexpr (std::is_same_v<T, double>) {
      if (mixed_) {
        direct::simd_accelerations_mixed(t, s, out, this->gravity());
        return;
      }
    }
    direct::simd_accelerations(t, s, out, this->gravity());
  }
  void do_acc_jerk(const IndexView& t, const MotionView<T>& s, Vec3Span<T> acc, Vec3Span<T> jerk) override {
    direct::simd_acc_jerk(t, s, acc, jerk, this->gravity());
  }
  void do_snap_crackle(const MotionView<T>& s, ConstVec3Span<T> a, ConstVec3Span<T> j, int first, int count,
                       Vec3Span<T> snap, Vec3Span<T> crackle) override {
    direct::reference_snap_crackle(s, a, j, first, count, snap, crackle, this->gravity());
  }

 private:
  bool mixed_;
};

}  // namespace

template <class T>
std::unique_ptr<ForceSolver<T>> make_reference_solver(const GravityParams& g) {
  return std::make_unique<ReferenceSolver<T>>(g);
}

template <class T>
std::unique_ptr<ForceSolver<T>> make_cpu_direct_solver(const GravityParams& g, bool mixed) {
  if (mixed && sizeof(T) != 8) throw_runtime_error("mixed precision keeps the state in float64");
  return std::make_unique<CpuDirectSolver<T>>(g, mixed);
}

template std::unique_ptr<ForceSolver<float>> make_reference_solver<float>(const GravityParams&);
template std::unique_ptr<ForceSolver<double>> make_reference_solver<double>(const GravityParams&);
template std::unique_ptr<ForceSolver<float>> make_cpu_direct_solver<float>(const GravityParams&, bool);
template std::unique_ptr<ForceSolver<double>> make_cpu_direct_solver<double>(const GravityParams&, bool);

}  // namespace nbody
