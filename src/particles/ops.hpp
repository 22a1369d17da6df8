#pragma once
// Element-wise work on the views of a store, done where the store lives: kicks, drifts, the sums
// of the diagnostics, max |a|, the Hermite predictor and corrector. One implementation
// (particles/ops_impl.hpp) over the functors of particles/functors.hpp and
// particles/hermite_functors.hpp, instantiated with a host executor (OpenMP loops) and a CUDA
// executor (grid-stride kernels on the store's stream).
#include <functional>
#include <memory>
#include <span>

#include "nbody/diagnostics.hpp"
#include "particles/functors.hpp"
#include "particles/hermite_functors.hpp"
#include "particles/memory.hpp"

namespace nbody {

template <class T>
class ParticleOps {
 public:
  virtual ~ParticleOps() = default;
  [[nodiscard]] virtual Location location() const = 0;

  // v += a dt; x += v dt.
  virtual void kick(ParticleView<T> p, ConstVec3Span<T> a, double dt) = 0;
  virtual void drift(ParticleView<T> p, double dt) = 0;
  // Sums over the bodies in float64, in an order fixed by n alone (the same bits on every run).
  [[nodiscard]] virtual Moments moments(ParticleView<T> p) = 0;
  // max_i |a_i| over n bodies.
  [[nodiscard]] virtual double max_norm(ConstVec3Span<T> a, int n) = 0;
  // Float32 copies of positions (and masses when m is not null).
  virtual void round_to_float(SourceView<double> from, Vec3Span<float> x, float* m) = 0;

  // The Hermite predictor of every body to time t; the start and the corrector of the active
  // bodies (h.active), writing their next steps to h.dt_next when it is not null.
  virtual void hermite_predict(const particles::HermiteFields<T>& h, double t) = 0;
  virtual void hermite_start(const particles::HermiteFields<T>& h, double eta) = 0;
  // The start with Aarseth's criterion from the k-th active body's snap[k] and crackle[k].
  virtual void hermite_start_with_derivatives(const particles::HermiteFields<T>& h, ConstVec3Span<T> snap,
                                              ConstVec3Span<T> crackle, double eta) = 0;
  virtual void hermite_correct(const particles::HermiteFields<T>& h, double t, double eta) = 0;
  // The block-step schedule (particles::HermiteSchedule), where the store lives:
  //   next block: the earliest step end of any body and how many bodies end there (the one
  //     value a block step sends to the host);
  //   select: the indices of those bodies, ascending, into index[0, count);
  //   start levels / next levels: the levels of the active bodies from their steps (the
  //     criterion of the k-th active body in steps[k]), the latter also setting their time to now;
  //   share finest: every body on the finest level of any (shared steps).
  [[nodiscard]] virtual particles::BlockTime hermite_next_block(const particles::HermiteSchedule& s) = 0;
  // A block step's preparation in one call: the next block (as hermite_next_block), every body
  // predicted to its time (next x tick) and its active bodies selected into index[0, count). On
  // a GPU the prediction and the selection read the block time on the device and are queued
  // before the host waits for it, so they run while the value travels.
  [[nodiscard]] virtual particles::BlockTime hermite_prepare_block(const particles::HermiteFields<T>& h,
                                                                   const particles::HermiteSchedule& s, double tick,
                                                                   std::int32_t* index) = 0;
  virtual void hermite_select(const particles::HermiteSchedule& s, std::int64_t next, std::int32_t* index,
                              int count) = 0;
  virtual void hermite_start_levels(const particles::HermiteSchedule& s, IndexView active, const double* steps,
                                    double dt) = 0;
  virtual void hermite_next_levels(const particles::HermiteSchedule& s, IndexView active, const double* steps,
                                   std::int64_t now, double dt) = 0;
  virtual void hermite_share_finest(const particles::HermiteSchedule& s) = 0;
  // The block steps of an interval of `dt` (tick = dt / 2^kMaxLevel) as one loop where the store
  // lives, or null where there is none (the host runs the loop itself). Each block step: the
  // next block time (StepEnd), the prediction of every body to it, the selection of its active
  // bodies into index (h.active.index) with their count where the store lives, `pass(count)` (the force
  // pass for the targets index[0, *count) into h.a1, h.j1), the corrector with Aarseth's
  // criterion (eta) into h.dt_next, the next levels, with `share` every body on the finest; the
  // same operations as the host's loop, so the same bits. `pass` is called while the loop is
  // made, not when it runs; what it and the loop need is allocated before.
  [[nodiscard]] virtual std::unique_ptr<particles::BlockLoop> hermite_block_loop(
      const particles::HermiteFields<T>& h, const particles::HermiteSchedule& s, std::int32_t* index, double tick,
      double dt, double eta, bool share, const std::function<void(const int* count)>& pass) = 0;
  virtual void fill(double* values, double value, int n) = 0;
  virtual void fill_ticks(std::int64_t* values, std::int64_t value, int n) = 0;
  virtual void iota(std::int32_t* values, int n) = 0;

  // Waits for queued work (device); a no-op on the host.
  virtual void synchronize() = 0;
  // Runs `work` and returns its duration in seconds on this location's clock (CUDA events on
  // the stream for a device, a steady clock on the host).
  [[nodiscard]] virtual double measure_seconds(const std::function<void()>& work) = 0;
};

template <class T>
[[nodiscard]] std::unique_ptr<ParticleOps<T>> make_host_ops();
// Device ops on `stream` of CUDA device `ordinal` (CUDA builds only).
template <class T>
[[nodiscard]] std::unique_ptr<ParticleOps<T>> make_device_ops(int ordinal, StreamHandle stream);

}  // namespace nbody
