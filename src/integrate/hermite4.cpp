// The fourth-order Hermite predictor-corrector (Makino & Aarseth 1992, PASJ 44, 141) with
// shared or individual block time steps. The physics of one particle (predictor, corrector,
// step criterion) is particles/hermite_math.hpp, run where the store lives by the shared
// functors (particles/hermite_functors.hpp); the acceleration and jerk of the active bodies
// come from the force solver (SolverCapabilities::jerk). This file keeps the per-body state in
// store fields and schedules which bodies are corrected at which time.
//
// One step of dt (Simulation::advance) is one "interval": every particle starts and ends it at
// the same time, and times inside it are measured from its start (set_particle_times(0)).
// A particle's step is dt / 2^level, level 0 ... kMaxLevel; its time is kept in integer ticks
// of dt / 2^kMaxLevel, so the bookkeeping is exact.
//
//   fixed: one Hermite step of dt for every particle (one evaluation of a and jerk).
//   auto:  shared steps: every particle takes the step of the most demanding one.
//   block: each particle its own level. A block step goes to the earliest end of any
//          particle's step; the particles whose step ends there (the active block) are
//          corrected, from forces of all particles predicted to that time.
//
// Levels follow the usual block-step rules (particles/hermite_levels.hpp). The first step of
// each particle is Aarseth's criterion with the snap and crackle of the start computed from the
// pairs (the solver's snap_crackle: Plummer softening), else eta |a| / |j|; at most dt / 4 either way.
//
// The whole block step runs where the store lives: the schedule (each body's level and time in
// ticks) is a pair of store-side arrays, the next block time is a reduction over the bodies,
// the active block is compacted there in index order, and the prediction, the force pass, the
// corrector and the new levels are element-wise operations or the solver's pass.
//
// On a GPU whose solver can take the active count from device memory (counted_jerk), the block
// steps of an interval are one loop on the device (ParticleOps::hermite_block_loop: a CUDA graph
// whose conditional node repeats the block step until the interval's end, made once per
// interval length): one launch and one wait an interval, the statistics counted on the device.
// Elsewhere (the CPU, the distributed solver) the host drives each block step: only the next
// block time and the size of its block reach it (the solver shapes its pass by the count). Both
// make the same operations in the same order: the same bits. The levels are copied to the host
// once per interval, for checkpoints.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <string>
#include <span>
#include <tuple>
#include <vector>

#include "integrate/integrator.hpp"
#include "nbody/error.hpp"
#include "particles/hermite_functors.hpp"
#include "particles/hermite_levels.hpp"

namespace nbody {
namespace {

using hermite::kTicks;
using particles::BlockTime;
static_assert(particles::BlockCounts::kBins == std::tuple_size_v<decltype(BlockStepStats::histogram)>,
              "the device's histogram has the statistics' bins");

// The Hermite state of a system: per body the jerk, the body's own time t_i and its level as
// store fields (the acceleration a_i at t_i is the system's acceleration field), and scratch
// where the store lives for the prediction of every body, the compact results of the force
// pass, the active indices, the next steps and each body's time in ticks within the interval.
template <class T>
class HermiteState {
 public:
  // Bytes per body beyond the store's core fields and accelerations.
  static constexpr std::size_t kBytesPerBody =
      15 * sizeof(T) + 2 * sizeof(double) + 2 * sizeof(std::int32_t) + sizeof(std::int64_t);

  explicit HermiteState(System<T>& s) : s_(s) {
    const std::size_t n = s.size();
    const Location at = s.store().location();
    if (!s.store().has_field("hermite.t")) {
      require_memory(at, n * kBytesPerBody, "n: " + std::to_string(n) + " bodies with the hermite4 state");
    }
    h_.p = s.view();
    h_.a = s.accelerations();
    h_.jerk = s.store().add_vec3("hermite.jerk");
    h_.t = s.store().template add_field<double>("hermite.t");
    schedule_.level = s.store().template add_field<std::int32_t>("hermite.level");
    for (auto* a : {&xp_, &yp_, &zp_, &vxp_, &vyp_, &vzp_, &ax1_, &ay1_, &az1_, &jx1_, &jy1_, &jz1_}) {
      *a = Array<T>(at, n);
    }
    h_.xp = {xp_.data(), yp_.data(), zp_.data()};
    h_.vp = {vxp_.data(), vyp_.data(), vzp_.data()};
    h_.a1 = {ax1_.data(), ay1_.data(), az1_.data()};
    h_.j1 = {jx1_.data(), jy1_.data(), jz1_.data()};
    index_ = Array<std::int32_t>(at, n);
    dt_ = Array<double>(at, n);
    last_ = Array<std::int64_t>(at, n);
    schedule_.last = last_.data();
    schedule_.n = static_cast<int>(n);
    h_.active = {index_.data(), 0};
  }

  // t_i := t for every body.
  void set_times(double t) { s_.ops().fill(h_.t, t, h_.p.n); }
  // xp, vp of every body at time t >= t_i.
  void predict(double t) { s_.ops().hermite_predict(h_, t); }
  // The next block step's time and active block: every body predicted to the earliest end of
  // any body's step, the bodies whose steps end there selected in ascending order (all of them:
  // the indices 0 ... n - 1). `tick` is dt / 2^kMaxLevel.
  BlockTime prepare_block(double tick) {
    const BlockTime block = s_.ops().hermite_prepare_block(h_, schedule_, tick, index_.data());
    h_.active.count = block.count;
    all_active_ = block.count == h_.p.n;
    return block;
  }
  void set_all_active() {
    if (!all_active_) s_.ops().iota(index_.data(), h_.p.n);
    all_active_ = true;
    h_.active.count = h_.p.n;
  }
  // a and jerk of the active bodies from the predicted state of all.
  void compute_acc_jerk() {
    s_.solver().acc_jerk(h_.active, {as_const(h_.xp), as_const(h_.vp), h_.p.m, h_.p.n}, h_.a1, h_.j1);
  }
  // a, j := the force pass's values (the active bodies at the predicted time); with `steps`, the
  // k-th active body's eta |a| / |j| into the step scratch.
  void start(double eta, bool steps) {
    s_.ops().hermite_start(with_steps(steps), eta);
    s_.invalidate_accelerations();
  }
  // Whether the solver gives snap and crackle for the start.
  bool starts_with_derivatives() const { return s_.solver().capabilities().snap_crackle; }
  // The start after a pass over every body (all active, in index order): a, j := the pass's
  // values, and each body's first step from Aarseth's criterion with the snap and crackle of
  // every body computed from the pass's a and j (the solver's snap_crackle, into the prediction
  // scratch, free until the next block step predicts).
  void start_with_derivatives(double eta) {
    const MotionView<T> bodies{as_const(h_.p.x), as_const(h_.p.v), h_.p.m, h_.p.n};
    s_.solver().snap_crackle(bodies, as_const(h_.a1), as_const(h_.j1), h_.xp, h_.vp);
    s_.ops().hermite_start_with_derivatives(with_steps(true), as_const(h_.xp), as_const(h_.vp), eta);
    s_.invalidate_accelerations();
  }
  // The corrector of every active body to time t; with `steps`, Aarseth's step into the scratch.
  void correct(double t, double eta, bool steps) {
    s_.ops().hermite_correct(with_steps(steps), t, eta);
    s_.invalidate_accelerations();
  }

  // The schedule: every body at tick 0; the first levels from the start's steps (all bodies
  // active); the levels after a correction at tick `now`; all on the finest (shared steps); the
  // earliest step end and its count.
  void reset_ticks() { s_.ops().fill_ticks(last_.data(), 0, h_.p.n); }
  void start_levels(double dt) { s_.ops().hermite_start_levels(schedule_, h_.active, dt_.data(), dt); }
  void next_levels(std::int64_t now, double dt) {
    s_.ops().hermite_next_levels(schedule_, h_.active, dt_.data(), now, dt);
  }
  void share_finest() { s_.ops().hermite_share_finest(schedule_); }
  int active_count() const { return h_.active.count; }

  // The block steps of an interval of dt as one loop where the store lives (made on first use
  // and for each new dt), or null where there is none. A loop that cannot be made (a device
  // or driver without conditional graph nodes) is reported once; the host loop takes over.
  particles::BlockLoop* block_loop(double dt, double eta, bool share) {
    if (loop_ && loop_dt_ == dt) return loop_.get();
    loop_.reset();
    if (!s_.solver().capabilities().counted_jerk || loop_failed_) return nullptr;
    const int n = h_.p.n;
    try {
      s_.solver().reserve_counted_jerk(n);
      const particles::HermiteFields<T> h = with_steps(true);
      loop_ = s_.ops().hermite_block_loop(
          h, schedule_, index_.data(), std::ldexp(dt, -hermite::kMaxLevel), dt, eta, share, [&](const int* count) {
            s_.solver().acc_jerk_counted(index_.data(), count, n, {as_const(h_.xp), as_const(h_.vp), h_.p.m, n}, h_.a1,
                                         h_.j1);
          });
    } catch (const Error& e) {
      std::fprintf(stderr, "hermite4: block steps driven by the host (no device loop: %s)\n", e.what());
      loop_failed_ = true;
      loop_.reset();
    }
    loop_dt_ = dt;
    all_active_ = false;  // the loop selects into the index array
    return loop_.get();
  }

  // The levels, to and from the host.
  void download_levels(std::vector<std::int32_t>& out) {
    out.resize(std::size_t(h_.p.n));
    copy_bytes(out.data(), Location::host(), schedule_.level, s_.store().location(),
               out.size() * sizeof(std::int32_t), s_.store().stream());
  }
  void upload_levels(const std::vector<std::int32_t>& in) {
    if (in.size() != std::size_t(h_.p.n)) {
      throw_input_error("checkpoint: " + std::to_string(in.size()) + " hermite4 levels for " +
                        std::to_string(h_.p.n) + " particles");
    }
    copy_bytes(schedule_.level, s_.store().location(), in.data(), Location::host(), in.size() * sizeof(std::int32_t),
               s_.store().stream());
  }

  // The state a checkpoint carries (count, a and jerk in T, times in float64), and back.
  std::vector<std::uint8_t> bytes() {
    const std::uint64_t n = std::uint64_t(h_.p.n);
    std::vector<std::uint8_t> out(sizeof n + n * (6 * sizeof(T) + sizeof(double)));
    std::uint8_t* p = out.data();
    std::memcpy(p, &n, sizeof n);
    p += sizeof n;
    const Location at = s_.store().location();
    for (T* field : {h_.a.x, h_.a.y, h_.a.z, h_.jerk.x, h_.jerk.y, h_.jerk.z}) {
      copy_bytes(p, Location::host(), field, at, n * sizeof(T), s_.store().stream());
      p += n * sizeof(T);
    }
    copy_bytes(p, Location::host(), h_.t, at, n * sizeof(double), s_.store().stream());
    return out;
  }
  void restore(std::span<const std::uint8_t> bytes) {
    std::uint64_t n = 0;
    if (bytes.size() >= sizeof n) std::memcpy(&n, bytes.data(), sizeof n);
    if (n != std::uint64_t(h_.p.n) || bytes.size() != sizeof n + n * (6 * sizeof(T) + sizeof(double))) {
      throw_input_error("checkpoint: the Hermite state does not match " + std::to_string(h_.p.n) + " particles");
    }
    const std::uint8_t* p = bytes.data() + sizeof n;
    const Location at = s_.store().location();
    for (T* field : {h_.a.x, h_.a.y, h_.a.z, h_.jerk.x, h_.jerk.y, h_.jerk.z}) {
      copy_bytes(field, at, p, Location::host(), n * sizeof(T), s_.store().stream());
      p += n * sizeof(T);
    }
    copy_bytes(h_.t, at, p, Location::host(), n * sizeof(double), s_.store().stream());
    s_.invalidate_accelerations();
  }

 private:
  particles::HermiteFields<T> with_steps(bool steps) const {
    particles::HermiteFields<T> h = h_;
    h.dt_next = steps ? const_cast<double*>(dt_.data()) : nullptr;
    return h;
  }

  System<T>& s_;
  particles::HermiteFields<T> h_{};
  particles::HermiteSchedule schedule_{};
  Array<T> xp_, yp_, zp_, vxp_, vyp_, vzp_, ax1_, ay1_, az1_, jx1_, jy1_, jz1_;
  Array<std::int32_t> index_;
  Array<double> dt_;
  Array<std::int64_t> last_;
  bool all_active_ = false;
  std::unique_ptr<particles::BlockLoop> loop_;
  double loop_dt_ = 0;
  bool loop_failed_ = false;
};

template <class T>
class Hermite4 final : public Integrator<T> {
 public:
  explicit Hermite4(const IntegratorOptions& o) : mode_(o.mode), eta_(o.eta), device_loop_(o.device_loop) {}

  std::string name() const override { return "hermite4"; }
  void prepare(System<T>& s) override {
    if (!s.solver().capabilities().jerk) {
      throw_input_error("integrator: hermite4 needs jerks, which gravity " + s.solver().name() + " does not compute");
    }
    state(s);
  }

  // Each body's level, as of the end of the last step (copied from where the store lives once
  // per step).
  std::vector<std::int32_t> particle_state() const override { return started_ ? level_ : std::vector<std::int32_t>{}; }
  void restore_particle_state(std::vector<std::int32_t> state) override {
    level_ = std::move(state);
    started_ = !level_.empty();
    levels_to_upload_ = started_;
  }
  BlockStepStats block_stats() const override { return stats_; }

  // Checkpoints: once started, each body's level and the backend's Hermite state (a and jerk
  // evaluated at the predicted positions, which the corrected positions do not reproduce).
  std::vector<std::uint8_t> save_state(System<T>& b) override {
    if (!started_) return {};
    const std::uint64_t n = level_.size();
    std::vector<std::uint8_t> out(sizeof n + n * sizeof(std::int32_t));
    std::memcpy(out.data(), &n, sizeof n);
    std::memcpy(out.data() + sizeof n, level_.data(), n * sizeof(std::int32_t));
    const auto bytes = state(b).bytes();
    out.insert(out.end(), bytes.begin(), bytes.end());
    return out;
  }
  void restore_state(System<T>& b, std::span<const std::uint8_t> bytes) override {
    if (bytes.empty()) {  // checkpointed before the first step
      started_ = false;
      return;
    }
    std::uint64_t n = 0;
    if (bytes.size() >= sizeof n) std::memcpy(&n, bytes.data(), sizeof n);
    if (n != b.size() || bytes.size() < sizeof n + n * sizeof(std::int32_t)) {
      throw_input_error("checkpoint: the hermite4 state does not match " + std::to_string(b.size()) + " particles");
    }
    level_.resize(n);
    std::memcpy(level_.data(), bytes.data() + sizeof n, n * sizeof(std::int32_t));
    state(b).restore(bytes.subspan(sizeof n + n * sizeof(std::int32_t)));
    state(b).upload_levels(level_);
    levels_to_upload_ = false;
    started_ = true;
  }

  void step(System<T>& s, double dt) override {
    HermiteState<T>& b = state(s);
    b.set_times(0.0);
    if (!started_) {
      start(b, dt);
    } else if (levels_to_upload_) {
      b.upload_levels(level_);
      levels_to_upload_ = false;
    }
    if (mode_ == StepMode::fixed) {
      b.predict(dt);
      b.set_all_active();
      b.compute_acc_jerk();
      b.correct(dt, eta_, false);
      count_block(s.size());
      return;
    }
    const double tick = std::ldexp(dt, -hermite::kMaxLevel);
    b.reset_ticks();
    particles::BlockLoop* loop = device_loop_ ? b.block_loop(dt, eta_, mode_ == StepMode::automatic) : nullptr;
    if (loop != nullptr) {
      const particles::BlockCounts c = loop->run();  // every block step of the interval
      s.solver().count_counted_jerk(c.active, std::int64_t(s.size()));
      stats_.block_steps += c.block_steps;
      stats_.active += c.active;
      for (int k = 0; k < particles::BlockCounts::kBins; ++k) stats_.histogram[std::size_t(k)] += c.histogram[k];
      ++stats_.device_loops;
      b.download_levels(level_);
      return;
    }
    std::int64_t now = 0;
    while (now < kTicks) {
      const BlockTime block = b.prepare_block(tick);  // the one value the host waits for
      const double t = double(block.next) * tick;
      b.compute_acc_jerk();
      b.correct(t, eta_, true);
      b.next_levels(block.next, dt);
      if (mode_ == StepMode::automatic) b.share_finest();
      count_block(std::size_t(block.count));
      now = block.next;
    }
    b.download_levels(level_);
  }

 private:
  void start(HermiteState<T>& b, double dt) {
    b.predict(0.0);  // every particle is at time 0: the prediction is the state itself
    b.set_all_active();
    b.compute_acc_jerk();
    const bool steps = mode_ != StepMode::fixed;
    if (steps && b.starts_with_derivatives()) {
      b.start_with_derivatives(eta_);
    } else {
      b.start(eta_, steps);
    }
    if (steps) {
      b.start_levels(dt);
      if (mode_ == StepMode::automatic) b.share_finest();
      b.download_levels(level_);
    } else {
      level_.assign(std::size_t(b.active_count()), 0);
    }
    levels_to_upload_ = false;
    started_ = true;
  }

  void count_block(std::size_t active) {
    ++stats_.block_steps;
    stats_.active += active;
    ++stats_.histogram[std::size_t(particles::block_bin(active))];
  }

  // The state on the system this integrator steps (made on first use).
  HermiteState<T>& state(System<T>& s) {
    if (!state_ || state_system_ != &s) {
      state_ = std::make_unique<HermiteState<T>>(s);
      state_system_ = &s;
      levels_to_upload_ = started_;
    }
    return *state_;
  }

  StepMode mode_;
  double eta_;
  bool device_loop_;
  std::unique_ptr<HermiteState<T>> state_;
  const System<T>* state_system_ = nullptr;
  bool started_ = false;
  bool levels_to_upload_ = false;  // level_ (restored) is newer than the store's copy
  std::vector<std::int32_t> level_;  // per particle: step = dt / 2^level, as of the last step's end
  BlockStepStats stats_;
};

}  // namespace

template <class T>
std::unique_ptr<Integrator<T>> make_hermite4(const IntegratorOptions& options) {
  require_step_mode(options, "hermite4", true, true);
  return std::make_unique<Hermite4<T>>(options);
}

NBODY_INSTANTIATE_INTEGRATOR(make_hermite4)

}  // namespace nbody
