// The host executor of ParticleOps: OpenMP loops over the shared functors.
#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <string>

#include "core/parallel.hpp"
#include "nbody/error.hpp"
#include "particles/ops_impl.hpp"

namespace nbody {
namespace {

struct HostExecutor {
  static constexpr bool kLoopsWithoutHost = false;  // the host's loop is the integrator's own
  [[nodiscard]] Location location() const { return Location::host(); }

  template <class F>
  void for_each(int n, const F& f) const {
#pragma omp parallel for simd schedule(static) if (parallel_elements(n))
    for (int i = 0; i < n; ++i) f(i);
  }

  // Serial, in index order: the same bits for every thread count.
  template <int Q, class F>
  std::array<double, Q> sum(int n, const F& f) const {
    double q[Q] = {};
    for (int i = 0; i < n; ++i) f(i, q);
    std::array<double, Q> out{};
    std::copy(q, q + Q, out.begin());
    return out;
  }

  template <class F>
  double max(int n, const F& f) const {
    double worst = 0;
#pragma omp parallel for schedule(static) reduction(max : worst) if (parallel_elements(n))
    for (int i = 0; i < n; ++i) worst = std::max(worst, f(i));
    return worst;
  }

  // Serial: integers, so any order gives the same answer.
  template <class F>
  particles::BlockTime min_count(int n, const F& f) const {
    particles::BlockTime b;
    for (int i = 0; i < n; ++i) {
      const std::int64_t v = f(i);
      if (v < b.next) {
        b.next = v;
        b.count = 1;
      } else if (v == b.next) {
        ++b.count;
      }
    }
    return b;
  }

  // Computed at once; the pointer stays valid until the next call.
  template <class F>
  const long long* min_count_start(int n, const F& f) {
    last_ = min_count(n, f);
    next_ = last_.next;
    return &next_;
  }
  particles::BlockTime min_count_finish() const { return last_; }

  template <class F>
  void select(int n, const F& pred, std::int32_t* out, int count) const {
    int k = 0;
    for (int i = 0; i < n && (count < 0 || k < count); ++i) {
      if (pred(i)) out[k++] = i;
    }
    if (count >= 0 && k != count) {
      throw_runtime_error("hermite: " + std::to_string(k) + " active bodies where " + std::to_string(count) +
                          " were counted");
    }
  }

  void share_max(std::int32_t* v, int n) const {
    if (n == 0) return;
    const std::int32_t top = *std::max_element(v, v + n);
    std::fill(v, v + n, top);
  }

  void synchronize() const {}
  double measure_seconds(const std::function<void()>& work) const {
    const auto t0 = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

 private:
  particles::BlockTime last_;  // of the last min_count_start
  long long next_ = 0;
};

}  // namespace

template <class T>
std::unique_ptr<ParticleOps<T>> make_host_ops() {
  return std::make_unique<particles::OpsImpl<T, HostExecutor>>();
}

template std::unique_ptr<ParticleOps<float>> make_host_ops<float>();
template std::unique_ptr<ParticleOps<double>> make_host_ops<double>();

}  // namespace nbody
