#pragma once
// Checkpoints of a PIC run: the step, the time, every field array (guards included) and every
// species' particles, in a little-endian binary file written atomically. A run restarted from a
// checkpoint with the same configuration continues with the same bits as one that never stopped
// (the CPU path and the GPU path's deterministic mode are deterministic; the thermalising
// boundary's random numbers are keyed by the step).
#include <string>

#include "pic/cpu/simulation.hpp"

namespace nbody::pic {

void save_pic_checkpoint(const std::string& path, const PicSimulation& sim);
// Restores into a simulation built from the same configuration (grid and species names must
// match; an input error says what differs).
void load_pic_checkpoint(const std::string& path, PicSimulation& sim);

}  // namespace nbody::pic
