#pragma once
// PicEngine: one interface over the four ways a PIC run steps — the float64 CPU reference
// (PicSimulation), the CPU slabs or blocks over MPI ranks (DomainPic), one GPU (PicGpu), the GPU
// slabs or blocks (DomainPicGpu) — so that the run loop (pic/driver/run.cpp) and the benchmark
// choose once and never branch on the engine again. Each engine tracks the Poynting flux through
// the run's two planes after every step and integrates it in time.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "comm/communicator.hpp"
#include "pic/cpu/simulation.hpp"
#include "pic/cuda/pic_gpu.hpp"
#include "pic/driver/config.hpp"
#include "pic/parallel/balance.hpp"

namespace nbody::pic {

class PicEngine {
 public:
  virtual ~PicEngine() = default;
  // "CPU", "CPU slabs", "GPU", "GPU slabs" (the summary names it).
  [[nodiscard]] virtual const char* name() const = 0;
  [[nodiscard]] virtual bool on_gpu() const = 0;
  // One step on every rank (collective over the engine's communicator).
  virtual void step() = 0;
  [[nodiscard]] virtual std::int64_t step_count() const = 0;
  // The whole state into `host` on the communicator's rank 0 (collective; the CPU engine steps
  // `host` itself and copies nothing).
  virtual void to_host(PicSimulation& host) = 0;
  // The fields alone (E, B, J, the PML memories; not rho) with the step and time into `host` on
  // rank 0 (collective): no particle leaves the device or its rank. `host`'s particles are left
  // as they were.
  virtual void fields_to_host(PicSimulation& host) = 0;
  // The planes' fluxes of the last step and their time integrals (collective).
  [[nodiscard]] virtual PoyntingTrack poynting() = 0;
  // The scalar diagnostics reduced on the device, where the engine has them (one GPU with a
  // deposition that promises no bit-identical outputs); none: take them from the host state.
  [[nodiscard]] virtual std::optional<DeviceDiagnostics> device_diagnostics() { return std::nullopt; }
  // The reduced outputs' histograms made where the particles are, where the engine can (one GPU
  // with a deposition that promises no bit-identical outputs); none: reduce the host state.
  [[nodiscard]] virtual std::optional<ReducedData> device_reduced() { return std::nullopt; }
  // Moves the slab boundaries by the measured load (collective); false where nothing moved or
  // the engine has no slabs.
  virtual bool balance(const BalanceSettings& /*b*/) { return false; }
  [[nodiscard]] virtual int rebalances() const { return 0; }
  [[nodiscard]] virtual std::vector<int> slab_starts() const { return {}; }
  // This rank's particles (the mobile ones only when asked).
  [[nodiscard]] virtual std::size_t local_particles(bool mobile_only) const = 0;
  // The time split so far (seconds summed over the steps, this rank's): the particle kernels,
  // the fields, the communication, the migration and sort, the whole steps.
  [[nodiscard]] virtual PicGpu::StepTimes times() const = 0;
  // Seconds in the fused particle kernels alone (GPU; 0 elsewhere).
  [[nodiscard]] virtual double particle_kernel_seconds() const { return 0; }
  // The sorts by cell so far (the warp kernel's on the GPU slabs; 0 elsewhere).
  [[nodiscard]] virtual std::int64_t sorts() const { return 0; }
};

// Where the run's Poynting planes are, and what the integrals start from (a resumed run's).
struct PoyntingPlanes {
  int i_left = 0, i_right = 0;
  double energy_in = 0, energy_out = 0;
};

// The engine the configuration asks for on `comm` (the slabs on several ranks, or with the
// deterministic deposition; CPU or GPU by solver.device), built from `sim` — the whole state on
// rank 0, each other rank's block at least — and tracking the Poynting flux through `planes`.
// `gauss_reference`: the initial div E - rho field, for diagnostics reduced on the device. The
// CPU engine steps `sim` itself, which must outlive it.
[[nodiscard]] std::unique_ptr<PicEngine> make_pic_engine(const PicConfig& c, PicSimulation& sim,
                                                         comm::Communicator& comm, const PoyntingPlanes& planes,
                                                         const std::vector<double>& gauss_reference);

// The slabs or blocks (`ranks_y` block rows) over `comm` alone, on the GPUs with `gpu`, else on
// the CPU, built from `sim` (read only: every rank's copy is left whole, so that one state can
// start several engines; the benchmark's sub-communicators), tracking the Poynting flux only
// through `planes` when given.
[[nodiscard]] std::unique_ptr<PicEngine> make_pic_slab_engine(const PicSimulation& sim, comm::Communicator& comm,
                                                              int ranks_y, const std::optional<PicGpuOptions>& gpu,
                                                              const std::optional<PoyntingPlanes>& planes = std::nullopt);

}  // namespace nbody::pic
