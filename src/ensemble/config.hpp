#pragma once
// An ensemble's configuration (`nbody ensemble --config FILE`, TOML; docs/ensembles.md): where
// the systems come from, how they are integrated and stopped, and the run's outputs. Every key
// is validated when read; an unknown key or a bad value is one input error naming the key, the
// value and the file.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ensemble/params.hpp"

namespace nbody::ensemble {

enum class Generator { scattering, planetary, plummer, table };

// Three-body scattering: a binary (masses m1, m2, semi-major axis a, eccentricity e; a random
// orientation and phase) and a single m3 coming in from distance r0 (in units of a) with the
// velocity at infinity v_inf and an impact parameter drawn uniform in area between b_min and
// b_max (both in units of a).
struct ScatteringSpec {
  double m1 = 0.5, m2 = 0.5, m3 = 0.5;
  double a = 1, e = 0;
  bool thermal_e = false;  // e drawn from f(e) = 2e instead
  double v_inf = 0.1, b_min = 0, b_max = 2, r0 = 20;
};

// Planetary systems: a star and planets from orbital elements (arrays of one length); the
// angles node, pericentre and mean anomaly drawn uniform per system when random_angles.
struct PlanetarySpec {
  double star_mass = 1;
  std::vector<double> mass, a, e, inc;
  std::vector<double> node, peri, mean;  // radians; empty: zero (or drawn)
  bool random_angles = true;
};

// Plummer spheres of n bodies in N-body units (total mass 1, virial radius 1).
struct PlummerSpec {
  int n = 16;
};

struct EnsembleConfig {
  std::string source;  // the file's name
  std::string deck;    // the resolved configuration (deck.toml in the run directory)
  std::string deck_identity;  // the deck without what a resume may change
  Generator generator = Generator::scattering;
  std::int64_t systems = 100;
  std::uint64_t seed = 1;
  std::string table;  // the CSV of systems (generator = "table")
  ScatteringSpec scattering;
  PlanetarySpec planetary;
  PlummerSpec plummer;
  Params params;
  std::int64_t intervals = 100;  // the run's steps: t_end in equal intervals (outputs, checks)
  bool use_gpu = false;
  int threads = 0;
  std::string out_dir;
  std::int64_t checkpoint_every = 0;  // intervals (0: none on the schedule)
  double checkpoint_every_s = 1800;   // wall seconds (0: none); nbody run's default (kDefaultCheckpointEverySeconds)
  std::int64_t progress_every = 10;   // intervals between progress lines in run.log
  bool csv = true, hdf5 = true;       // the results' formats (hdf5 where the build has it)
};

// Command-line flags that replace the deck's values.
struct EnsembleFlags {
  std::optional<std::string> out;
};

EnsembleConfig read_ensemble_config(const std::string& path, const std::vector<std::string>& overrides = {},
                                    const EnsembleFlags& flags = {});
EnsembleConfig read_ensemble_config_text(const std::string& text, const std::string& name,
                                         const std::vector<std::string>& overrides = {}, const EnsembleFlags& flags = {});

}  // namespace nbody::ensemble
