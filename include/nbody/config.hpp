#pragma once
// The run configuration and its schema. RunConfig is composed of one plain struct per section
// ([run], [model], [gravity], [integrator], [output]); each subsystem declares the parameters of
// its section once (key, type, unit, range, help, choices, when it applies, whether a resumed run
// may change it), and the CLI flags, the TOML file, validation, checkpoints and the resolved
// configuration written into every run directory all come from those tables.
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace nbody {

// Snapshot formats this build can write ("hdf5" only when built with HDF5), and the default:
// hdf5 when built with it, else csv (defined in src/io/particle_file.cpp).
[[nodiscard]] std::vector<std::string> snapshot_format_names();
[[nodiscard]] std::string default_snapshot_format();

// [run]: how long the run lasts, and on how many CPU threads.
struct RunSection {
  std::int64_t steps = 1000;
  double t_end = 0;         // run until this simulation time (steps derived from it); 0: off
  double start_time = 0;    // simulation time at step 0 (0 with --ic file: the file's time)
  std::string from;         // a new run continued from this checkpoint file (its state and time)
  std::int64_t threads = 0;  // OpenMP threads of the CPU work; 0: OMP_NUM_THREADS when set, else every core

  bool operator==(const RunSection&) const = default;
};

// [model]: the initial conditions and the unit system. See core/units.hpp and the header
// comment of each src/ic/<model>.cpp.
struct ModelSection {
  std::string ic = "plummer";
  std::int64_t n = 4096;
  std::int64_t seed = 1;
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

  bool operator==(const ModelSection&) const = default;
};

// [gravity]: the force law, where it is computed and how.
struct GravitySection {
  double gravitational_constant = 0.0;  // 0: the unit system's G (see core/units.hpp)
  double softening = 0.01;  // Plummer softening length epsilon (the documents' eps^2 = 1e-9 is 3.1623e-5)
  std::string softening_law = "plummer";
  std::string device = "auto";    // auto, cpu, cuda
  std::string gravity = "direct";  // direct, reference (the float64 CPU oracle), tree (Barnes-Hut, CPU)
  std::string precision = "fp32";
  double theta = 0.5;                         // tree: opening angle (0 opens every cell)
  std::string tree_criterion = "barnes-hut";  // tree: barnes-hut or relative (GADGET's)
  double tree_alpha = 0.005;                  // tree: the relative criterion's tolerance
  std::int64_t tree_leaf_size = 16;           // tree: most bodies in a leaf
  std::int64_t tree_group_size = 64;          // tree: most targets in a group of the walk
  // Over several ranks: how the blocks of accelerations are exchanged (gravity/direct/distributed.hpp):
  // "gather" after the whole block, or "pipelined" in distribution_chunks pieces, each piece's
  // gather overlapping the next piece's forces. The same bits either way.
  std::string distribution_exchange = "gather";
  std::int64_t distribution_chunks = 4;

  bool operator==(const GravitySection&) const = default;
};

// [integrator]: the time integrator and its steps.
struct IntegratorSection {
  std::string integrator = "leapfrog";
  double dt = 0.01;
  std::string dt_mode = "fixed";
  double eta = 0.02;

  bool operator==(const IntegratorSection&) const = default;
};

// [output]: the run directory and the cadence of its files.
struct OutputSection {
  std::string out;
  std::int64_t snapshot_every = 0;
  std::int64_t diag_every = 0;
  double snapshot_every_t = 0;  // in simulation time units; 0: off
  std::string snapshot_format = default_snapshot_format();
  // Fields computed by the run's solver at the snapshot's time and written beside the state:
  // a comma list of "acc" (PartType1/Acceleration) and "pot" (PartType1/Potential); HDF5 only.
  std::string snapshot_fields;
  std::int64_t checkpoint_every = 0;
  double checkpoint_every_s = 0;  // wall-clock seconds; 0: off (the nbody program's default: 1800)

  bool operator==(const OutputSection&) const = default;
};

struct RunConfig : RunSection, ModelSection, GravitySection, IntegratorSection, OutputSection {
  bool operator==(const RunConfig&) const = default;
};

enum class ParamKind { integer, real, text };

// The top of a numeric range that has none: a ParamSpec whose max is kIntMax (an integer) or
// kRealMax (a real) is bounded below only, and its messages say so.
inline constexpr double kIntMax = double(std::numeric_limits<std::int64_t>::max());
inline constexpr double kRealMax = std::numeric_limits<double>::max();

// When a parameter acts on the run. An option given explicitly (a flag or a TOML key) for a run
// it does not act on is refused, naming it: "--virial-ratio: applies to --ic uniform-sphere only
// (the run uses plummer)". No rule: it always applies.
struct Applicability {
  bool (*applies)(const RunConfig&) = nullptr;
  std::string_view only;                          // "--ic uniform-sphere"
  std::string (*in_use)(const RunConfig&) = nullptr;  // what the run uses instead: "plummer"
};

struct ParamSpec {
  using Field = std::variant<std::int64_t RunConfig::*, double RunConfig::*, std::string RunConfig::*>;

  std::string_view key = {};         // TOML key; the long flag is --key with '_' written '-'
  std::string_view short_flag = {};  // e.g. "-n"; empty when none
  ParamKind kind = ParamKind::text;
  std::string_view unit = {};        // empty when dimensionless
  std::string_view help = {};
  double min = 0;               // numeric range (inclusive unless min_exclusive)
  double max = 0;
  bool min_exclusive = false;
  std::vector<std::string> (*choices)() = nullptr;  // allowed text values; nullptr: any text
  Field field = {};
  // Text values starting with this prefix are accepted besides the choices ("file:" for ic,
  // followed by a path); empty when none.
  std::string_view choice_prefix = {};
  // The TOML table the key belongs to ("model"); filled in from its ParamSection.
  std::string_view section = {};
  // A resumed run may give another value (how long it runs, how often it writes); any other
  // parameter would make the continuation a different run.
  bool may_change_on_resume = false;
  Applicability applicability = {};
  // An alias: another spelling that writes other parameters (--backend cpu-reference is
  // --device cpu --gravity reference). It is read (flags, TOML, old checkpoints) but never
  // written; `field` is unused. `assign` receives a value already checked against the choices.
  void (*assign)(RunConfig&, std::string_view value) = nullptr;
  std::string (*value_of)(const RunConfig&) = nullptr;  // the alias's spelling of the current values
  std::vector<std::string_view> writes = {};            // the keys an alias sets
  // The default as --help states it where the model chooses it (apply_model_defaults); empty:
  // the value of the defaults.
  std::string_view default_text = {};

  [[nodiscard]] std::string flag() const;  // "--snapshot-every"
  [[nodiscard]] bool is_alias() const { return assign != nullptr; }
  [[nodiscard]] bool applies_to(const RunConfig& cfg) const {
    return applicability.applies == nullptr || applicability.applies(cfg);
  }
};

// One TOML table of parameters, declared by the subsystem that owns it.
struct ParamSection {
  std::string_view name;   // the TOML table: "integrator"
  std::string_view title;  // the heading in --help and config.toml: "Integrator"
  std::vector<ParamSpec> params;  // aliases included
  // Checks that hold between parameters (beyond each value's range); throws an input error.
  void (*check)(const RunConfig&) = nullptr;
};

// The model's own defaults for what a new run did not give (`given`: the keys given by a flag or
// a TOML file): dt, 1/100 of the model's dynamical time in the run's units (0.01 in Henon units;
// 2e-5 yr for solar-system), and softening, 1/100 of the model's length unit (0 for
// solar-system). A run from a file (--ic file:PATH) takes the softening the file records (see
// read_particle_file_info) and keeps RunConfig's dt. Returns lines for the user: where a value
// came from, or a warning that a file records no softening and the default is used.
std::vector<std::string> apply_model_defaults(RunConfig& cfg, const std::vector<std::string>& given);
// A warning line when cfg.softening is large against the model's scales (empty when not).
[[nodiscard]] std::string softening_warning(const RunConfig& cfg);

// The sections in the order they are documented and written.
[[nodiscard]] const std::vector<ParamSection>& run_sections();
// The parameters of `nbody run` (aliases left out), in the order they are documented and written.
[[nodiscard]] const std::vector<ParamSpec>& run_params();
// nullptr when no parameter or alias has that key.
[[nodiscard]] const ParamSpec* find_run_param(std::string_view key);

// Parse `text` as the value of `spec`, check it, and store it. `source` names where the value
// came from in error messages ("--dt", "run.toml: [integrator] dt").
void set_param_from_text(RunConfig& cfg, const ParamSpec& spec, std::string_view text,
                         std::string_view source);
void set_param_integer(RunConfig& cfg, const ParamSpec& spec, std::int64_t value, std::string_view source);
void set_param_real(RunConfig& cfg, const ParamSpec& spec, double value, std::string_view source);

// Checks that hold between parameters, and each value against its range. Throws an input error.
void validate(const RunConfig& cfg);

// A value given explicitly (a flag or a TOML key), as written there.
struct GivenParam {
  const ParamSpec* spec = nullptr;
  std::string source;  // "--king-w0", "run.toml: [model] king_w0"
  std::string text;    // the value as given (for aliases and messages)
  // A TOML key holding the default value is accepted where the parameter does not apply: every
  // config.toml lists every parameter.
  bool silent_at_default = false;
};
// Throws an input error naming the first given parameter that does not apply to cfg, or an alias
// given beside a parameter it sets with another value.
void check_given(const RunConfig& cfg, const std::vector<GivenParam>& given);

// Reads a TOML file into cfg (keys not in the file keep their values): [section] tables of the
// section's keys, or (the older form) the same keys at the top level. A malformed file, an
// unknown key, a key in another section than its own, a value of the wrong type or (see
// check_given) a parameter that does not apply is an input error naming the file and the key.
void apply_toml_file(RunConfig& cfg, const std::filesystem::path& path);
// The same, leaving check_given to the caller (which may apply flags first): appends what the
// file gave to *given.
void apply_toml_file(RunConfig& cfg, const std::filesystem::path& path, std::vector<GivenParam>* given);
// The whole configuration as TOML in [section] tables, every parameter with its unit and help as a
// comment.
[[nodiscard]] std::string to_toml(const RunConfig& cfg);
// A TOML basic string (quoted and escaped by toml++) and a TOML float that reads back exactly.
[[nodiscard]] std::string toml_string(std::string_view s);
[[nodiscard]] std::string toml_real(double v);

// Text form of a parameter's current value (as it would be written in TOML, without quotes).
[[nodiscard]] std::string param_value_text(const RunConfig& cfg, const ParamSpec& spec);

// The configuration as `key<TAB>value` lines (tabs, newlines and backslashes escaped), every
// parameter: the CONF section of a checkpoint. config_from_lines reads them back through the
// schema (an alias's line too, as older checkpoints hold `backend`); `source` names the file.
[[nodiscard]] std::string config_to_lines(const RunConfig& cfg);
[[nodiscard]] RunConfig config_from_lines(std::string_view text, const std::string& source);

}  // namespace nbody
