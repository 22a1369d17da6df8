#pragma once
// ParticleOps written once over an executor, which supplies the loops:
//   for_each(n, f)            f(i) for i < n (in parallel where it pays)
//   sum<Q>(n, f) -> array     sum over i of the Q terms f(i, q) adds, in float64, order fixed by n
//   max(n, f) -> double       max over i of f(i) (>= 0)
//   min_count(n, f) -> BlockTime  the least of the integers f(i) and how many i give it
//   min_count_start(n, f) -> const long long*  the same, begun: a pointer (where the executor
//                             computes) to the least value, valid for work queued after it;
//   min_count_finish() -> BlockTime             waits for it
//   select(n, pred, out, count)   the i with pred(i), ascending, into out (count of them; -1:
//                             not known yet)
//   share_max(v, n)           v[i] := max over v (int32), without a trip to the host
// and, where the executor can loop without the host (a device's graphs):
//   kLoopsWithoutHost         true where it can:
//   make_loop(n, end, body) -> unique_ptr<BlockLoop>   each round: the least end(i) over
//                             i < n, then body(next, count) (next: where the executor computes;
//                             count: the count for_each_select writes there), repeated from one launch
//                             while *next < kTicks; body is called once, while the loop is made
//   for_each_select(n, f, pred, out)  f(i) for i < n, and the i with pred(i) into out in no fixed
//                             order, counted where select counts (zero on entry: the loop's
//                             count is zero when each round's body starts)
//   for_each_counted(count, most, f)  f(i) for i < *count (count where the executor computes)
//   synchronize(), measure_seconds(work), location()
// Included by particles/host_ops.cpp and cuda/device_ops.cu only.
#include <array>
#include <cmath>

#include "nbody/error.hpp"
#include "particles/ops.hpp"

namespace nbody::particles {

template <class T, class Exec>
class OpsImpl final : public ParticleOps<T> {
 public:
  template <class... Args>
  explicit OpsImpl(Args&&... args) : exec_(std::forward<Args>(args)...) {}

  Location location() const override { return exec_.location(); }

  void kick(ParticleView<T> p, ConstVec3Span<T> a, double dt) override {
    exec_.for_each(p.n, Kick<T>{p.v, a, static_cast<T>(dt)});
  }
  void drift(ParticleView<T> p, double dt) override {
    exec_.for_each(p.n, Drift<T>{p.x, as_const(p.v), static_cast<T>(dt)});
  }
  Moments moments(ParticleView<T> p) override {
    const auto q = exec_.template sum<MomentTerms<T>::kQuantities>(p.n, MomentTerms<T>{p});
    Moments mo;
    mo.mass = q[0];
    mo.kinetic = q[1];
    mo.momentum = {q[2], q[3], q[4]};
    mo.angular = {q[5], q[6], q[7]};
    mo.mass_moment = {q[8], q[9], q[10]};
    return mo;
  }
  double max_norm(ConstVec3Span<T> a, int n) override { return std::sqrt(exec_.max(n, SquaredNorm<T>{a})); }
  void round_to_float(SourceView<double> from, Vec3Span<float> x, float* m) override {
    exec_.for_each(from.n, RoundToFloat{from, x, m});
  }

  void hermite_predict(const HermiteFields<T>& h, double t) override { exec_.for_each(h.p.n, HermitePredict<T>{h, t}); }
  void hermite_start(const HermiteFields<T>& h, double eta) override {
    exec_.for_each(h.active.count, HermiteStart<T>{h, eta});
  }
  void hermite_start_with_derivatives(const HermiteFields<T>& h, ConstVec3Span<T> snap, ConstVec3Span<T> crackle,
                                      double eta) override {
    exec_.for_each(h.active.count, HermiteStartWithDerivatives<T>{h, snap, crackle, eta});
  }
  void hermite_correct(const HermiteFields<T>& h, double t, double eta) override {
    exec_.for_each(h.active.count, HermiteCorrect<T>{h, t, eta});
  }
  BlockTime hermite_next_block(const HermiteSchedule& s) override {
    return exec_.min_count(s.n, StepEnd{s.level, s.last});
  }
  BlockTime hermite_prepare_block(const HermiteFields<T>& h, const HermiteSchedule& s, double tick,
                                  std::int32_t* index) override {
    const long long* next = exec_.min_count_start(s.n, StepEnd{s.level, s.last});
    exec_.for_each(h.p.n, HermitePredictAtBlock<T>{h, next, tick});
    exec_.select(s.n, EndsAtBlock{{s.level, s.last}, next}, index, -1);
    return exec_.min_count_finish();
  }
  void hermite_select(const HermiteSchedule& s, std::int64_t next, std::int32_t* index, int count) override {
    exec_.select(s.n, EndsAt{{s.level, s.last}, next}, index, count);
  }
  void hermite_start_levels(const HermiteSchedule& s, IndexView active, const double* steps, double dt) override {
    exec_.for_each(active.count, StartLevel{s, active, steps, dt});
  }
  void hermite_next_levels(const HermiteSchedule& s, IndexView active, const double* steps, std::int64_t now,
                           double dt) override {
    exec_.for_each(active.count, NextLevel{s, active, steps, now, dt});
  }
  void hermite_share_finest(const HermiteSchedule& s) override { exec_.share_max(s.level, s.n); }
  std::unique_ptr<BlockLoop> hermite_block_loop(const HermiteFields<T>& h, const HermiteSchedule& s,
                                                std::int32_t* index, double tick, double dt, double eta, bool share,
                                                const std::function<void(const int* count)>& pass) override {
    if constexpr (Exec::kLoopsWithoutHost) {
      if (h.p.n != s.n) throw_runtime_error("hermite block loop: the schedule is not the store's bodies");
      auto step = [&](const long long* next, const int* count) {
        // every body predicted to the block time and the bodies whose step ends there selected,
        // in one pass (the active indices in no fixed order: nothing a body's step computes
        // depends on its place in the active set, so the bits are the host loop's)
        exec_.for_each_select(h.p.n, HermitePredictAtBlock<T>{h, next, tick}, EndsAtBlock{{s.level, s.last}, next},
                              index);
        pass(count);
        exec_.for_each_counted(count, s.n, CorrectAndLevelAtBlock<T>{h, s, next, tick, eta, dt});
        if (share) exec_.share_max(s.level, s.n);
      };
      return exec_.make_loop(s.n, StepEnd{s.level, s.last}, step);
    } else {
      (void)h, (void)s, (void)index, (void)tick, (void)dt, (void)eta, (void)share, (void)pass;
      return nullptr;
    }
  }
  void fill_ticks(std::int64_t* values, std::int64_t value, int n) override {
    exec_.for_each(n, Fill<std::int64_t>{values, value});
  }
  void fill(double* values, double value, int n) override { exec_.for_each(n, Fill<double>{values, value}); }
  void iota(std::int32_t* values, int n) override { exec_.for_each(n, Iota{values}); }

  void synchronize() override { exec_.synchronize(); }
  double measure_seconds(const std::function<void()>& work) override { return exec_.measure_seconds(work); }

 private:
  Exec exec_;
};

}  // namespace nbody::particles
