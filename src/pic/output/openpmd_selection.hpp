#pragma once
// What one openPMD dump holds ([[output.fields]] and [[output.particles]] of a deck, docs/pic.md):
// which mesh components, which species, which of their particles (every k-th, or a fraction
// drawn with a seed), and whether the ids go with them. A particle's selection is a function of
// its id alone (its index in its species' load, never reused), so a resumed run, a run over any
// number of processes and the GPU path (whose dumps are written from the host copy: the
// selection applies after the copy) pick the same particles.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "pic/physics/grid.hpp"
#include "pic/physics/random.hpp"

namespace nbody::pic {

struct OpenPmdSelection {
  std::array<bool, kComponents> fields{};  // Ex Ey Ez Bx By Bz Jx Jy Jz rho (grid.hpp's order)
  bool particles = false;
  std::vector<std::string> species;  // with particles: these species (empty: every one)
  std::uint64_t every_kth = 1;       // keep the particles whose id is a multiple of this
  double fraction = 1;               // keep a particle when its draw (seed, id) is below this
  std::uint64_t seed = 0;
  bool ids = true;                   // the id record written (when the state has ids)

  // The whole state, as the [output] table's fields_every dumps it.
  [[nodiscard]] static OpenPmdSelection everything() {
    OpenPmdSelection s;
    s.fields.fill(true);
    s.particles = true;
    return s;
  }
  [[nodiscard]] bool any_field() const {
    for (bool f : fields)
      if (f) return true;
    return false;
  }
  [[nodiscard]] bool has_species(const std::string& name) const {
    if (!particles) return false;
    if (species.empty()) return true;
    for (const std::string& s : species)
      if (s == name) return true;
    return false;
  }
  // Whether the particle with this id is written.
  [[nodiscard]] bool keeps(std::uint64_t id) const {
    if (every_kth > 1 && id % every_kth != 0) return false;
    if (fraction < 1) return CounterRng(seed, kStream).uniform(id) < fraction;
    return true;
  }
  static constexpr std::uint64_t kStream = 0x7375627365ULL;  // the draws' own stream ("subse")
};

}  // namespace nbody::pic
