#pragma once
// `nbody bench`: the optimization study as a benchmark. Suites of measurements, each verified
// against the float64 reference before its time counts, written as a table, JSON and CSV.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "nbody/precision.hpp"
#include "tree_scaling.hpp"

namespace nbody::bench {

struct Options {
  std::vector<std::string> suites;       // ladder, blocksize, scaling, tune, precision, profile, multi-gpu
  std::int64_t n = 4096;                 // ladder / blocksize / profile
  std::vector<Precision> precisions;     // ladder and profile (default fp32); multi-gpu where named
  bool precisions_named = false;         // --precision given (multi-gpu: else fp32 and fp64)
  std::vector<std::string> rungs;        // only these rungs (empty: all)
  std::int64_t max_n = 4194304;          // scaling and tune stop here
  std::int64_t min_n = 0;                // multi-gpu's strong scaling starts here (0: 2^18)
  bool quick = false;                    // fewer repeats and sizes: a smoke test
  std::string json_path;
  std::string csv_path;
  std::string command_line;              // recorded in the JSON
  // tree suite (bench/tree_suite.cpp); empty lists: the suite's defaults (see docs/tree.md)
  std::vector<std::int64_t> tree_n;        // body counts
  std::vector<std::string> tree_models;    // cube, plummer, hernquist, disk-galaxy
  std::vector<double> tree_theta;          // opening angles (every N)
  int tree_samples = 0;                    // targets of the float64 reference (0: by N)
  double tree_softening = 0.01;            // Plummer softening of tree and reference
  double tree_budget_s = 400;              // no (model, N) is started that would end past this
  int tree_leaf = 16;                      // the tree's leaf size (bodies)
  int tree_group = 64;                     // the walk's target group size (bodies)
  std::int64_t tree_bodies_per_rank = 0;   // tree-scaling weak: bodies a rank (0: 2^15; --quick 2^11)
  std::int64_t tree_bodies = 0;            // tree-scaling strong: bodies in all (0: 2^17; --quick 2^13)
  int pic_ny = 0;                          // pic-scaling: grid rows (0: the suite's default)
  int pic_steps = 0;                       // pic-scaling: timed steps a record (not sorting, transfer; 0: 10)
  std::string pic_deposit = "atomic";      // pic-scaling on GPUs: the slabs' deposit (atomic, warp)
  std::string pic_exchange = "host";       // pic-scaling on GPUs: the guard messages (host-staged, ipc)
  std::string pic_precision = "float64";   // pic suite: the particle store (float64, float32, float32-currents)
  // ensemble suite (bench/ensemble_suite.cpp); empty lists: the suite's defaults
  std::vector<int> ensemble_sizes;                        // bodies a system
  std::vector<std::int64_t> ensemble_counts;              // systems
  std::int64_t ensemble_max_bodies = std::int64_t(1) << 28;  // the batched GPU records' bodies in all
  std::int64_t ensemble_cpu_max_bodies = std::int64_t(1) << 18;  // the CPU records' bodies
  std::vector<std::string> ensemble_shapes;  // the GPU's shapes (auto, group, warp, block; empty: auto)
  int ensemble_block_bodies = 0;             // a block a system from this size (0: the policy's)
  std::int64_t ensemble_scatterings = 0;     // scattering records of this many systems (0: none)
};

// What a tree-suite record measured (suite "tree"; rung tree-gpu, tree-cpu, direct-gpu,
// direct-cpu or crossover). Times are medians over the repeats, in seconds; -1: not measured.
struct TreeFields {
  std::string model;
  double theta = 0;
  double softening = 0;
  int samples = 0;                    // targets of the float64 reference sum
  double err_p50 = -1, err_p90 = -1, err_p99 = -1, err_max = -1;  // |a - a_ref| / |a_ref|
  double keys_s = -1, sort_s = -1, build_s = -1, multipoles_s = -1, walk_s = -1;
  double force_s = -1;       // the whole force pass (the phases and what lies between them)
  double kick_drift_s = -1;  // the leapfrog's kick, drift, kick over the N bodies (dt = 0)
  double step_s = -1;        // force pass + kick/drift
  double m2p_per_particle = -1, p2p_per_particle = -1;
  double tree_bytes_per_body = -1;    // device (GPU) memory the tree took, per body
  double device_bytes_per_body = -1;  // the tree and the bodies' arrays (x, v, m, a)
  int cells = 0, groups = 0, depth = 0;
  bool same_bits = false;             // the sampled accelerations equal on every pass
  double extrapolated_step_s = -1;    // direct sum not run at this N: c N^2 from the largest run
  // crossover records: the N where the tree's force pass becomes faster than the direct sum's
  double crossover_n = -1;
  std::string crossover_kind;         // "interpolated", "at or below", "not reached", "no data"
  bool crossover_extrapolated = false;
};

// What a hermite-suite record measured (suite "hermite"; rung block, shared, leapfrog or
// all-pairs). -1: not measured.
struct HermiteBenchFields {
  double softening = 0;
  double eta = 0;                   // Aarseth's eta (block, shared); leapfrog: its dt
  double interval = 0;              // the timed stretch of time (after the start-up interval)
  double wall_per_time_unit_s = -1;
  std::uint64_t block_steps = 0;    // force passes in the timed interval
  double mean_active = -1;          // active bodies per block step
  std::vector<std::uint64_t> active_histogram;  // block steps with 2^b <= active < 2^(b+1), b = 0, 1, ...
  double effective_rate = -1;       // billion interactions / s: sum of active x N over the wall time
  double all_pairs_rate = -1;       // billion interactions / s of one acceleration-and-jerk pass of all N
  double energy_error = -1;         // |dE/E| from t = 0 to the end of the timed interval
};

// One measured (or failed, or skipped) configuration.
struct Record {
  std::string suite;
  std::string rung;
  std::string precision;
  std::int64_t n = 0;
  std::string shape;           // launch shape; "" on the CPU
  int steps = 0;               // steps per timed repeat
  int repeats = 0;
  double median_s = 0;         // per step
  double mean_s = 0;           // per step
  double min_s = 0;            // per step
  double rate = 0;             // billion interactions / s from the median
  bool verified = false;
  std::string verification;    // how it was verified, with the error and the tolerance
  std::string error;           // why there is no time (a failed launch, wrong positions)
  std::string skipped;         // why it was not run
  double speedup_vs_serial = 0;    // ladder
  double speedup_vs_previous = 0;  // ladder
  double fraction_of_ceiling = 0;  // gpu-best and tune: rate / issue-slot ceiling at the measured clock
  bool policy_choice = false;      // tune: the shape the launch policy picks
  double energy_error = 0;         // precision suite: |dE/E0| of a leapfrog run
  int ranks = 0;                   // multi-gpu: ranks (GPUs) the pass is spread over
  double force_s = 0;              // multi-gpu: median of the force kernel on the rank's targets
  double comm_s = 0;               // multi-gpu: median of the gather of every rank's block
  double speedup_vs_one_rank = 0;  // multi-gpu strong: one rank's median / this median
  double efficiency = 0;           // multi-gpu: strong speedup / ranks; weak rate / (ranks x one rank's)
  // pic suite: nanoseconds per particle per step (particle kernels alone, whole step: median_s /
  // particles), the baseline's (the CAS rung) whole step over this one's, device memory, the
  // change of the Gauss residual over the verification steps (of the charge scale), sorting.
  double ns_particles = 0;
  double ns_step = 0;
  double speedup_vs_baseline = 0;
  double device_bytes = 0;
  double charge_error = -1;
  double empty_ratio = -2;  // -2: not a sorting record; < 0: never by ratio
  int sort_every = 0;
  long long sorts = -1;
  // multi-gpu over several ranks: the whole pass with --distribution-exchange pipelined (the
  // block in pieces, each piece's gather overlapping the next piece's forces; median_s is the
  // "gather" pass), its pieces, and whether its accelerations have the bits of the gather's.
  double pipelined_s = 0;
  int pipelined_chunks = 0;
  bool pipelined_same_bits = false;
  TreeFields tree;  // suite "tree" only
  HermiteBenchFields hermite;  // suite "hermite" only
  TreeScalingFields tree_scaling;  // suite "tree-scaling" only
  // pic-scaling (also ranks, force_s = the particles' part, comm_s, speedup_vs_one_rank,
  // efficiency, ns_step, ns_particles, charge_error, energy_error = vs the 1-rank run; shape =
  // the device, "cuda" or "cpu"): grid cells, and the fields' and migration's (sort's) seconds
  // per step (the slowest rank's).
  std::int64_t pic_cells = 0;
  std::string pic_deposit;  // the GPU slabs' deposition kernel ("" on the CPU: deterministic)
  std::string pic_exchange;  // the GPU slabs' guard messages over several ranks ("host", "ipc")
  // pic-scaling moving-target records: the load balance's moves, and the even split's median step
  // over the balanced one's
  int rebalances = 0;
  double speedup_vs_even_split = 0;
  double speedup_vs_slabs = 0;  // pic-scaling blocks: the slabs' median step over the blocks'
  double speedup_vs_every_step = 0;  // pic-scaling sorting: the mean step sorting every step over this policy's
  // pic-scaling transfer records: the message's bytes (median_s its one-way time, rate GB/s) and
  // the host-staged median over this one's (the GPU-to-GPU records)
  double transfer_bytes = 0;
  double speedup_vs_host = 0;
  double pic_fields_s = 0;
  double pic_migration_s = 0;
  // pic-scaling: the fastest rank's particle phase a step (force_s: the slowest's) and the most
  // mobile particles on a rank over the mean after the steps (1: even)
  double particles_fastest_s = 0;
  double most_particles_share = 0;
  // ensemble: the record's count of systems, those actually stepped (gpu-one, cpu: fewer), and
  // the batched GPU's rate over the CPU's and over one system at a time (rate: 1e9 system-steps/s)
  std::int64_t ensemble_systems = 0;
  std::int64_t ensemble_measured_systems = 0;
  double speedup_vs_cpu = 0;
  double speedup_vs_one = 0;

  [[nodiscard]] bool timed() const noexcept { return error.empty() && skipped.empty() && repeats > 0; }
};

struct Environment {
  std::string device = "none";
  int sm_count = 0;
  double sm_clock_rated_mhz = 0;
  double sm_clock_measured_mhz = 0;  // cycles counted by clock64() over event-timed spins, under load
  double memory_clock_mhz = 0;
  std::string driver;           // the NVIDIA driver (nvidia-smi)
  std::string cuda_driver_api;  // the CUDA version the driver supports
  std::string cuda_runtime;
  std::string host_cpu;
  int host_threads = 0;
  std::string nbody_version;
  std::string git_revision;
  std::string timestamp;
};

struct Report {
  Environment env;
  Options options;
  std::vector<Record> records;
  bool complete = true;  // false while the suites run (the results so far)
};

// The multi-gpu suite (bench/multi_gpu.cpp): every rank of the launch calls it; records come to
// `add` on rank 0 only.
void multi_gpu(const Options& options, const std::function<void(Record)>& add);

// The pic suite (bench/pic_suite.cpp): source document 004's deposition techniques and sorting
// policy on its setup, each verified against the deterministic float64 run before it is timed.
void pic_suite(const Options& options, const std::function<void(Record)>& add);
// The names --rungs takes for the pic suite: its rungs and its sorting records' groups.
[[nodiscard]] std::vector<std::string> pic_rung_names();
// The record groups --rungs takes for the pic-scaling suite: strong, strong-balanced, weak,
// moving-target, blocks, sorting, transfer.
std::vector<std::string> pic_scaling_groups();

// The pic-scaling suite (bench/pic_scaling.cpp): the PIC slabs over 1, 2, 4, ..., P ranks (run
// under mpirun -np P; every rank calls it, records come to `add` on rank 0 only), strong and weak.
void pic_scaling(const Options& options, const std::function<void(Record)>& add);

// The check of a pic-scaling record before it is timed: Gauss's law kept (the residual's change
// over the record's steps within gauss_bound of the largest charge density) and the total energy
// its reference run's: the 1-rank run of the same grid (strong, weak), the slabs (blocks), the
// even split (moving target); within energy_bound relative, or to the bit where it is 0.
struct PicScalingCheck {
  double gauss_change = 0;      // of the charge scale
  double energy = 0;            // total, after the record's steps
  double reference_energy = 0;  // the reference run's
  bool reference = false;       // the record is the reference run
  std::string against = "the 1-rank run's", reference_is = "the 1-rank reference";  // its names in the text
  double gauss_bound = 1e-12, energy_bound = 1e-12;
};
// Sets r.charge_error, r.energy_error, r.verification and r.verified; an unverified record gets
// r.error "pic WRONG: ..." (the suite then exits 1) and is given no times.
void check_pic_scaling_record(Record& r, const PicScalingCheck& c);

// The tree suite (bench/tree_suite.cpp): the Barnes-Hut tree's force error against a float64
// direct sum on sampled targets, per opening angle, model and N, and its time per phase.
void tree_suite(const Options& options, const std::function<void(Record)>& add);
// The tree-scaling suite (bench/tree_scaling.cpp): the tree over rank-owned bodies stepping a
// model on 1, 2, 4, ..., P ranks (run under mpirun -np P; every rank calls it, records come to
// `add` on rank 0 only), weak and strong: phase times, bytes, peaks, force errors.
void tree_scaling(const Options& options, const std::function<void(Record)>& add);
// bench/ensemble_suite.cpp
void ensemble_suite(const Options& options, const std::function<void(Record)>& add);

// The render suite (bench/render_suite.cpp): what a frame of a run costs beside a tree step.
void render_suite(const Options& options, const std::function<void(Record)>& add);

// The hermite suite (bench/hermite_suite.cpp): 4th-order Hermite with block steps against shared
// adaptive steps and leapfrog on Plummer spheres; wall time per time unit, energy error, the
// active sets, the effective and the all-pairs acceleration-and-jerk rates (docs/collisional.md).
void hermite_suite(const Options& options, const std::function<void(Record)>& add);

// The suites' names, in the order `nbody bench --help` lists them.
[[nodiscard]] const std::vector<std::string>& suite_names();

// Runs the suites of `options`, printing each record as it completes; returns everything.
Report run(const Options& options);

// Issue-slot ceilings (billion interactions / s) at an SM clock: 12 FP32 + 1 MUFU = 13 issue
// slots per pair on 128 FP32 lanes per SM; 17 FP64 instructions per pair on 64 FP64 lanes per SM
// (the conventional count; see report.cpp and interaction.hpp).
[[nodiscard]] double issue_ceiling(Precision p, int sm_count, double sm_clock_mhz) noexcept;

void write_json(const Report& report, const std::string& path);
void write_csv(const Report& report, const std::string& path);

}  // namespace nbody::bench
