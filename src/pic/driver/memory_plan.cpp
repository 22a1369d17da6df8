#include "pic/driver/memory_plan.hpp"

#include <algorithm>
#include <cstdio>

#include "comm/communicator.hpp"
#include "core/host_memory.hpp"
#include "particles/memory.hpp"
#include "pic/cuda/pic_gpu.hpp"
#include "pic/driver/run.hpp"
#include "pic/parallel/domain.hpp"

namespace nbody::pic {
namespace {

// A particle on the host: x, y, ux, uy, uz, w and its 64-bit id.
constexpr std::size_t kParticleBytes = 6 * sizeof(double) + sizeof(std::uint64_t);

std::size_t times(std::size_t n, std::size_t bytes) { return n > SIZE_MAX / std::max<std::size_t>(bytes, 1) ? SIZE_MAX : n * bytes; }
std::size_t add(std::size_t a, std::size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

}  // namespace

PicMemoryPlan plan_pic_memory(const PicConfig& c, int ranks, int rank, std::optional<std::uintmax_t> checkpoint_bytes) {
  const PicSettings s = pic_settings(c);
  const GridGeometry& g = s.geom;
  const std::vector<SpeciesLoad> loads = pic_species_loads(c);
  const bool slabs = ranks > 1 || c.deterministic;
  // (rank 0 holds the whole plasma of a new run; on a resume every rank reads the whole checkpoint)
  const bool whole = rank == 0 || checkpoint_bytes.has_value();
  const std::size_t arrays = std::size_t(kComponents) + (s.field_bc.pml_cells_x > 0 ? kPsiCount : 0);
  PicMemoryPlan p;
  p.points = g.size();

  // This process's particles: drawn (rank 0 all of them, another rank its block's with a cell
  // around it), or read from the checkpoint (every rank reads it whole; the bytes past the fields
  // are taken at 48 a particle, which overcounts by the ids' 8 where they are stored).
  std::optional<CellWindow> window;
  const int ranks_y = !slabs ? 1 : c.ranks_y > 0 ? c.ranks_y : block_rows(c, ranks);
  if (ranks > 1 && rank > 0 && slabs) window = block_load_window(c, ranks, rank, ranks_y);
  std::vector<std::uint64_t> per_species;
  for (const SpeciesLoad& l : loads)
    per_species.push_back(checkpoint_bytes ? 0 : count_load(g, l.load, window ? &*window : nullptr));
  if (checkpoint_bytes) {
    const std::size_t fields = times(times(g.size(), sizeof(double)), arrays + 1);
    const std::uintmax_t rest = *checkpoint_bytes > fields ? *checkpoint_bytes - fields : 0;
    if (!per_species.empty()) per_species[0] = std::uint64_t(rest / (6 * sizeof(double)));
  }
  for (std::uint64_t n : per_species) p.particles += n;

  // The host: the fields of the whole grid on every process (the block engines copy their own
  // part), the particles, and on rank 0 the initial Gauss residual with the field it is measured
  // from; then the largest of what comes on top at one time: a checkpoint's bytes as they are
  // written (the state again), the checkpoint read on a resume, the block engines' copies of their
  // block (its fields twice on GPUs: the host block and the upload's).
  const std::size_t fields = times(times(g.size(), sizeof(double)), arrays);
  const std::size_t particles = times(std::size_t(p.particles), kParticleBytes);
  const std::size_t state = add(fields, particles);
  std::size_t host = add(state, whole ? times(g.size(), 2 * sizeof(double)) : 0);
  std::size_t peak = 0;
  // (an openPMD dump holds about as much as a checkpoint, and HDF5's buffers beside it: an eighth
  // of the state and 16 MiB more, measured by pic.PicMemoryPlan.CoversTheMeasuredPeak)
  if (rank == 0 && !c.out_dir.empty())
    peak = std::max(peak, add(add(state, times(g.size(), sizeof(double))), add(state / 8, std::size_t(16) << 20)));
  if (checkpoint_bytes) peak = std::max<std::size_t>(peak, std::size_t(std::min<std::uintmax_t>(*checkpoint_bytes, SIZE_MAX)));
  SlabLayout layout;
  GridGeometry block = g;
  std::uint64_t block_particles = p.particles, most = 0;
  if (slabs) {
    layout = block_layout(c.nx, c.ny, c.field_bc.x == FieldBoundary::periodic, c.field_bc.y == FieldBoundary::periodic,
                          ranks, ranks_y, rank);
    block.nx = layout.i1 - layout.i0;
    block.ny = layout.j1 - layout.j0;
    const CellWindow own{layout.i0, layout.i1, layout.j0, layout.j1};
    block_particles = 0;
    for (const SpeciesLoad& l : loads) {
      const std::uint64_t n = checkpoint_bytes ? 0 : count_load(g, l.load, &own);
      block_particles += n, most = std::max(most, n);
    }
    if (checkpoint_bytes) block_particles = p.particles / std::uint64_t(ranks) + 1, most = block_particles;
    const std::size_t block_fields = times(times(block.size(), sizeof(double)), arrays);
    host = add(host, add(times(block_fields, c.use_gpu ? 2 : 1), times(std::size_t(block_particles), kParticleBytes)));
  } else {
    for (std::uint64_t n : per_species) most = std::max(most, n);
  }
  p.host_bytes = add(host, peak);

  if (c.use_gpu) {
    PicGpuFootprint f;
    f.geom = block;
    f.shape = s.shape;
    f.pml = s.field_bc.pml_cells_x > 0;
    f.particles = std::size_t(block_particles), f.most = std::size_t(most), f.species = loads.size();
    f.slab = slabs, f.ranks = slabs ? ranks : 1;
    f.precision = c.particle_precision;
    p.device_bytes = pic_gpu_device_bytes(f, deposit_kernel(c.deposit));
    const int devices = pic_gpu_device_count();
    p.device = slabs && devices > 0 ? layout.rank % devices : 0;
  }
  char b[96];
  std::snprintf(b, sizeof b, "%llu", static_cast<unsigned long long>(p.particles));
  p.what = "pic: grid " + std::to_string(c.nx) + " x " + std::to_string(c.ny) + " cells (grid.nx, grid.ny in '" +
           c.source + "') and " + b + " particles" + (checkpoint_bytes ? " (from the checkpoint)" : "") +
           (ranks > 1 ? " on rank " + std::to_string(rank) + " of " + std::to_string(ranks) : "");
  return p;
}

void require_pic_memory(const PicConfig& c, std::optional<std::uintmax_t> checkpoint_bytes) {
  const comm::Communicator& world = comm::world();
  const PicMemoryPlan p = plan_pic_memory(c, world.size(), world.rank(), checkpoint_bytes);
  // (the GPU first: usually the tighter memory, and the one a request that fits neither names)
  if (p.device_bytes > 0 && pic_gpu_available()) require_memory(Location::cuda(p.device), p.device_bytes, p.what);
  require_memory(Location::host(), p.host_bytes, p.what);
}

}  // namespace nbody::pic
