#include "run/outputs.hpp"

namespace nbody::runloop {

DiagnosticsOutput::DiagnosticsOutput(const OutputSchedule& schedule, RunDirectory& dir, const RunProgress* resumed)
    : schedule_(schedule), dir_(dir) {
  if (resumed != nullptr) {
    initial_radii_ = resumed->initial_radii;
    have_initial_radii_ = true;
  }
}

std::int64_t DiagnosticsOutput::next_step_due(std::int64_t step) const { return schedule_.next_diagnostics(step); }

bool DiagnosticsOutput::due(RunState& state) { return schedule_.diagnostics_at(state.step()); }

void DiagnosticsOutput::write(RunState& state) {
  dir_.append_diagnostics(state.diagnostics(), state.initial_diagnostics());
  radii_ = lagrangian_radii(state.particles());
  radii_step_ = state.step();
  dir_.append_lagrangian_radii(radii_step_, state.time(), radii_);
  if (!have_initial_radii_) {  // a new run's step 0
    initial_radii_ = radii_;
    have_initial_radii_ = true;
  }
}

void DiagnosticsOutput::finish(RunState& state, RunEnd how) {
  if (how != RunEnd::completed) return;
  if (!schedule_.diagnostics_at(state.step())) write(state);
  if (radii_step_ != state.step()) {  // a resumed run with nothing left to step
    radii_ = lagrangian_radii(state.particles());
    radii_step_ = state.step();
  }
}

void DiagnosticsOutput::record_progress(RunProgress& progress) const {
  progress.initial_radii = initial_radii_;
  progress.diagnostics_rows = dir_.diagnostics_rows();
}

}  // namespace nbody::runloop
