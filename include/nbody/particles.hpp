#pragma once
// Particle storage: structure of arrays on the host. Backends that compute elsewhere (the GPU)
// keep a mirror of this and transfer explicitly (Backend::upload / Backend::download).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace nbody {

template <class T>
struct Particles {
  std::vector<T> x, y, z;     // positions
  std::vector<T> vx, vy, vz;  // velocities
  std::vector<T> m;           // masses
  std::vector<std::uint64_t> id;

  [[nodiscard]] std::size_t size() const noexcept { return m.size(); }

  void resize(std::size_t n) {
    for (auto* v : {&x, &y, &z, &vx, &vy, &vz, &m}) v->resize(n);
    id.resize(n);
  }

  // The same particles in another precision (rounded to nearest).
  template <class U>
  [[nodiscard]] Particles<U> as() const {
    Particles<U> out;
    out.resize(size());
    for (std::size_t i = 0; i < size(); ++i) {
      out.x[i] = static_cast<U>(x[i]);
      out.y[i] = static_cast<U>(y[i]);
      out.z[i] = static_cast<U>(z[i]);
      out.vx[i] = static_cast<U>(vx[i]);
      out.vy[i] = static_cast<U>(vy[i]);
      out.vz[i] = static_cast<U>(vz[i]);
      out.m[i] = static_cast<U>(m[i]);
    }
    out.id = id;
    return out;
  }
};

// Accelerations (and, when asked, potentials) of every particle, on the host.
template <class T>
struct Accelerations {
  std::vector<T> ax, ay, az;
  void resize(std::size_t n) {
    ax.resize(n);
    ay.resize(n);
    az.resize(n);
  }
  [[nodiscard]] std::size_t size() const noexcept { return ax.size(); }
};

}  // namespace nbody
