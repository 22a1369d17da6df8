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
// Levels follow the usual block-step rules (e.g. Aarseth 2003, "Gravitational N-body
// simulations", ch. 2): after a correction at time t the level is the finest whose step does
// not exceed Aarseth's criterion, deepened as far as needed at once; it is made one level
// coarser (the step doubled) only when the criterion allows twice the present step and t is
// a multiple of the doubled step, so that every particle's time stays a multiple of its step
// and all particles meet again at the end of the interval. The first step of each particle is
// eta |a| / |j|.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <span>
#include <vector>

#include "integrate/integrator.hpp"
#include "nbody/error.hpp"
#include "particles/hermite_functors.hpp"

namespace nbody {
namespace {

constexpr int kMaxLevel = 40;  // the shortest step is dt / 2^40
constexpr std::int64_t kTicks = std::int64_t(1) << kMaxLevel;

constexpr std::int64_t ticks_of(int level) { return std::int64_t(1) << (kMaxLevel - level); }

// The coarsest level whose step dt / 2^level does not exceed `step` (NaN or +inf: level 0).
int level_for(double step, double dt) {
  int level = 0;
  while (level < kMaxLevel && std::ldexp(dt, -level) > step) ++level;
  return level;
}

// The Hermite state of a system: per body the jerk and the body's own time t_i as store fields
// (the acceleration a_i at t_i is the system's acceleration field), and scratch where the store
// lives for the prediction of every body, the compact results of the force pass, the active
// indices and the next steps.
template <class T>
class HermiteState {
 public:
  // Bytes per body beyond the store's core fields and accelerations.
  static constexpr std::size_t kBytesPerBody = 15 * sizeof(T) + 2 * sizeof(double) + sizeof(std::int32_t);

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
    for (auto* a : {&xp_, &yp_, &zp_, &vxp_, &vyp_, &vzp_, &ax1_, &ay1_, &az1_, &jx1_, &jy1_, &jz1_}) {
      *a = Array<T>(at, n);
    }
    h_.xp = {xp_.data(), yp_.data(), zp_.data()};
    h_.vp = {vxp_.data(), vyp_.data(), vzp_.data()};
    h_.a1 = {ax1_.data(), ay1_.data(), az1_.data()};
    h_.j1 = {jx1_.data(), jy1_.data(), jz1_.data()};
    index_ = Array<std::int32_t>(at, n);
    dt_ = Array<double>(at, n);
    h_.active = {index_.data(), 0};
  }

  // t_i := t for every body.
  void set_times(double t) { s_.ops().fill(h_.t, t, h_.p.n); }
  // xp, vp of every body at time t >= t_i.
  void predict(double t) { s_.ops().hermite_predict(h_, t); }
  // The bodies the next force pass, start or correction acts on (ascending indices).
  void set_active(std::span<const std::int32_t> targets) {
    copy_bytes(index_.data(), index_.location(), targets.data(), Location::host(), targets.size_bytes(),
               s_.store().stream());
    h_.active.count = static_cast<int>(targets.size());
    all_active_ = false;
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
  // a, j := the force pass's values (the active bodies at the predicted time); dt_next[k] =
  // eta |a| / |j| of the k-th active body (when not empty).
  void start(double eta, std::span<double> dt_next) {
    particles::HermiteFields<T> h = with_steps(dt_next);
    s_.ops().hermite_start(h, eta);
    fetch_steps(dt_next);
    s_.invalidate_accelerations();
  }
  // The corrector of every active body to time t; dt_next[k] = Aarseth's step (when not empty).
  void correct(double t, double eta, std::span<double> dt_next) {
    particles::HermiteFields<T> h = with_steps(dt_next);
    s_.ops().hermite_correct(h, t, eta);
    fetch_steps(dt_next);
    s_.invalidate_accelerations();
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
  particles::HermiteFields<T> with_steps(std::span<double> dt_next) {
    if (!dt_next.empty() && dt_next.size() != std::size_t(h_.active.count)) {
      throw_runtime_error("Hermite step output of " + std::to_string(dt_next.size()) + " entries for " +
                          std::to_string(h_.active.count) + " active particles");
    }
    particles::HermiteFields<T> h = h_;
    h.dt_next = dt_next.empty() ? nullptr : dt_.data();
    return h;
  }
  void fetch_steps(std::span<double> dt_next) {
    if (dt_next.empty()) return;
    copy_bytes(dt_next.data(), Location::host(), dt_.data(), dt_.location(), dt_next.size_bytes(),
               s_.store().stream());
  }

  System<T>& s_;
  particles::HermiteFields<T> h_{};
  Array<T> xp_, yp_, zp_, vxp_, vyp_, vzp_, ax1_, ay1_, az1_, jx1_, jy1_, jz1_;
  Array<std::int32_t> index_;
  Array<double> dt_;
  bool all_active_ = false;
};

template <class T>
class Hermite4 final : public Integrator<T> {
 public:
  explicit Hermite4(const IntegratorOptions& o) : mode_(o.mode), eta_(o.eta) {}

  std::string name() const override { return "hermite4"; }
  void prepare(System<T>& s) override {
    if (!s.solver().capabilities().jerk) {
      throw_input_error("integrator: hermite4 needs jerks, which gravity " + s.solver().name() + " does not compute");
    }
    state(s);
  }

  std::vector<std::int32_t> particle_state() const override { return started_ ? level_ : std::vector<std::int32_t>{}; }
  void restore_particle_state(std::vector<std::int32_t> state) override {
    level_ = std::move(state);
    started_ = !level_.empty();
  }

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
    started_ = true;
  }

  void step(System<T>& s, double dt) override {
    HermiteState<T>& b = state(s);
    b.set_times(0.0);
    if (!started_) start(b, s.size(), dt);
    if (mode_ == StepMode::fixed) {
      b.predict(dt);
      b.set_all_active();
      b.compute_acc_jerk();
      b.correct(dt, eta_, {});
      return;
    }
    const double tick = std::ldexp(dt, -kMaxLevel);
    const std::size_t n = s.size();
    last_.assign(n, 0);
    std::int64_t now = 0;
    while (now < kTicks) {
      std::int64_t next = kTicks;
      for (std::size_t i = 0; i < n; ++i) next = std::min(next, last_[i] + ticks_of(level_[i]));
      active_.clear();
      for (std::size_t i = 0; i < n; ++i) {
        if (last_[i] + ticks_of(level_[i]) == next) active_.push_back(static_cast<std::int32_t>(i));
      }
      const double t = double(next) * tick;
      b.predict(t);
      if (active_.size() == n) {
        b.set_all_active();
      } else {
        b.set_active(active_);
      }
      b.compute_acc_jerk();
      steps_.resize(active_.size());
      b.correct(t, eta_, steps_);
      update_levels(next, dt);
      now = next;
    }
  }

 private:
  void start(HermiteState<T>& b, std::size_t n, double dt) {
    b.predict(0.0);  // every particle is at time 0: the prediction is the state itself
    b.set_all_active();
    b.compute_acc_jerk();
    steps_.resize(n);
    b.start(eta_, mode_ == StepMode::fixed ? std::span<double>{} : std::span<double>(steps_));
    level_.assign(n, 0);
    if (mode_ != StepMode::fixed) {
      for (std::size_t i = 0; i < n; ++i) level_[i] = level_for(steps_[i], dt);
      if (mode_ == StepMode::automatic) share_finest_level();
    }
    started_ = true;
  }

  // The active particles (active_, their criteria in steps_) were corrected at tick `now`.
  void update_levels(std::int64_t now, double dt) {
    for (std::size_t k = 0; k < active_.size(); ++k) {
      const auto i = static_cast<std::size_t>(active_[k]);
      last_[i] = now;
      level_[i] = next_level(level_[i], steps_[k], now, dt);
    }
    if (mode_ == StepMode::automatic) share_finest_level();
  }

  static int next_level(int level, double criterion, std::int64_t now, double dt) {
    if (std::isnan(criterion)) criterion = HUGE_VAL;  // no force, no constraint
    const double step = std::ldexp(dt, -level);
    if (criterion < step) return std::max(level, level_for(criterion, dt));
    if (level > 0 && criterion >= 2.0 * step && now % ticks_of(level - 1) == 0) return level - 1;
    return level;
  }

  // Shared steps: all particles on the finest level any of them needs (they are all active at
  // every step, so they share times and the alignment rule holds for all alike).
  void share_finest_level() {
    const int finest = *std::max_element(level_.begin(), level_.end());
    std::fill(level_.begin(), level_.end(), finest);
  }

  // The state on the system this integrator steps (made on first use).
  HermiteState<T>& state(System<T>& s) {
    if (!state_ || state_system_ != &s) {
      state_ = std::make_unique<HermiteState<T>>(s);
      state_system_ = &s;
    }
    return *state_;
  }

  StepMode mode_;
  double eta_;
  std::unique_ptr<HermiteState<T>> state_;
  const System<T>* state_system_ = nullptr;
  bool started_ = false;
  std::vector<std::int32_t> level_;   // per particle: step = dt / 2^level
  std::vector<std::int64_t> last_;    // per particle: its time in ticks within the interval
  std::vector<std::int32_t> active_;  // the current block
  std::vector<double> steps_;         // the criterion of each active particle
};

}  // namespace

template <class T>
std::unique_ptr<Integrator<T>> make_hermite4(const IntegratorOptions& options) {
  require_step_mode(options, "hermite4", true, true);
  return std::make_unique<Hermite4<T>>(options);
}

NBODY_INSTANTIATE_INTEGRATOR(make_hermite4)

}  // namespace nbody
