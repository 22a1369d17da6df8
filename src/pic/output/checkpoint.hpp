#pragma once
// Checkpoints of a PIC run: the step, the time, every field array (guards included) and every
// species' particles, in a little-endian binary file written atomically. A run restarted from a
// checkpoint with the same configuration continues with the same bits as one that never stopped
// (the CPU path and the GPU path's deterministic mode are deterministic; the thermalising
// boundary's random numbers are keyed by the step).
//
// A run's checkpoint also carries its run id and progress (PicRunRecord), and every checkpoint
// ends with an FNV-1a 64 checksum of all its bytes: a damaged file is refused, not restored.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pic/cpu/simulation.hpp"
#include "pic/physics/particle_precision.hpp"

namespace nbody::pic {

// What a checkpoint records of the run beside the state, so that a resumed run goes on writing
// every file as the uninterrupted run would have.
struct PicProgress {
  std::int64_t diagnostics_rows = 0;     // rows of diagnostics.csv (the header not counted)
  std::int64_t fields_step = -1;         // the step of the last scheduled openPMD / reduced dump (-1: none)
  std::int64_t images_step = -1;         // the step of the last scheduled images (-1: none)
  double energy_in = 0, energy_out = 0;  // the Poynting flux integrated through the two planes
  double energy_start = 0;               // the total energy at step 0 (the summary)
  // Gauss's law is measured as the change of div E - rho since step 0 over the largest density
  // of one species then (the initial loading is not Gauss consistent).
  double rho_scale = 0;
  std::vector<double> initial_residual;
};

struct PicRunRecord {
  std::string run_id;  // the run directory's (io/run_files.hpp)
  PicProgress progress;
};

// `precision`: the run's particle store (solver.particle_precision), recorded when float32 (a
// float64 run's file is as it always was); the float32 store's values are exact in the file's
// float64 and encode back to the same bits (particle_precision.hpp).
void save_pic_checkpoint(const std::string& path, const PicSimulation& sim, const PicRunRecord* run = nullptr,
                         ParticlePrecision precision = ParticlePrecision::float64);
// Restores into a simulation built from the same configuration (grid and species names must
// match; an input error says what differs, or that the file is damaged); returns the run record
// when the checkpoint has one.
// With `check_state` (the default) the state read is checked as check_pic_state does. A checkpoint
// written with another particle precision than `precision` is refused (an input error naming both).
std::optional<PicRunRecord> load_pic_checkpoint(const std::string& path, PicSimulation& sim, bool check_state = true,
                                                ParticlePrecision precision = ParticlePrecision::float64);
// Refuses (an input error naming `path`, the species, the particle, the key and the value) a state
// the step cannot take: a field value or momentum that is not finite, a weight that is not finite
// or is negative, a particle outside the grid (it would index cells beyond the arrays).
void check_pic_state(const std::string& path, const PicSimulation& sim);

}  // namespace nbody::pic
