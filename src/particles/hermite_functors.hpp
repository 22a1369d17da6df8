#pragma once
// The fourth-order Hermite integrator's element-wise steps as __host__ __device__ functors over
// particle views: the predictor, the corrector and the start, run by the host loops and the CUDA
// kernels alike (ParticleOps::hermite_*), the scheme of one body in particles/hermite_math.hpp.
#include "particles/hermite_levels.hpp"
#include "particles/hermite_math.hpp"
#include "particles/views.hpp"

namespace nbody::particles {

// The Hermite integrator's per-body state besides x and v: a and jerk at the body's own time
// t_i; the prediction of every body to a common time; the a and jerk that the force pass gave
// for the active bodies (compact: entry k belongs to body index[k]); the next steps.
template <class T>
struct HermiteFields {
  ParticleView<T> p;
  Vec3Span<T> a;
  Vec3Span<T> jerk;
  double* t;
  Vec3Span<T> xp;
  Vec3Span<T> vp;
  Vec3Span<T> a1;
  Vec3Span<T> j1;
  IndexView active;
  double* dt_next;  // null: no step wanted
};


// The block-step schedule of a system: per body its level (step dt / 2^level) and its time in
// ticks since the start of the interval (hermite_levels.hpp), where the store lives.
struct HermiteSchedule {
  std::int32_t* level;
  std::int64_t* last;
  int n;
};

// The next block time and how many bodies it holds (the bodies whose step ends first).
struct BlockTime {
  std::int64_t next = hermite::kTicks;
  int count = 0;
};

// The tick at which body i's step ends.
struct StepEnd {
  const std::int32_t* level;
  const std::int64_t* last;
  NBODY_HD std::int64_t operator()(int i) const { return last[i] + hermite::ticks_of(level[i]); }
};

// Whether body i's step ends at tick `next` (it is in the active block).
struct EndsAt {
  StepEnd end;
  std::int64_t next;
  NBODY_HD bool operator()(int i) const { return end(i) == next; }
};

// Whether body i's step ends at the tick *next (read where the block time was computed: the
// device's copy on a GPU, so the selection needs no trip to the host).
struct EndsAtBlock {
  StepEnd end;
  const long long* next;
  NBODY_HD bool operator()(int i) const { return end(i) == *next; }
};

// The first level of the k-th active body from its starting step (level_for), at least
// hermite::kStartLevel: a body whose jerk nearly vanishes (|a| / |j| large) does not start with a
// step of the whole interval.
struct StartLevel {
  HermiteSchedule s;
  IndexView active;
  const double* steps;
  double dt;
  NBODY_HD void operator()(int k) const {
    const int i = active.index[k];
    const int level = hermite::level_for(steps[k], dt);
    s.level[i] = level > hermite::kStartLevel ? level : hermite::kStartLevel;
  }
};

// The k-th active body was corrected at tick `now` with criterion steps[k]: its time and level.
struct NextLevel {
  HermiteSchedule s;
  IndexView active;
  const double* steps;
  std::int64_t now;
  double dt;
  NBODY_HD void operator()(int k) const {
    const int i = active.index[k];
    s.last[i] = now;
    s.level[i] = hermite::next_level(s.level[i], steps[k], now, dt);
  }
};

// The same at the block time *next (the device's copy: the block-step loop that runs without the
// host).
struct NextLevelAtBlock {
  HermiteSchedule s;
  IndexView active;
  const double* steps;
  const long long* next;
  double dt;
  NBODY_HD void operator()(int k) const { NextLevel{s, active, steps, std::int64_t(*next), dt}(k); }
};

// What the block steps of a loop did: how many, their active bodies summed, and how many had an
// active set of 2^b <= active < 2^(b+1) (b = 0 also holds empty ones), as the host counts them.
struct BlockCounts {
  static constexpr int kBins = 32;
  std::uint64_t block_steps = 0;
  std::uint64_t active = 0;
  std::uint64_t histogram[kBins] = {};
};

NBODY_HD int block_bin(std::uint64_t active) {
  int bin = 0;
  while (bin + 1 < BlockCounts::kBins && (std::uint64_t(2) << bin) <= active) ++bin;
  return bin;
}

// The block steps of one interval run where the store lives with no trip to the host between
// them (a device's graph that repeats the block step until the interval's end): made once for a
// system, an interval length and a step criterion, run once an interval.
class BlockLoop {
 public:
  virtual ~BlockLoop() = default;
  // The block steps from the schedule's present state to the end of the interval; waits for
  // them and returns what they did.
  virtual BlockCounts run() = 0;
};

template <class T>
NBODY_HD double squared_norm(T x, T y, T z) {
  const double dx = x, dy = y, dz = z;
  return dx * dx + dy * dy + dz * dz;
}

// xp, vp of body i at time t from x, v, a, j at t_i.
template <class T>
struct HermitePredict {
  HermiteFields<T> h;
  double t;
  NBODY_HD void operator()(int i) const {
    const T tau = static_cast<T>(t - h.t[i]);
    hermite::predict(h.p.x.x[i], h.p.v.x[i], h.a.x[i], h.jerk.x[i], tau, h.xp.x[i], h.vp.x[i]);
    hermite::predict(h.p.x.y[i], h.p.v.y[i], h.a.y[i], h.jerk.y[i], tau, h.xp.y[i], h.vp.y[i]);
    hermite::predict(h.p.x.z[i], h.p.v.z[i], h.a.z[i], h.jerk.z[i], tau, h.xp.z[i], h.vp.z[i]);
  }
};

// The predictor of every body to the block time t = *next x tick (the same product the host
// forms from the same tick).
template <class T>
struct HermitePredictAtBlock {
  HermiteFields<T> h;
  const long long* next;
  double tick;
  NBODY_HD void operator()(int i) const { HermitePredict<T>{h, double(*next) * tick}(i); }
};

// The corrector of the k-th active body i over its step h = t - t_i: x, v := corrected;
// a, j := a1[k], j1[k]; t_i := t; dt_next[k] := Aarseth's step (when asked).
template <class T>
struct HermiteCorrect {
  HermiteFields<T> h;
  double t;
  double eta;
  NBODY_HD void operator()(int k) const {
    const int i = h.active.index[k];
    const double step = t - h.t[i];
    const T ht = static_cast<T>(step);
    if (h.dt_next != nullptr) {
      double sx, sy, sz, cx, cy, cz;
      hermite::snap_crackle(h.a.x[i], h.jerk.x[i], h.a1.x[k], h.j1.x[k], step, sx, cx);
      hermite::snap_crackle(h.a.y[i], h.jerk.y[i], h.a1.y[k], h.j1.y[k], step, sy, cy);
      hermite::snap_crackle(h.a.z[i], h.jerk.z[i], h.a1.z[k], h.j1.z[k], step, sz, cz);
      h.dt_next[k] = hermite::aarseth_step(eta, squared_norm(h.a1.x[k], h.a1.y[k], h.a1.z[k]),
                                           squared_norm(h.j1.x[k], h.j1.y[k], h.j1.z[k]),
                                           sx * sx + sy * sy + sz * sz, cx * cx + cy * cy + cz * cz);
    }
    T x1, v1;
    hermite::correct(h.p.x.x[i], h.p.v.x[i], h.a.x[i], h.jerk.x[i], h.a1.x[k], h.j1.x[k], ht, x1, v1);
    h.p.x.x[i] = x1;
    h.p.v.x[i] = v1;
    hermite::correct(h.p.x.y[i], h.p.v.y[i], h.a.y[i], h.jerk.y[i], h.a1.y[k], h.j1.y[k], ht, x1, v1);
    h.p.x.y[i] = x1;
    h.p.v.y[i] = v1;
    hermite::correct(h.p.x.z[i], h.p.v.z[i], h.a.z[i], h.jerk.z[i], h.a1.z[k], h.j1.z[k], ht, x1, v1);
    h.p.x.z[i] = x1;
    h.p.v.z[i] = v1;
    h.a.x[i] = h.a1.x[k];
    h.a.y[i] = h.a1.y[k];
    h.a.z[i] = h.a1.z[k];
    h.jerk.x[i] = h.j1.x[k];
    h.jerk.y[i] = h.j1.y[k];
    h.jerk.z[i] = h.j1.z[k];
    h.t[i] = t;
  }
};

// The corrector at the block time t = *next x tick (the product the host forms from the same tick).
template <class T>
struct HermiteCorrectAtBlock {
  HermiteFields<T> h;
  const long long* next;
  double tick;
  double eta;
  NBODY_HD void operator()(int k) const { HermiteCorrect<T>{h, double(*next) * tick, eta}(k); }
};

// The corrector and then the next level of the k-th active body at the block time *next: the two
// element-wise steps of the host's loop in one pass (the level reads the criterion the corrector
// just wrote, h.dt_next[k], in the same thread).
template <class T>
struct CorrectAndLevelAtBlock {
  HermiteFields<T> h;
  HermiteSchedule s;
  const long long* next;
  double tick;
  double eta;
  double dt;
  NBODY_HD void operator()(int k) const {
    HermiteCorrectAtBlock<T>{h, next, tick, eta}(k);
    NextLevelAtBlock{s, h.active, h.dt_next, next, dt}(k);
  }
};

// The start: a, j := a1[k], j1[k] for the k-th active body; dt_next[k] := eta |a| / |j|.
template <class T>
struct HermiteStart {
  HermiteFields<T> h;
  double eta;
  NBODY_HD void operator()(int k) const {
    const int i = h.active.index[k];
    h.a.x[i] = h.a1.x[k];
    h.a.y[i] = h.a1.y[k];
    h.a.z[i] = h.a1.z[k];
    h.jerk.x[i] = h.j1.x[k];
    h.jerk.y[i] = h.j1.y[k];
    h.jerk.z[i] = h.j1.z[k];
    if (h.dt_next != nullptr) {
      h.dt_next[k] = hermite::starting_step(eta, squared_norm(h.a1.x[k], h.a1.y[k], h.a1.z[k]),
                                            squared_norm(h.j1.x[k], h.j1.y[k], h.j1.z[k]));
    }
  }
};

// The start from the full criterion: a, j := a1[k], j1[k] as HermiteStart; dt_next[k] :=
// Aarseth's step from a, j and the k-th active body's snap and crackle (computed for the start
// by the force solver). A body that feels no force gets NaN: no constraint (its first level is
// then the coarsest allowed).
template <class T>
struct HermiteStartWithDerivatives {
  HermiteFields<T> h;
  ConstVec3Span<T> snap;
  ConstVec3Span<T> crackle;
  double eta;
  NBODY_HD void operator()(int k) const {
    HermiteStart<T>{h, eta}(k);
    if (h.dt_next != nullptr) {
      h.dt_next[k] = hermite::aarseth_step(eta, squared_norm(h.a1.x[k], h.a1.y[k], h.a1.z[k]),
                                           squared_norm(h.j1.x[k], h.j1.y[k], h.j1.z[k]),
                                           squared_norm(snap.x[k], snap.y[k], snap.z[k]),
                                           squared_norm(crackle.x[k], crackle.y[k], crackle.z[k]));
    }
  }
};

}  // namespace nbody::particles
