// The CPU path: the systems shared among OpenMP threads (dynamic schedule: a system that stops
// early, or takes small adaptive steps, does not hold the others back), each integrated by
// system_step.hpp on the thread's own work arrays. Compiled without FMA contraction, as the
// CUDA kernel is (-fmad=false), so that both follow the same arithmetic.
#include <omp.h>

#include <vector>

#include "ensemble/backend.hpp"

namespace nbody::ensemble {
namespace {

struct HostExec {
  template <class F>
  void for_bodies(int n, F&& f) {
    for (int i = 0; i < n; ++i) f(i);
  }
  void sync() {}
};

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(int threads) : threads_(threads > 0 ? threads : omp_get_max_threads()) {}
  [[nodiscard]] std::string name() const override { return "CPU (" + std::to_string(threads_) + " threads)"; }

  void start(EnsembleStore& s, const Params& p) override {
    for_systems(s, [&](std::int64_t k, Scratch& work) {
      HostExec ex;
      start_system(system_ref(s, k, work), p, s.state[std::size_t(k)], ex);
    }, false);
  }
  void advance(EnsembleStore& s, const Params& p, double t_target) override {
    for_systems(s, [&](std::int64_t k, Scratch& work) {
      HostExec ex;
      advance_system(system_ref(s, k, work), p, s.state[std::size_t(k)], t_target, ex);
    }, true);
  }

 private:
  template <class F>
  void for_systems(EnsembleStore& s, F&& f, bool running_only) {
    std::vector<std::int64_t> work_list;
    work_list.reserve(std::size_t(s.systems()));
    for (std::int64_t k = 0; k < s.systems(); ++k)
      if (!running_only || s.state[std::size_t(k)].status == int(Outcome::running)) work_list.push_back(k);
    const auto count = std::int64_t(work_list.size());
    const int threads = count > 1 ? threads_ : 1;
#pragma omp parallel num_threads(threads)
    {
      Scratch work;
      work.reserve(std::size_t(s.largest_system()));
#pragma omp for schedule(dynamic, 4)
      for (std::int64_t q = 0; q < count; ++q) f(work_list[std::size_t(q)], work);
    }
  }
  int threads_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(int threads) { return std::make_unique<CpuBackend>(threads); }

void final_invariants(EnsembleStore& s, std::int64_t k, double eps2, double& e, double& l_norm) {
  Scratch work;
  HostExec ex;
  const SystemRef r = system_ref(s, k, work);
  e = energy(r, eps2, ex);
  double L[3];
  angular_momentum(r, L);
  l_norm = norm3(L);
}

}  // namespace nbody::ensemble
