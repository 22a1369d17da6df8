#pragma once
// The two ways an ensemble is integrated, behind one interface: across the CPU's cores (one
// system a thread at a time, OpenMP) and on a GPU (one warp a system, ensemble/cuda/). Both
// advance every running system to the end of an interval; a system that has stopped is left out
// of the work. Each system gives the same bits whatever the batch it is in.
#include <memory>
#include <string>

#include "ensemble/params.hpp"
#include "ensemble/store.hpp"

namespace nbody::ensemble {

class Backend {
 public:
  virtual ~Backend() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  // The start of a run: each system's energy, |L| and first step (its state in `s`).
  virtual void start(EnsembleStore& s, const Params& p) = 0;
  // Every running system of `s` advanced to t_target; `s` holds the result on return.
  virtual void advance(EnsembleStore& s, const Params& p, double t_target) = 0;
  // The bodies of `s` as the backend holds them (the GPU keeps them between intervals and copies
  // them back here; the states are current after every call above).
  virtual void fetch(EnsembleStore& /*s*/) {}
};

// threads: 0 for OpenMP's count.
std::unique_ptr<Backend> make_cpu_backend(int threads = 0);
// How the GPU takes each system (docs/ensembles.md): a system of block_bodies bodies or more
// gets a block of its own; one of at most group_max bodies a group of 4 to 32 lanes (one a
// body; with a fixed-step integrator, leapfrog or yoshida4, the state in registers; with the
// others, groups of up to 16 lanes, several systems a warp); any other a warp. group_max 0: no
// groups.
struct GpuShape {
  int group_max = 32;
  // (measured on an H200, leapfrog, 10^4 systems, in two consecutive calls on one machine: a
  // warp 1.36x a block at 128 bodies, a block 1.43x a warp at 256, about even at 192;
  // bench/results/2026-11-29-ensemble-ias15/shapes)
  int block_bodies = 192;
};
// The shape by name: "auto" (the defaults above), "warp" (no group), "group" (as auto),
// "block" (a block for every system); false for another name.
bool gpu_shape_named(const std::string& name, GpuShape& shape);
std::string shape_name(const GpuShape& shape);

// An input error when the build has no CUDA or no device is usable.
std::unique_ptr<Backend> make_gpu_backend(const GpuShape& shape = {});
// Whether make_gpu_backend can succeed here.
bool gpu_backend_available();

// The final energy and |L| of system k (the results table), computed as the integrators do.
void final_invariants(EnsembleStore& s, std::int64_t k, double eps2, double& energy, double& l_norm);

}  // namespace nbody::ensemble
