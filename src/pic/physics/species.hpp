#pragma once
// A particle species in structure-of-arrays storage: positions x, y; momenta u = gamma v (in c);
// weights w (the number of real particles per unit length in z, in n_c (c/omega0)^2).
#include <cstddef>
#include <string>
#include <vector>

namespace nbody::pic {

enum class ParticleBoundary { periodic, absorb, reflect, thermal };

struct ParticleBoundaries {
  // xmin, xmax, ymin, ymax
  ParticleBoundary side[4] = {ParticleBoundary::periodic, ParticleBoundary::periodic,
                              ParticleBoundary::periodic, ParticleBoundary::periodic};
};

struct Species {
  std::string name;
  double charge = -1;  // in e
  double mass = 1;     // in m_e
  bool immobile = false;  // a fixed neutralising background: never pushed, no current
  double thermal_u = 0;   // u_th of the thermalising boundary (sqrt(T / m c^2) per component)
  ParticleBoundaries bc;
  std::vector<double> x, y, ux, uy, uz, w;

  [[nodiscard]] std::size_t size() const { return x.size(); }
  void resize(std::size_t n) {
    for (auto* v : {&x, &y, &ux, &uy, &uz, &w}) v->resize(n);
  }
  void push_back(double px, double py, double pux, double puy, double puz, double pw) {
    x.push_back(px), y.push_back(py), ux.push_back(pux), uy.push_back(puy), uz.push_back(puz), w.push_back(pw);
  }
  void reserve(std::size_t n) {
    for (auto* v : {&x, &y, &ux, &uy, &uz, &w}) v->reserve(n);
  }
  // The same species (name, charge, mass, boundaries) without particles: a copy of everything
  // but the particle arrays, which may hold many millions.
  [[nodiscard]] Species without_particles() const {
    Species s;
    s.name = name, s.charge = charge, s.mass = mass, s.immobile = immobile, s.thermal_u = thermal_u, s.bc = bc;
    return s;
  }
  // The particles moved out into a species of the same kind; this one is left without any.
  [[nodiscard]] Species take_particles() {
    Species s = without_particles();
    s.x.swap(x), s.y.swap(y), s.ux.swap(ux), s.uy.swap(uy), s.uz.swap(uz), s.w.swap(w);
    return s;
  }
};

// Every species' particles moved out of `from` (its species kept without particles).
[[nodiscard]] inline std::vector<Species> take_particles(std::vector<Species>& from) {
  std::vector<Species> out;
  out.reserve(from.size());
  for (Species& s : from) out.push_back(s.take_particles());
  return out;
}

// The predefined species: electron (q = -1, m = 1), proton, deuteron (m = 3670.48),
// triton (m = 5496.92), positron. Returns false for an unknown name.
bool predefined_species(const std::string& name, double& charge, double& mass);

}  // namespace nbody::pic
