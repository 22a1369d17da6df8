#pragma once
// The Hermite integrator's state and element-wise steps on the host, for the CPU backends
// (cpu_backend.cpp). The per-particle arithmetic is integrate/hermite_math.hpp, shared with the
// CUDA kernels; the force passes are cpu_direct.hpp's.
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "core/parallel.hpp"
#include "gravity/backend.hpp"
#include "gravity/direct/cpu_direct.hpp"
#include "integrate/hermite_math.hpp"

namespace nbody::direct {

template <class T>
class HostHermite {
 public:
  // Host bytes per particle of this state: jerk, prediction, compact results, t_i, an index.
  static constexpr std::size_t kBytesPerParticle = 18 * sizeof(T) + sizeof(double) + sizeof(std::int32_t);

  [[nodiscard]] bool reserved() const noexcept { return reserved_; }

  void reserve(std::size_t n) {
    n_ = n;
    for (auto* v : {&jx_, &jy_, &jz_, &xp_, &yp_, &zp_, &vxp_, &vyp_, &vzp_, &ax1_, &ay1_, &az1_, &jx1_, &jy1_, &jz1_}) {
      v->assign(n, T(0));
    }
    t_.assign(n, 0.0);
    active_.reserve(n);
    reserved_ = true;
  }

  void set_times(double t) { t_.assign(n_, t); }

  void predict(const Particles<T>& s, const Accelerations<T>& a, double t) {
    const auto n = static_cast<std::int64_t>(n_);
#pragma omp parallel for schedule(static) if (n >= kParallelMinElements)
    for (std::int64_t i = 0; i < n; ++i) {
      const T tau = static_cast<T>(t - t_[i]);
      hermite::predict(s.x[i], s.vx[i], a.ax[i], jx_[i], tau, xp_[i], vxp_[i]);
      hermite::predict(s.y[i], s.vy[i], a.ay[i], jy_[i], tau, yp_[i], vyp_[i]);
      hermite::predict(s.z[i], s.vz[i], a.az[i], jz_[i], tau, zp_[i], vzp_[i]);
    }
  }

  void set_active(std::span<const std::int32_t> targets) { active_.assign(targets.begin(), targets.end()); }
  void set_all_active() {
    active_.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) active_[i] = static_cast<std::int32_t>(i);
  }

  [[nodiscard]] MotionArrays<T> predicted(const Particles<T>& s) const {
    return {xp_.data(), yp_.data(), zp_.data(), vxp_.data(), vyp_.data(), vzp_.data(), s.m.data(), n_};
  }
  [[nodiscard]] Targets targets() const { return {active_.data(), active_.size()}; }
  [[nodiscard]] AccJerkArrays<T> results() {
    return {ax1_.data(), ay1_.data(), az1_.data(), jx1_.data(), jy1_.data(), jz1_.data()};
  }

  void start(Accelerations<T>& a, double eta, std::span<double> dt_next) {
    for (std::size_t k = 0; k < active_.size(); ++k) {
      const auto i = static_cast<std::size_t>(active_[k]);
      a.ax[i] = ax1_[k];
      a.ay[i] = ay1_[k];
      a.az[i] = az1_[k];
      jx_[i] = jx1_[k];
      jy_[i] = jy1_[k];
      jz_[i] = jz1_[k];
      if (!dt_next.empty()) {
        const double a2 = sq(a.ax[i], a.ay[i], a.az[i]);
        const double j2 = sq(jx_[i], jy_[i], jz_[i]);
        dt_next[k] = hermite::starting_step(eta, a2, j2);
      }
    }
  }

  void correct(Particles<T>& s, Accelerations<T>& a, double t, double eta, std::span<double> dt_next) {
    const auto count = static_cast<std::int64_t>(active_.size());
#pragma omp parallel for schedule(static) if (count >= kParallelMinElements)
    for (std::int64_t k = 0; k < count; ++k) {
      const auto i = static_cast<std::size_t>(active_[k]);
      const double h = t - t_[i];
      const T ht = static_cast<T>(h);
      const double dt = dt_next.empty() ? 0.0 : criterion(i, k, h, eta, a);
      hermite::correct(s.x[i], s.vx[i], a.ax[i], jx_[i], ax1_[k], jx1_[k], ht, s.x[i], s.vx[i]);
      hermite::correct(s.y[i], s.vy[i], a.ay[i], jy_[i], ay1_[k], jy1_[k], ht, s.y[i], s.vy[i]);
      hermite::correct(s.z[i], s.vz[i], a.az[i], jz_[i], az1_[k], jz1_[k], ht, s.z[i], s.vz[i]);
      a.ax[i] = ax1_[k];
      a.ay[i] = ay1_[k];
      a.az[i] = az1_[k];
      jx_[i] = jx1_[k];
      jy_[i] = jy1_[k];
      jz_[i] = jz1_[k];
      t_[i] = t;
      if (!dt_next.empty()) dt_next[static_cast<std::size_t>(k)] = dt;
    }
  }

  void download(const Accelerations<T>& a, HermiteState<T>& out) const {
    out.ax = a.ax;
    out.ay = a.ay;
    out.az = a.az;
    out.jx = jx_;
    out.jy = jy_;
    out.jz = jz_;
    out.t = t_;
  }
  void upload(Accelerations<T>& a, const HermiteState<T>& in) {
    a.ax = in.ax;
    a.ay = in.ay;
    a.az = in.az;
    jx_ = in.jx;
    jy_ = in.jy;
    jz_ = in.jz;
    t_ = in.t;
  }

 private:
  static double sq(double x, double y, double z) { return x * x + y * y + z * z; }

  // Aarseth's step at the end of the step h of particle i (k-th active), before a, j move on.
  double criterion(std::size_t i, std::int64_t k, double h, double eta, const Accelerations<T>& a) const {
    const auto kk = static_cast<std::size_t>(k);
    double s[3], c[3];
    hermite::snap_crackle(a.ax[i], jx_[i], ax1_[kk], jx1_[kk], h, s[0], c[0]);
    hermite::snap_crackle(a.ay[i], jy_[i], ay1_[kk], jy1_[kk], h, s[1], c[1]);
    hermite::snap_crackle(a.az[i], jz_[i], az1_[kk], jz1_[kk], h, s[2], c[2]);
    return hermite::aarseth_step(eta, sq(ax1_[kk], ay1_[kk], az1_[kk]), sq(jx1_[kk], jy1_[kk], jz1_[kk]),
                                 sq(s[0], s[1], s[2]), sq(c[0], c[1], c[2]));
  }

  bool reserved_ = false;
  std::size_t n_ = 0;
  std::vector<T> jx_, jy_, jz_;
  std::vector<T> xp_, yp_, zp_, vxp_, vyp_, vzp_;
  std::vector<T> ax1_, ay1_, az1_, jx1_, jy1_, jz1_;
  std::vector<double> t_;
  std::vector<std::int32_t> active_;
};

}  // namespace nbody::direct
