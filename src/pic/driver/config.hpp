#pragma once
// The configuration of a PIC run: a TOML file with the tables [units], [grid], [time], [solver],
// [laser], [balance], [parallel], [output] and one [[species]] table per species, each key overridable from the command
// line (--set table.key=value). Lengths are in laser wavelengths lambda, times in laser periods
// lambda/c, densities in n_c (the file's units; internally c/omega0 and 1/omega0, see units.hpp).
// docs/pic.md lists every key.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pic/parallel/balance.hpp"
#include "pic/cuda/pic_gpu.hpp"
#include "pic/cpu/simulation.hpp"
#include "pic/output/openpmd_selection.hpp"

namespace nbody::pic {

struct SpeciesConfig {
  std::string name;
  std::string type;       // electron, deuteron, triton, proton, positron, or "custom"
  double charge = 0, mass = 0;  // custom (or overriding the type's)
  int ppc_x = 1, ppc_y = 1;
  bool regular = false;
  bool immobile = false;
  DensityProfile profile;  // lengths in lambda here
  std::string density_expr;     // profile = "expression": n(x, y) in n_c, x and y in lambda
  std::string table_file;       // profile = "table" from a file of x, n rows (absolute path)
  double expression_peak = 0;   // the expression's largest value at the grid's cell centres
  double temperature_keV = 0;
  double drift[3] = {0, 0, 0};  // u = gamma v
  ParticleBoundaries bc;
  std::uint64_t seed = 1;
};

// An [[output.fields]] or [[output.particles]] table: an openPMD dump of its own,
// <dir>/dumps/<name>/pic_SSSSSSSS.h5 every `every` steps.
struct SelectedDumpConfig {
  std::string name;
  std::int64_t every = 0;
  OpenPmdSelection selection;
};

// An [[output.probe]] table: E and B at a point, <dir>/probes/<name>.csv every `every` steps.
struct ProbeConfig {
  std::string name;
  double x = 0, y = 0;  // lambda
  std::vector<int> fields;  // components kEx .. kBz, in the deck's order
  std::int64_t every = 0;
};

struct PicConfig {
  double wavelength_um = 1.0;
  // grid (lambda)
  int nx = 0, ny = 0;
  double dx = 0, dy = 0, x0 = 0, y0 = 0;
  FieldBoundaries field_bc;  // boundary_x = "pml": open with field_bc.pml_cells_x = pml_cells
  int pml_cells = 16;
  bool pml_x = false;
  // time (lambda / c)
  double dt = 0;          // 0: courant x the solver's limit
  double courant = 0.98;  // used when dt = 0
  double t_start = 0;
  double t_end = 0;
  std::int64_t steps = 0;  // 0: from t_end
  // solver
  SolverKind solver = SolverKind::yee;
  ShapeOrder shape = ShapeOrder::cic;
  PusherKind pusher = PusherKind::boris;
  std::uint64_t seed = 1;
  bool use_gpu = false;        // solver.device = "cuda"
  bool deterministic = false;  // solver.deposit = "deterministic" (GPU)
  std::string deposit = "warp";  // solver.deposit: warp, atomic, deterministic, tiled, float32, cas, separate, redundant (GPU)
  int sort_every = 0;              // solver.sort_every (tiled, warp): sort every K steps (0: by ratio only)
  double empty_ratio = 0.05;       // solver.empty_ratio (tiled, warp): sort when this share is out of place
  // solver.particle_precision (GPU): "float64" (the default) or "float32", the GPU path's float32
  // particle store (pic/physics/particle_precision.hpp); the CPU path refuses float32
  ParticlePrecision particle_precision = ParticlePrecision::float64;
  BalanceSettings balance;         // [balance]: the slabs' load balance under mpirun (pic/balance.hpp)
  int ranks_y = 0;                 // parallel.ranks_y: block rows under mpirun (0: "auto", the default; 1: slabs along x)
  // parallel.exchange: how the GPU blocks move guard messages (pic/gpu.hpp's GuardExchange):
  // "host" (the default), "ipc" (CUDA IPC within a node), "mpi" (CUDA-aware MPI), "auto"
  GuardExchange exchange = GuardExchange::host;
  // laser (lengths and times in lambda, lambda/c)
  Laser laser;
  double laser_intensity_W_cm2 = 0;  // instead of a0 when > 0
  double laser_angle_deg = 0;        // laser.angle_deg: the incidence angle (laser.angle in radians)
  bool laser_focus_given = false;    // laser.focus_x was given (transverse = "focused" needs it)
  // output
  std::string out_dir;
  std::int64_t diag_every = 10;
  std::int64_t fields_every = 0;  // openPMD field/particle dumps; 0: none
  std::int64_t checkpoint_every = 0;  // <dir>/checkpoint.bin, replaced each time; 0: none
  std::int64_t images_every = 0;  // PNG field maps and phase spaces in <dir>/images/ (pic/images.hpp); 0: none
  // A checkpoint every this many seconds of wall time (0: none), so that a run killed by a
  // scheduler loses at most that much.
  double checkpoint_every_s = 1800;
  std::vector<SelectedDumpConfig> dumps;  // [[output.fields]] then [[output.particles]], in the deck's order
  std::vector<ProbeConfig> probes;        // [[output.probe]]
  std::vector<SpeciesConfig> species;
  // The deck's file as error messages name it.
  std::string source;
  // The deck as read, with every --set and flag applied (TOML): the run directory's deck.toml.
  std::string deck;
  // The same without what a resumed run may change (the run length, [output], [parallel],
  // [balance]): the physics, equal for every part of one run (the run id is drawn from it).
  std::string deck_identity;
};

// What the command line sets beside --set (each replaces the deck's value; --steps also drops
// time.t_end).
struct PicFlags {
  std::optional<std::int64_t> steps;
  std::optional<std::string> out;
};

// Reads and validates a configuration file; `overrides` are "table.key=value" pairs applied on
// top. Every problem is an input error naming the key (exit status 2).
PicConfig read_pic_config(const std::string& path, const std::vector<std::string>& overrides,
                          const PicFlags& flags = {});
// The same from the text of a configuration; `name` names it in error messages.
PicConfig read_pic_config_text(const std::string& text, const std::string& name,
                               const std::vector<std::string>& overrides, const PicFlags& flags = {});
// Checks the values (also after overrides): the Courant limit, species with particles, a laser
// with an amplitude, ...
void validate_pic_config(const PicConfig& c);
// The block rows of a run over `processes` ranks (pic/domain.hpp): parallel.ranks_y; for "auto"
// the divisor of the processes whose costliest block carries the least work — the particles the
// loader puts in its cells (the mobile species' particles per cell where the density is non-zero)
// plus balance.cell_cost a cell; at the even split, or with [balance] on (its block columns follow
// the work along x) the heaviest block row's share of a block column — then the shortest cuts,
// then the fewest rows; 1 on one process and (for "auto") on GPUs, where "auto" keeps slabs along
// x (an explicit ranks_y cuts GPU blocks too); 0 when no shape fits.
int block_rows(const PicConfig& c, int processes);

// The settings of `c` in code units (geometry, dt, laser), and each species with how to load it:
// the two halves of build_pic_simulation, for what must know the run before it is built (the
// memory plan, pic/driver/memory_plan.hpp).
PicSettings pic_settings(const PicConfig& c);
struct SpeciesLoad {
  Species species;
  LoadSpec load;
};
std::vector<SpeciesLoad> pic_species_loads(const PicConfig& c);
// The settings and loaded simulation in normalised units.
// load_particles = false: species without particles (to be restored from a checkpoint).
// `window`: load only the particles of these cells (with their ids; PicSimulation::load).
PicSimulation build_pic_simulation(const PicConfig& c, bool load_particles = true, const CellWindow* window = nullptr);
// The number of steps the configuration asks for.
std::int64_t pic_steps(const PicConfig& c);
// The time step in 1/omega0.
double pic_dt(const PicConfig& c);

}  // namespace nbody::pic
