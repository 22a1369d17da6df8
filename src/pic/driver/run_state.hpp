#pragma once
// A PIC run at a step boundary, as its outputs see it (the PIC twin of nbody::RunState): the
// engine, the host copy of the state (the whole state on rank 0, refreshed at most once a step
// and only when an output asks), and the step's diagnostics row (computed at most once a step).
// Every rank holds one: the host copy and the Poynting integrals are collective, so every rank
// takes part in each output event; only rank 0 writes files.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nbody/run.hpp"
#include "pic/cpu/simulation.hpp"
#include "pic/driver/config.hpp"
#include "pic/driver/engine.hpp"
#include "pic/output/checkpoint.hpp"
#include "pic/output/reduced_output.hpp"

namespace nbody::pic {

// One row of diagnostics.csv.
struct PicRow {
  std::int64_t step = 0;
  double time = 0;
  EnergyReport energies;
  double flux_left = 0, flux_right = 0, energy_in = 0, energy_out = 0;
  double gauss_change = 0;  // over rho_scale
  std::vector<std::size_t> counts;
};

class PicRunState {
 public:
  PicRunState(PicEngine& engine, PicSimulation& host, const PicConfig& cfg, const PicProgress& start, Logger& log,
              bool root)
      : engine_(engine), host_(host), cfg_(cfg), start_(start), log_(log), root_(root), host_step_(engine.step_count()) {}

  [[nodiscard]] PicEngine& engine() noexcept { return engine_; }
  [[nodiscard]] const PicConfig& config() const noexcept { return cfg_; }
  [[nodiscard]] std::int64_t step() const { return engine_.step_count(); }
  [[nodiscard]] double time() const { return host_.settings().t0 + double(step()) * host_.settings().dt; }
  [[nodiscard]] bool root() const noexcept { return root_; }
  [[nodiscard]] Logger& log() noexcept { return log_; }
  // The step-0 numbers the diagnostics measure from.
  [[nodiscard]] const PicProgress& start() const noexcept { return start_; }

  // The whole state on rank 0 at this step (collective: the engine gathers it at most once a step).
  PicSimulation& host();
  // The host copy with this step's fields (E, B, J, the PML memories; not rho) on rank 0, its
  // particles those of the last host() (collective): for the outputs that read fields alone, so
  // that no particle leaves a device for them.
  PicSimulation& host_fields();
  // How often the whole state and the fields alone were brought to the host so far.
  [[nodiscard]] std::int64_t state_copies() const noexcept { return state_copies_; }
  [[nodiscard]] std::int64_t field_copies() const noexcept { return field_copies_; }
  // This step's diagnostics row (collective; the numbers are rank 0's).
  const PicRow& diagnostics();
  // This step's reduced outputs' histograms (collective; rank 0's, empty elsewhere): made on the
  // device where the engine can, else from the host copy.
  ReducedData reduced();
  // The run's grid and species as the host copy holds them (their particles may be of an
  // earlier step).
  [[nodiscard]] const PicSimulation& layout() const noexcept { return host_; }
  // The end of an output event (nothing is dropped: the host copy is the run's own).
  void end_of_event() {}

 private:
  PicEngine& engine_;
  PicSimulation& host_;
  const PicConfig& cfg_;
  const PicProgress& start_;
  Logger& log_;
  bool root_;
  std::int64_t host_step_;  // the step the host copy holds (it was built from the engine's start)
  std::int64_t fields_step_ = -1;  // the step of the host copy's fields where newer than host_step_
  std::int64_t state_copies_ = 0, field_copies_ = 0;
  std::optional<PicRow> row_;
};

// The Gauss numbers of step 0: rho_scale and the initial residual field (host state, rank 0).
void measure_gauss_reference(PicSimulation& sim, PicProgress& p);

}  // namespace nbody::pic
