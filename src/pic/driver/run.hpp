#pragma once
// A PIC run from a configuration: steps, scalar diagnostics (CSV), a summary.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pic/driver/config.hpp"

namespace nbody::pic {

struct PicRunResult {
  std::int64_t steps = 0;
  double wall_seconds = 0;
  double particle_steps = 0;  // sum over steps of the particles pushed
  double particle_kernel_seconds = 0;  // GPU: the fused particle kernels alone (gather+push+deposit)
  bool gpu = false;
  double energy_start = 0, energy_end = 0;
  double laser_energy_in = 0, energy_out = 0;  // through the left / right planes, integrated
  // The last diagnostic's change of div E - rho since the start, over max|rho_s| (the interior
  // nodes; the open boundary nodes are not Gauss exact).
  double gauss_residual = 0;
  // GPU slabs (pic/gpu_slabs.hpp): the run's time split, seconds summed over the steps, the
  // largest over the ranks: the particle kernels, the fields (fold and solve without the
  // messages), the communication (staging copies and MPI), the migration's compaction and sort.
  bool slabs_gpu = false;
  int ranks = 1;
  // Slabs: the times the load balance ([balance]) moved their boundaries, and the slabs' first
  // columns at the end (ranks + 1 values, nx last).
  int rebalances = 0;
  std::vector<int> slab_starts;
  double time_particles = 0, time_fields = 0, time_comm = 0, time_sort = 0;
};

// progress(step done, total, seconds so far)
using PicProgress = std::function<void(std::int64_t, std::int64_t, double)>;

// Runs the configured steps, writing <out>/diagnostics.csv every diag_every steps (and the
// first and last) and <out>/units.json (the SI conversion) when out_dir is set.
PicRunResult run_pic(const PicConfig& c, PicSimulation& sim, const PicProgress& progress = {});

// Whether the run goes through the slab decomposition (pic/domain.hpp): on the CPU over several
// MPI ranks, or with solver.deposit = "deterministic" (then on one rank the same as on P ranks).
bool use_slab_decomposition(const PicConfig& c);

// Whether a GPU run goes through the GPU slabs (pic/gpu_slabs.hpp): over several MPI ranks, or
// with solver.deposit = "deterministic" (then one rank has the bits of P ranks).
bool use_gpu_slabs(const PicConfig& c);

// The cells whose particles this rank loads at the start of a run over several ranks (slabs or
// blocks, CPU or GPU): its block at the even split and one cell around it (a particle's position
// can round into the next cell; DomainPic keeps the ones it owns). None on rank 0, which loads
// the whole plasma for the first diagnostics and outputs, and on one process: every other rank
// holds its part of the plasma only, from the start.
std::optional<CellWindow> rank_load_window(const PicConfig& c);
// The same window for block `rank` of `ranks` cut into ranks_y block rows (the benchmark's
// sub-communicators): the block at the even split and one cell around it.
CellWindow block_load_window(const PicConfig& c, int ranks, int rank, int ranks_y);

// The columns of diagnostics.csv for these species.
std::string diagnostics_header(const PicSimulation& sim);

}  // namespace nbody::pic
