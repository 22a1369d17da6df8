#pragma once
// One rung of the optimization ladder: an implementation of the documents' program (N bodies,
// force then position update, G = 1, eps^2 = 1e-9, dt = 0.01) that the benchmark can reset,
// step, time and verify.
#include <memory>
#include <string>
#include <vector>

#include "nbody/particles.hpp"
#include "nbody/precision.hpp"

namespace nbody::bench {

class Rung {
 public:
  virtual ~Rung() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  [[nodiscard]] virtual bool on_gpu() const = 0;
  [[nodiscard]] virtual std::string shape() const = 0;  // launch shape, "" for the CPU
  // The state becomes `initial` (rounded to the rung's precision).
  virtual void reset(const Particles<double>& initial) = 0;
  // Runs `count` steps and returns their duration in seconds, measured on the rung's own clock
  // (CUDA events on its stream for GPU rungs). Throws nbody::Error if a launch or kernel failed:
  // a failed rung never produces a time.
  virtual double run_timed(int count) = 0;
  // Positions and velocities now (the benchmark verifies them).
  [[nodiscard]] virtual Particles<double> state() = 0;
};

// GPU rungs of the documents' kernels, with their launch parameters.
struct GpuRungOptions {
  int block = 0;             // threads per block (BLOCK_SIZE); 0: the rung's documented default
  int stride = 0;            // gpu-split: blocks sharing one body (BLOCK_STRIDE); 0: default
  std::string kernel_shape;  // gpu-best: the force kernel's shape ("w16x2l2/s1"); "": the policy's
};

// The rung names in ladder order.
[[nodiscard]] std::vector<std::string> ladder_rung_names();
// Makes a rung by name for n bodies in `precision` (fp32 or fp64; gpu-best also mixed).
// Throws an input error for an unknown name or an unsupported combination.
[[nodiscard]] std::unique_ptr<Rung> make_rung(const std::string& name, Precision precision, std::size_t n,
                                              const GpuRungOptions& options = {});

// The split-kernel block sizes compiled for the sweep, and the documents' defaults.
[[nodiscard]] const std::vector<int>& split_block_sizes();

}  // namespace nbody::bench
