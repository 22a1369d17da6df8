#pragma once
// The PIC step on the host, in float64: gather -> push -> deposit per particle, then the field
// solve. Time levels: positions x^n, momenta u^{n-1/2}, E^n and B^n at the start of step n.
#include <cstdint>
#include <vector>

#include "pic/cpu/field_solver.hpp"
#include "pic/physics/grid.hpp"
#include "pic/physics/laser.hpp"
#include "pic/physics/particle_step.hpp"
#include "pic/physics/profile.hpp"
#include "pic/physics/pusher.hpp"
#include "pic/physics/shapes.hpp"
#include "pic/physics/species.hpp"

namespace nbody::pic {

struct PicSettings {
  GridGeometry geom;
  double dt = 0;
  double t0 = 0;
  SolverKind solver = SolverKind::yee;
  ShapeOrder shape = ShapeOrder::cic;
  PusherKind pusher = PusherKind::boris;
  FieldBoundaries field_bc;
  Laser laser;
  bool deposit = true;        // false: test particles (no current)
  bool solve_fields = true;   // false: fields stay as set (with the external ones)
  Vec3d external_e, external_b;  // uniform fields added at the particles
  std::uint64_t seed = 1;     // thermalising boundaries
};

// How to load a species: ppc_x * ppc_y particles in each cell whose centre has a non-zero
// density, on a regular sub-lattice (quiet) or at random positions in the cell (counter-based RNG
// keyed by the seed, the species and the cell), weights from the density at each particle.
struct LoadSpec {
  DensityProfile profile;
  int ppc_x = 1, ppc_y = 1;
  bool regular = false;
  double u_thermal[3] = {0, 0, 0};  // standard deviation of each momentum component
  double u_drift[3] = {0, 0, 0};
  std::uint64_t seed = 1;
};

// A rectangle of cells [i0, i1) x [j0, j1) (clamped to the grid by the loader).
struct CellWindow {
  int i0 = 0, i1 = 0, j0 = 0, j1 = 0;
};

// Whether a load puts particles in cell (i, j): a non-zero density at the cell's centre.
[[nodiscard]] inline bool load_fills_cell(const GridGeometry& g, const LoadSpec& spec, int i, int j) {
  return spec.profile(g.x0 + (i + 0.5) * g.dx, g.y0 + (j + 0.5) * g.dy) > 0;
}
// The particles a load puts inside `window` (the whole grid without one), counted over the cell
// centres without loading them: what a memory plan needs before anything is allocated.
[[nodiscard]] std::uint64_t count_load(const GridGeometry& g, const LoadSpec& spec, const CellWindow* window);

struct EnergyReport {
  double field = 0, e_field = 0, b_field = 0;
  std::vector<double> kinetic;  // per species
  double total = 0;
};

// The gather/deposit views of the host fields.
FieldViews field_views(Fields& f);
// The per-species constants of the particle step at step `step` (the thermal boundary's random
// numbers are keyed by it).
PushParams make_push_params(const PicSettings& s, const Species& sp, std::int64_t step);

class PicSimulation {
 public:
  explicit PicSimulation(const PicSettings& s);

  // Adds a species; the particles it comes with get the ids 0, 1, ... in the order given.
  int add_species(Species s);
  // Loads the species' particles (keyed by cell: the same particles whichever cells are loaded),
  // their ids (the index each has in the whole load) appended to particle_ids(); with `window`
  // only those of its cells — a rank's part of the plasma (pic/run.hpp, rank_load_window). The
  // ids are unique for a species loaded once, as the configuration loads them (a second load
  // into the same species numbers its particles from 0 again).
  void load(int species, const LoadSpec& spec, const CellWindow* window = nullptr);

  void step();
  void run(int steps) {
    for (int k = 0; k < steps; ++k) step();
  }

  // rho from the particles' present positions (all species, or one), into the rho array.
  void compute_rho(int only_species = -1);
  // max over the checked nodes of |div E - rho| (call compute_rho first), and max |rho|.
  [[nodiscard]] double gauss_residual_max() const;
  [[nodiscard]] double rho_abs_max() const;
  // div E - rho at every node (interior nodes; guards zero), for tracking its change.
  [[nodiscard]] std::vector<double> gauss_residual_field() const;

  [[nodiscard]] EnergyReport energies() const;
  // Poynting flux S_x = Ey Bz - Ez By through the plane x = x0 + (i + 1/2) dx, integrated over y.
  [[nodiscard]] double poynting_flux_x(int i) const;

  [[nodiscard]] Fields& fields() { return fields_; }
  [[nodiscard]] const Fields& fields() const { return fields_; }
  [[nodiscard]] std::vector<Species>& species() { return species_; }
  [[nodiscard]] const std::vector<Species>& species() const { return species_; }
  [[nodiscard]] const PicSettings& settings() const { return s_; }
  [[nodiscard]] const MaxwellSolver& solver() const { return solver_; }
  [[nodiscard]] double time() const { return t_; }
  [[nodiscard]] std::int64_t step_count() const { return step_; }
  // The time and step of a state brought in from elsewhere (a gather of the slabs, a checkpoint,
  // a copy from the GPU). The particle ids stay only when they came with it, set through the
  // mutable particle_ids() since the last step or set_time; otherwise they are dropped: such a
  // copy may have reordered or removed particles without them (the one-GPU path's copy_to).
  void set_time(double t, std::int64_t step);
  // Fills the guard cells after fields were set by hand.
  void refresh_guards() { solver_.fill_guards(fields_); }
  // The per-species constants of the particle step at the present step (also for the GPU path).
  [[nodiscard]] PushParams push_params(const Species& sp) const;
  // Stable particle ids per species (the index in the loaded order), in the order of the
  // species' arrays: step() keeps them through the compaction that removes absorbed particles,
  // the slab-decomposed run (pic/domain.hpp) gathers them, checkpoints carry them, openPMD dumps
  // write them. Code that reorders or removes particles outside step() must set them too (or
  // clear them). Taking the mutable accessor is how a gather or a checkpoint hands them over
  // (see set_time): code that only reads them goes through a const reference.
  [[nodiscard]] std::vector<std::vector<std::uint64_t>>& particle_ids() {
    ids_handed_over_ = true;
    return ids_;
  }
  [[nodiscard]] const std::vector<std::vector<std::uint64_t>>& particle_ids() const { return ids_; }
  // True when every species' ids are known: one list per species, as long as its arrays.
  [[nodiscard]] bool has_particle_ids() const;

 private:
  void push_species(int index);
  void solve_fields();

  PicSettings s_;
  Fields fields_;
  MaxwellSolver solver_;
  std::vector<Species> species_;
  std::vector<std::vector<std::uint64_t>> ids_;
  bool ids_handed_over_ = false;  // particle_ids() taken for writing since the last step or set_time
  double t_ = 0;
  std::int64_t step_ = 0;
};

}  // namespace nbody::pic
