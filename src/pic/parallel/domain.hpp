#pragma once
// A PIC run over several processes (docs/pic.md, "Several processes"): the grid is cut into
// blocks of whole cells, ranks_x along x times ranks_y along y (slabs of whole cell columns when
// ranks_y = 1), one per rank (rank = block row x ranks_x + block column); each rank holds the
// fields of its block with kGuard guard cells a side and the particles whose cell is in it.
// One step on every rank:
//   1. push and deposit its particles (the same advance_particle as one process), the current
//      into one of M x M arrays chosen by the particle's cell column modulo M and cell row modulo
//      M (M = 4 for CIC, 6 for TSC: the number of cells a particle's Esirkepov stencil reaches
//      along an axis), so every value of an array at a node comes from one cell, which one rank
//      owns;
//   2. fold each array's guards: the y guard rows first (over every column, the x guards
//      included: as one process folds them, or sent to the neighbour below or above and added
//      into its rows), then the x guard columns (over every row, to the left or right
//      neighbour, added: a sum, not a copy); then J = A_0 + A_1 + ... node by node in that order;
//   3. the field update on the block's own points, the E and B guards exchanged with the
//      neighbours after each of its three parts (MaxwellSolver::fill_guards: x, then y over
//      every column, so the corners come from the diagonal neighbour);
//   4. particles whose cell left the block go to the neighbour that owns it (along x, then
//      along y with the arrivals: a corner crossing takes two hops), and every rank keeps its
//      particles sorted by their stable id (the index in the loaded order).
// Bit-identical results on any number and shape of blocks: a node's value in an array is a sum
// over the particles of one cell in id order (the same order on any decomposition), plus at most
// the periodic images added as one process adds them (y, then x); the arrays are added in a fixed
// order. The single-process run with solver.deposit = "deterministic" uses this same class with
// one rank.
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "comm/communicator.hpp"
#include "pic/parallel/balance.hpp"
#include "pic/cpu/simulation.hpp"
#include "pic/parallel/slab_index.hpp"

namespace nbody::pic {

struct SlabLayout {
  int rank = 0, size = 1;
  int i0 = 0, i1 = 0;         // the block's cell columns [i0, i1)
  int left = -1, right = -1;  // the neighbours' ranks (-1: a global open edge; itself never for ranks_x > 1)
  std::vector<int> starts;    // every block column's first column, and nx last (ranks_x + 1 values)
  // Along y (one block row, rows = {} and j0 = j1 = 0, unless made by block_layout):
  int ranks_x = 1, ranks_y = 1;  // size = ranks_x * ranks_y
  int bx = 0, by = 0;            // the block's column and row: rank = by * ranks_x + bx
  int j0 = 0, j1 = 0;            // the block's cell rows [j0, j1)
  int down = -1, up = -1;        // the neighbours' ranks along y
  std::vector<int> rows;         // every block row's first row, and ny last (ranks_y + 1 values)
};
// The even split (comm::block_of), or the slabs starting at `starts` (size + 1 ascending values,
// 0 first and nx last): one block row (the rows are the caller's).
SlabLayout slab_layout(int nx, bool periodic_x, int size, int rank);
SlabLayout slab_layout(const std::vector<int>& starts, bool periodic_x, int rank);
// Blocks: columns cut at `starts` (ranks_x + 1 values), rows at `rows` (ranks_y + 1 values).
SlabLayout block_layout(const std::vector<int>& starts, const std::vector<int>& rows, bool periodic_x, bool periodic_y,
                        int rank);
// What is wrong with cutting an nx x ny grid into blocks over `processes` ranks in ranks_y block
// rows: {the configuration key, the reason}, or two empty strings.
std::pair<std::string, std::string> block_shape_problem(int nx, int ny, int processes, int ranks_y);
// The even split of an nx x ny grid over `size` ranks in ranks_y block rows.
SlabLayout block_layout(int nx, int ny, bool periodic_x, bool periodic_y, int size, int ranks_y, int rank);

// (BalanceSettings, balanced_starts, slab_imbalance: pic/balance.hpp)
// One step along a chain (or ring) of ranks, `pos` of n in it: `out` to the next (forward) or
// previous rank, what the other side sent (blocking: the chain's first rank sends first, every
// other receives first, so no two ranks wait on each other). Messages tagged tag (length) and
// tag + 1. T: double or std::uint64_t.
template <class T>
std::vector<T> chain_shift(comm::Communicator& comm, int pos, int n, int prev, int next, const std::vector<T>& out,
                           bool forward, int tag);
// Along the block row: to the right (or left) neighbour, what the left (or right) one sent.
template <class T>
std::vector<T> slab_shift(comm::Communicator& comm, const SlabLayout& l, const std::vector<T>& out, bool to_right,
                          int tag) {
  return chain_shift(comm, l.bx, l.ranks_x, l.left, l.right, out, to_right, tag);
}
// The smallest slab (2 kGuard columns, so that guard sums reach one neighbour only); blocks
// have at least as many rows.
inline constexpr int kMinSlabColumns = 2 * kGuard;
// The number of cells along an axis whose stencils reach a node (the deterministic deposition
// keeps deposit_classes^2 x 3 current arrays on the CPU; the GPU slabs keep deposit_classes x 3).
inline constexpr int deposit_classes(ShapeOrder s) { return s == ShapeOrder::tsc ? 6 : 4; }

class DomainPic {
 public:
  // Keeps this rank's block of `global` (the same state on every rank: built from the
  // configuration, or read from a checkpoint) in ranks_y block rows (comm.size() a multiple of
  // it); particle ids from global.particle_ids() when it has them, else the index. Collective.
  DomainPic(const PicSimulation& global, comm::Communicator& comm, int ranks_y = 1);

  // One step (collective).
  void step();
  // Replaces the slab's fields (E, B, J, rho and the PML memories), particles with their ids,
  // step and time: the GPU slab path (pic/gpu_slabs.hpp) brings its state back through this
  // (the particles moved in where the caller has no more use for them).
  void set_state(const Fields& f, std::vector<Species> species, std::vector<std::vector<std::uint64_t>> ids,
                 std::int64_t step, double t);
  // The slab's particles and their ids moved out (the GPU slabs upload them); the slab keeps
  // its species without particles.
  void take_particles(std::vector<Species>& species, std::vector<std::vector<std::uint64_t>>& ids);
  // The whole state into `global` (collective): fields of every slab, guard columns as one
  // process has them, particles in id order with their ids, step and time; on every rank, or
  // on rank `root` only (the others' `global` is left as it is).
  void gather(PicSimulation& global, int root = -1);
  // The fields of every slab alone into `global`, with the step and time (collective, as gather;
  // its particles are left as they were).
  void gather_fields(PicSimulation& global, int root = -1);
  // The slab's fields, step and time replaced (the GPU slabs' device fields brought back alone).
  void set_fields(const Fields& f, std::int64_t step, double t);
  // The Poynting flux through the plane x = x0 + (i + 1/2) dx, integrated over y (as
  // PicSimulation::poynting_flux_x), computed by the rank owning column i, on every rank.
  double poynting_flux_x(int i);
  // A sum over the rows of the plane x = x0 + (i + 1/2) dx in one process's order: the blocks of
  // its block column bottom to top, each going on from the sum of the block below (`rows(sum)`
  // adds this block's terms, row 0 first, to the running sum and returns it). The whole sum on the
  // plane's top block (plane_top_rank), partial sums below, 0 on the other ranks. Collective over
  // the plane's block column; `tag` tells concurrent sums apart.
  double column_sum(int i, const std::function<double(double)>& rows, int tag);
  [[nodiscard]] int plane_top_rank(int i) const;

  // Load balance (BalanceSettings): balance() = plan_balance(column_costs()) and, when that
  // asks for it, redistribute(). Collective; returns whether the slabs changed.
  bool balance(const BalanceSettings& b);
  // This block's columns' costs (mobile particles + cell_cost x the block's rows), column i0
  // first. The balance moves the block columns' starts (every block row alike): the costs are
  // summed over the block rows.
  [[nodiscard]] std::vector<double> column_costs(double cell_cost) const;
  // Every rank's costs gathered (collective); new starts when the imbalance exceeds
  // 1 + threshold and the new split is more even, else an empty vector (the same on every rank).
  std::vector<int> plan_balance(const std::vector<double>& my_costs, const BalanceSettings& b);
  // The slabs starting at `starts` (collective): each rank sends the columns it no longer owns
  // (fields with their rows of guards, PML memories, particles with their ids) to their new
  // owners, point to point; the guards are filled again; particles stay sorted by id.
  void redistribute(const std::vector<int>& starts);
  // Slab layouts changed so far.
  [[nodiscard]] int rebalances() const { return rebalances_; }

  [[nodiscard]] const SlabLayout& layout() const { return layout_; }
  // The owner arithmetic (pic/slab_index.hpp) over these slab starts (held by the caller).
  [[nodiscard]] SlabOwner owner(const std::vector<int>& starts) const;
  [[nodiscard]] std::int64_t step_count() const { return step_; }
  [[nodiscard]] double time() const { return t_; }
  [[nodiscard]] std::size_t local_particles(bool mobile_only = false) const;
  [[nodiscard]] const Fields& fields() const { return fields_; }
  [[nodiscard]] const std::vector<Species>& species() const { return species_; }
  // This slab's particle ids per species (sorted).
  [[nodiscard]] const std::vector<std::vector<std::uint64_t>>& ids() const { return ids_; }
  // Host-clock seconds of this rank's steps so far, summed (a scaling study's time split, as
  // PicGpu::StepTimes): the push and deposit, the fold and field solve less their messages, the
  // neighbour messages (guards, folds, migration records), the migration less its messages, and
  // the whole step. Timing changes no result.
  struct PhaseTimes {
    double particles = 0, fields = 0, comm = 0, migration = 0, step = 0;
  };
  [[nodiscard]] const PhaseTimes& total_times() const { return times_; }

 private:
  void gather_state(PicSimulation& global, int root, bool particles);
  void configure_solver();
  void merge_by_id(std::size_t k, const std::vector<std::uint64_t>& records);
  template <class Shape>
  void push_species(std::size_t k);
  void fold_and_sum_currents();
  void exchange_field_guards(Fields& f);
  void migrate();
  template <class T>
  std::vector<T> collect(const std::vector<T>& mine, int root);
  void exchange_field_guards_y(Fields& f);
  // Along x (to the right, or left) or, with along_y, along y (up, or down).
  template <class T>
  std::vector<T> shift(const std::vector<T>& out, bool forward, int tag, bool along_y = false) {
    const auto t0 = std::chrono::steady_clock::now();
    const SlabLayout& l = layout_;
    std::vector<T> in = along_y ? chain_shift(*comm_, l.by, l.ranks_y, l.down, l.up, out, forward, tag)
                                : chain_shift(*comm_, l.bx, l.ranks_x, l.left, l.right, out, forward, tag);
    comm_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return in;
  }
  // The rank owning a position's cell: its block column and block row.
  [[nodiscard]] int owner_rank(double x, double y) const;
  [[nodiscard]] SlabOwner row_owner() const;
  // The gathered extent of rank r's block in global cells: [c0, c1) x [r0, r1) (its own cells,
  // and the guards beyond the global edges as one process keeps them).
  [[nodiscard]] std::array<int, 4> gathered_extent(int r) const;

  PicSettings s_;  // the global settings
  comm::Communicator* comm_;
  SlabLayout layout_;
  GridGeometry lg_;  // the block's geometry (nx = i1 - i0, ny = j1 - j0; y0 the whole grid's)
  Fields fields_;
  MaxwellSolver solver_;
  std::vector<Species> species_;
  std::vector<std::vector<std::uint64_t>> ids_;
  int classes_ = 4;                       // M (per axis)
  std::vector<std::vector<double>> acc_;  // [class * 3 + component], class = (column mod M) * M + row mod M
  double t_ = 0;
  std::int64_t step_ = 0;
  int rebalances_ = 0;
  PhaseTimes times_;
  double comm_seconds_ = 0;  // in shift(), since the start
};

}  // namespace nbody::pic
