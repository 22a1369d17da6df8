#pragma once
// The run configuration and its schema. Every parameter is declared once (key, type, unit,
// range, help) in run_params(); the CLI flags, the TOML file, validation and the resolved
// configuration written into every run directory all come from that one table.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace nbody {

// Snapshot formats this build can write ("hdf5" only when built with HDF5), and the default:
// hdf5 when built with it, else csv (defined in src/io/particle_file.cpp).
[[nodiscard]] std::vector<std::string> snapshot_format_names();
[[nodiscard]] std::string default_snapshot_format();

struct RunConfig {
  // initial conditions
  std::string ic = "plummer";
  std::int64_t n = 4096;
  std::int64_t seed = 1;
  // physics
  double gravitational_constant = 0.0;  // 0: the unit system's G (see core/units.hpp)
  double softening = 0.01;  // Plummer softening length epsilon (the documents' eps^2 = 1e-9 is 3.1623e-5)
  // numerics
  std::string backend = "auto";
  std::string precision = "fp32";
  std::string integrator = "leapfrog";
  double dt = 0.01;
  std::int64_t steps = 1000;
  // output
  std::string out;
  std::int64_t snapshot_every = 0;
  std::int64_t diag_every = 0;
  // snapshots, checkpoints and restart
  double snapshot_every_t = 0;  // in simulation time units; 0: off
  std::string snapshot_format = default_snapshot_format();
  std::int64_t checkpoint_every = 0;
  double checkpoint_every_s = 0;  // wall-clock seconds; 0: off
  // integrators: softening law, time-step mode and criterion
  std::string softening_law = "plummer";
  std::string dt_mode = "fixed";
  double eta = 0.02;
  // models and units: see core/units.hpp and the header comment of each src/ic/<model>.cpp
  std::string units = "henon";
  double mass_scale = 0.0;    // Msun per model mass unit with physical units (0: not set)
  double length_scale = 0.0;  // kpc or au per model length unit with physical units (0: not set)
  double king_w0 = 6.0;
  double virial_ratio = 0.0;  // uniform-sphere; 0 is the cold collapse
  double disk_fraction = 0.15;
  double bulge_fraction = 0.05;
  double toomre_q = 1.5;
  double pericentre = 0.4;
  double separation = 3.0;
  double incl1 = 0.0;  // degrees
  double incl2 = 0.0;  // degrees
  double cluster_scale = 1.54;
  double velocity_scale = 8.0;

  bool operator==(const RunConfig&) const = default;
};

enum class ParamKind { integer, real, text };

struct ParamSpec {
  using Field = std::variant<std::int64_t RunConfig::*, double RunConfig::*, std::string RunConfig::*>;

  std::string_view key;         // TOML key; the long flag is --key with '_' written '-'
  std::string_view short_flag;  // e.g. "-n"; empty when none
  ParamKind kind;
  std::string_view unit;        // empty when dimensionless
  std::string_view help;
  double min = 0;               // numeric range (inclusive unless min_exclusive)
  double max = 0;
  bool min_exclusive = false;
  std::vector<std::string> (*choices)() = nullptr;  // allowed text values; nullptr: any text
  Field field;
  // Text values starting with this prefix are accepted besides the choices ("file:" for ic,
  // followed by a path); empty when none.
  std::string_view choice_prefix = {};

  [[nodiscard]] std::string flag() const;  // "--snapshot-every"
};

// The parameters of `nbody run`, in the order they are documented and written.
[[nodiscard]] const std::vector<ParamSpec>& run_params();
// nullptr when no parameter has that key.
[[nodiscard]] const ParamSpec* find_run_param(std::string_view key);

// Parse `text` as the value of `spec`, check it, and store it. `source` names where the value
// came from in error messages ("--dt", "run.toml: dt").
void set_param_from_text(RunConfig& cfg, const ParamSpec& spec, std::string_view text,
                         std::string_view source);
void set_param_integer(RunConfig& cfg, const ParamSpec& spec, std::int64_t value, std::string_view source);
void set_param_real(RunConfig& cfg, const ParamSpec& spec, double value, std::string_view source);

// Checks that hold between parameters, and each value against its range. Throws an input error.
void validate(const RunConfig& cfg);

// Reads a TOML file into cfg (keys not in the file keep their values). A malformed file, an
// unknown key or a value of the wrong type is an input error naming the file and the key.
void apply_toml_file(RunConfig& cfg, const std::filesystem::path& path);
// The whole configuration as TOML, every parameter with its unit and help as a comment.
[[nodiscard]] std::string to_toml(const RunConfig& cfg);

// Text form of a parameter's current value (as it would be written in TOML, without quotes).
[[nodiscard]] std::string param_value_text(const RunConfig& cfg, const ParamSpec& spec);

}  // namespace nbody
