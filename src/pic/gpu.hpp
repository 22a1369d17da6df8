#pragma once
// The GPU path of the PIC step (src/pic/cuda/, built only with CUDA; this header has no CUDA
// types). Float64 throughout. The state is copied from a host PicSimulation to the device, the
// steps run there, and copy_to brings fields and particles back (diagnostics, output,
// checkpoints run on the host copy).
//
// Deposition modes:
//   atomic         the fast default: the fused particle kernel adds each particle's Esirkepov
//                  current to the grid with float64 atomicAdd; the summation order (and so the
//                  last bits) varies from run to run.
//   deterministic  each particle writes its K x K stencil of contributions to a buffer, the
//                  particles are stably sorted by stencil cell (CUB radix sort), and one thread
//                  per grid point sums the contributions of the K x K cells that reach it in a
//                  fixed order: the same bits on every run (and across a restart); costs
//                  3 K^2 doubles per particle of device memory (600 bytes with TSC).
#include <cstdint>
#include <memory>
#include <string>

#include "pic/simulation.hpp"

namespace nbody::pic {

enum class DepositMode { atomic, deterministic };

// True when a CUDA device is usable for PIC (and the build has CUDA); otherwise *why says why.
bool pic_gpu_available(std::string* why = nullptr);

class PicGpu {
 public:
  PicGpu(const PicSimulation& from, DepositMode mode, int device = 0);
  ~PicGpu();
  PicGpu(const PicGpu&) = delete;
  PicGpu& operator=(const PicGpu&) = delete;

  void step();
  void run(int steps) {
    for (int k = 0; k < steps; ++k) step();
  }
  // Copies fields, the live particles (in slot order: the CPU's order when none was absorbed)
  // and the step count into `to`, a simulation with the same settings and species.
  void copy_to(PicSimulation& to) const;
  [[nodiscard]] std::int64_t step_count() const;
  // Times the particle kernels with CUDA events (one synchronisation a step).
  void enable_timing(bool on);
  [[nodiscard]] double particle_kernel_seconds() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace nbody::pic
