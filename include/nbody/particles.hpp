#pragma once
// Particle storage: structure of arrays on the host. Backends that compute elsewhere (the GPU)
// keep a mirror of this and transfer explicitly (Backend::upload / Backend::download).
//
// Components: every body carries a tag, component[i], an index into component_names (the
// model's parts: "disk", "bulge", "halo" of a galaxy, "star" and "planet" of the solar system).
// The tag follows the body's id everywhere the bodies go (the store, its permutations, the
// checkpoints, the snapshots). No names: one unnamed component (every tag 0).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace nbody {

template <class T>
struct Particles {
  std::vector<T> x, y, z;     // positions
  std::vector<T> vx, vy, vz;  // velocities
  std::vector<T> m;           // masses
  std::vector<std::uint64_t> id;
  std::vector<std::uint8_t> component;     // index into component_names (0 when there are none; empty: all 0)
  std::vector<std::string> component_names;  // the set's components by index; may be empty

  [[nodiscard]] std::size_t size() const noexcept { return m.size(); }
  // Body i's component; an empty component array means every body is of component 0.
  [[nodiscard]] std::uint8_t component_of(std::size_t i) const noexcept { return component.empty() ? 0 : component[i]; }

  void resize(std::size_t n) {
    for (auto* v : {&x, &y, &z, &vx, &vy, &vz, &m}) v->resize(n);
    id.resize(n);
    component.resize(n);
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
    out.component = component;
    out.component_names = component_names;
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
