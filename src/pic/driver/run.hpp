#pragma once
// A PIC run from a configuration, new or resumed, on the engine the configuration asks for
// (pic/driver/engine.hpp), through the run loop shared with gravity (src/run/drive.hpp).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "nbody/run.hpp"
#include "pic/driver/config.hpp"

namespace nbody::pic {

struct PicRunResult {
  std::int64_t first_step = 0;  // where stepping started (a resumed run's checkpoint step)
  std::int64_t steps = 0;       // steps made by this call
  std::int64_t last_step = 0;
  std::optional<std::string> stopped_by;  // the stop condition's reason, when one ended the run
  std::optional<std::filesystem::path> directory;
  std::string engine;  // PicEngine::name()
  double wall_seconds = 0;
  double particle_steps = 0;  // sum over steps of the particles pushed
  double particle_kernel_seconds = 0;  // GPU: the fused particle kernels alone (gather+push+deposit)
  bool gpu = false;
  double energy_start = 0, energy_end = 0;
  double laser_energy_in = 0, energy_out = 0;  // through the left / right planes, integrated
  // What those mean for the run: a laser enters through the left plane; energy leaves through
  // the right one where x is open (in a periodic box both planes are inside the plasma).
  bool laser = false, open_x = false;
  // The last diagnostic's change of div E - rho since the start, over max|rho_s| (the interior
  // nodes; the open boundary nodes are not Gauss exact).
  double gauss_residual = 0;
  // GPU slabs (pic/cuda/gpu_slabs.hpp): the run's time split, seconds summed over the steps, the
  // largest over the ranks: the particle kernels, the fields (fold and solve without the
  // messages), the communication (staging copies and MPI), the migration's compaction and sort.
  bool slabs_gpu = false;
  int ranks = 1;
  // Slabs: the times the load balance ([balance]) moved their boundaries, and the slabs' first
  // columns at the end (ranks + 1 values, nx last).
  int rebalances = 0;
  std::vector<int> slab_starts;
  double time_particles = 0, time_fields = 0, time_comm = 0, time_sort = 0;
  // How often the outputs brought the whole state (particles too) and the fields alone to rank
  // 0's host copy during the run (not counting the final state every run ends with).
  std::int64_t state_copies = 0, field_copies = 0;
};

// A new run of `c` from `sim` (build_pic_simulation: the whole plasma on rank 0, each other
// rank's block at least). With c.out_dir, its run directory (pic/output/run_directory.hpp:
// deck.toml, run.log, the lock, diagnostics.csv, dumps, images, checkpoints on their schedule,
// every checkpoint_every_s of wall time, on a stop and at the end). The hooks' logger, stop
// conditions and progress observer act as for gravity (their outputs are gravity's and are not
// used). `notes`: lines said first. On return `sim` holds the final state on rank 0. A directory
// holding files is refused unless `existing` replaces them.
PicRunResult run_pic(const PicConfig& c, PicSimulation& sim, const RunHooks& hooks = {},
                     ExistingRunFiles existing = ExistingRunFiles::refuse, const std::vector<std::string>& notes = {});

// Continues the run in `dir` from its newest checkpoint that reads back whole (a run stopped by
// a signal or the stop file, killed, or completed and now extended): the deck is the directory's
// deck.toml with `overrides` and `flags`, which may change only the run's length and the output
// cadences. Every file then goes on as the uninterrupted run writes it, byte for byte. A
// directory without a checkpoint starts again from step 0.
PicRunResult resume_pic(const std::filesystem::path& dir, const std::vector<std::string>& overrides,
                        const PicFlags& flags, const RunHooks& hooks = {}, const std::vector<std::string>& notes = {});

// What a run says at its end (the summary lines of `nbody pic run`).
std::vector<std::string> pic_summary(const PicRunResult& r);

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


}  // namespace nbody::pic
