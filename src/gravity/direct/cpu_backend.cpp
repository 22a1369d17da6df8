#include "gravity/direct/cpu_backend.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/host_memory.hpp"
#include "core/parallel.hpp"
#include "gravity/direct/cpu_direct.hpp"
#include "gravity/direct/cpu_hermite.hpp"
#include "nbody/error.hpp"

namespace nbody {
namespace {

template <class T>
constexpr Precision precision_of() {
  return sizeof(T) == 4 ? Precision::fp32 : Precision::fp64;
}

template <class T>
class CpuBackend final : public Backend<T> {
 public:
  CpuBackend(CpuMethod method, std::size_t n, const GravityParams& g) : Backend<T>(g), method_(method) {
    state_.resize(n);
    acc_.resize(n);
  }

  std::string name() const override { return method_ == CpuMethod::reference ? "cpu-reference" : "cpu"; }
  std::string device() const override {
    return "CPU, " + std::to_string(omp_get_max_threads()) + " OpenMP threads";
  }
  Precision precision() const override {
    return method_ == CpuMethod::simd_mixed ? Precision::mixed : precision_of<T>();
  }
  std::size_t size() const override { return state_.size(); }

  double potential_energy() override {
    return method_ == CpuMethod::reference ? direct::reference_potential_energy(sources(), this->gravity())
                                           : direct::simd_potential_energy(sources(), this->gravity());
  }

  void kick(double dt) override {
    const T h = static_cast<T>(dt);
    const auto n = static_cast<std::int64_t>(size());
#pragma omp parallel for simd schedule(static) if (n >= kParallelMinElements)
    for (std::int64_t i = 0; i < n; ++i) {
      state_.vx[i] += acc_.ax[i] * h;
      state_.vy[i] += acc_.ay[i] * h;
      state_.vz[i] += acc_.az[i] * h;
    }
  }

  Moments moments() override {
    // Serial, in float64, in index order: the same bits for every thread count.
    Moments mo;
    for (std::size_t i = 0; i < size(); ++i) {
      const double m = state_.m[i];
      const double x = state_.x[i], y = state_.y[i], z = state_.z[i];
      const double vx = state_.vx[i], vy = state_.vy[i], vz = state_.vz[i];
      mo.mass += m;
      mo.kinetic += 0.5 * m * (vx * vx + vy * vy + vz * vz);
      mo.momentum[0] += m * vx;
      mo.momentum[1] += m * vy;
      mo.momentum[2] += m * vz;
      mo.angular[0] += m * (y * vz - z * vy);
      mo.angular[1] += m * (z * vx - x * vz);
      mo.angular[2] += m * (x * vy - y * vx);
      mo.mass_moment[0] += m * x;
      mo.mass_moment[1] += m * y;
      mo.mass_moment[2] += m * z;
    }
    return mo;
  }

  double max_acceleration() override {
    // max is exact and order-free: the same value for any thread count.
    double worst = 0;
    const auto n = static_cast<std::int64_t>(size());
#pragma omp parallel for schedule(static) reduction(max : worst) if (n >= kParallelMinElements)
    for (std::int64_t i = 0; i < n; ++i) {
      const double ax = acc_.ax[i], ay = acc_.ay[i], az = acc_.az[i];
      worst = std::max(worst, ax * ax + ay * ay + az * az);
    }
    return std::sqrt(worst);
  }

  void reserve_hermite() override {
    if (hermite_.reserved()) return;
    require_host_memory(cpu_backend_bytes<T>(size()) + size() * direct::HostHermite<T>::kBytesPerParticle, size());
    hermite_.reserve(size());
  }
  void set_particle_times(double t) override {
    reserve_hermite();
    hermite_.set_times(t);
  }
  void predict(double t) override {
    reserve_hermite();
    hermite_.predict(state_, acc_, t);
  }

  void download(Particles<T>& p) override { p = state_; }
  void download_accelerations(Accelerations<T>& a) override { a = acc_; }
  void download_hermite(HermiteState<T>& s) override {
    reserve_hermite();
    hermite_.download(acc_, s);
  }

 protected:
  void do_upload(const Particles<T>& p) override {
    if (p.size() != size()) {
      throw_runtime_error("upload of " + std::to_string(p.size()) + " particles into a backend of " +
                          std::to_string(size()));
    }
    state_ = p;
  }

  void do_upload_hermite(const HermiteState<T>& s) override {
    if (s.size() != size()) {
      throw_runtime_error("upload of the Hermite state of " + std::to_string(s.size()) +
                          " particles into a backend of " + std::to_string(size()));
    }
    reserve_hermite();
    hermite_.upload(acc_, s);
  }

  void do_set_active(std::span<const std::int32_t> targets) override {
    reserve_hermite();
    hermite_.set_active(targets);
  }
  void do_set_all_active() override {
    reserve_hermite();
    hermite_.set_all_active();
  }
  void do_compute_acc_jerk() override {
    reserve_hermite();
    const auto out = hermite_.results();
    if (method_ == CpuMethod::reference) {
      direct::reference_acc_jerk(hermite_.predicted(state_), hermite_.targets(), out, this->gravity());
    } else {
      direct::simd_acc_jerk(hermite_.predicted(state_), hermite_.targets(), out, this->gravity());
    }
  }
  void do_start_hermite(double eta, std::span<double> dt_next) override { hermite_.start(acc_, eta, dt_next); }
  void do_correct(double t, double eta, std::span<double> dt_next) override {
    hermite_.correct(state_, acc_, t, eta, dt_next);
  }

  void do_compute_accelerations() override {
    const direct::AccelArrays<T> out{acc_.ax.data(), acc_.ay.data(), acc_.az.data()};
    if (method_ == CpuMethod::reference) {
      direct::reference_accelerations(sources(), out, this->gravity());
    } else if constexpr (std::is_same_v<T, double>) {
      if (method_ == CpuMethod::simd_mixed) {
        direct::simd_accelerations_mixed(sources(), out, this->gravity());
      } else {
        direct::simd_accelerations(sources(), out, this->gravity());
      }
    } else {
      direct::simd_accelerations(sources(), out, this->gravity());
    }
  }

  void do_drift(double dt) override {
    const T h = static_cast<T>(dt);
    const auto n = static_cast<std::int64_t>(size());
#pragma omp parallel for simd schedule(static) if (n >= kParallelMinElements)
    for (std::int64_t i = 0; i < n; ++i) {
      state_.x[i] += state_.vx[i] * h;
      state_.y[i] += state_.vy[i] * h;
      state_.z[i] += state_.vz[i] * h;
    }
  }

 private:
  direct::SourceArrays<T> sources() const {
    return {state_.x.data(), state_.y.data(), state_.z.data(), state_.m.data(), state_.size()};
  }

  CpuMethod method_;
  Particles<T> state_;
  Accelerations<T> acc_;
  direct::HostHermite<T> hermite_;
};

}  // namespace

template <class T>
std::size_t cpu_backend_bytes(std::size_t n) noexcept {
  // 7 state arrays + 3 accelerations of T, 8-byte ids, and one float64 scratch per particle.
  return n * (10 * sizeof(T) + 8 + 8);
}

template <class T>
std::unique_ptr<Backend<T>> make_cpu_backend(CpuMethod method, std::size_t n, const GravityParams& g) {
  if (method == CpuMethod::simd_mixed && sizeof(T) != 8) throw_runtime_error("mixed precision keeps the state in float64");
  require_host_memory(cpu_backend_bytes<T>(n), n);
  return std::make_unique<CpuBackend<T>>(method, n, g);
}

template std::unique_ptr<Backend<float>> make_cpu_backend<float>(CpuMethod, std::size_t, const GravityParams&);
template std::unique_ptr<Backend<double>> make_cpu_backend<double>(CpuMethod, std::size_t, const GravityParams&);
template std::size_t cpu_backend_bytes<float>(std::size_t) noexcept;
template std::size_t cpu_backend_bytes<double>(std::size_t) noexcept;

}  // namespace nbody
