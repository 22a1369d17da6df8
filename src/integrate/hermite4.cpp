// The fourth-order Hermite predictor-corrector (Makino & Aarseth 1992, PASJ 44, 141) with
// shared or individual block time steps. The physics of one particle (predictor, corrector,
// step criterion) is integrate/hermite_math.hpp and runs on the backend; this file only
// schedules: which particles are corrected at which time.
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

class Hermite4 final : public Integrator {
 public:
  explicit Hermite4(const IntegratorOptions& o) : mode_(o.mode), eta_(o.eta) {}

  std::string name() const override { return "hermite4"; }
  void prepare(BackendBase& b) override { b.reserve_hermite(); }

  std::vector<std::int32_t> particle_state() const override { return started_ ? level_ : std::vector<std::int32_t>{}; }
  void restore_particle_state(std::vector<std::int32_t> state) override {
    level_ = std::move(state);
    started_ = !level_.empty();
  }

  // Checkpoints: once started, each body's level and the backend's Hermite state (a and jerk
  // evaluated at the predicted positions, which the corrected positions do not reproduce).
  std::vector<std::uint8_t> save_state(BackendBase& b) override {
    if (!started_) return {};
    const std::uint64_t n = level_.size();
    std::vector<std::uint8_t> out(sizeof n + n * sizeof(std::int32_t));
    std::memcpy(out.data(), &n, sizeof n);
    std::memcpy(out.data() + sizeof n, level_.data(), n * sizeof(std::int32_t));
    const auto state = b.hermite_state_bytes();
    out.insert(out.end(), state.begin(), state.end());
    return out;
  }
  void restore_state(BackendBase& b, std::span<const std::uint8_t> bytes) override {
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
    b.restore_hermite_state_bytes(bytes.subspan(sizeof n + n * sizeof(std::int32_t)));
    started_ = true;
  }

  void step(BackendBase& b, double dt) override {
    b.set_particle_times(0.0);
    if (!started_) start(b, dt);
    if (mode_ == StepMode::fixed) {
      b.predict(dt);
      b.set_all_active();
      b.compute_acc_jerk();
      b.correct(dt, eta_, {});
      return;
    }
    const double tick = std::ldexp(dt, -kMaxLevel);
    const std::size_t n = b.size();
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
  void start(BackendBase& b, double dt) {
    const std::size_t n = b.size();
    b.predict(0.0);  // every particle is at time 0: the prediction is the state itself
    b.set_all_active();
    b.compute_acc_jerk();
    steps_.resize(n);
    b.start_hermite(eta_, mode_ == StepMode::fixed ? std::span<double>{} : std::span<double>(steps_));
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

  StepMode mode_;
  double eta_;
  bool started_ = false;
  std::vector<std::int32_t> level_;   // per particle: step = dt / 2^level
  std::vector<std::int64_t> last_;    // per particle: its time in ticks within the interval
  std::vector<std::int32_t> active_;  // the current block
  std::vector<double> steps_;         // the criterion of each active particle
};

}  // namespace

std::unique_ptr<Integrator> make_hermite4(const IntegratorOptions& options) {
  require_step_mode(options, "hermite4", true, true);
  return std::make_unique<Hermite4>(options);
}

}  // namespace nbody
