#include "pic/driver/outputs.hpp"

#include <sstream>

#include "pic/output/images.hpp"
#include "pic/output/openpmd.hpp"
#include "pic/output/reduced_output.hpp"
#include "pic/physics/units.hpp"

namespace nbody::pic {

std::string diagnostics_header(const PicSimulation& sim) {
  std::string h = "step,time_periods,field_energy,e_energy,b_energy";
  for (const Species& s : sim.species()) h += ",kinetic_" + s.name;
  h += ",total_energy,poynting_left,poynting_right,energy_in_left,energy_out_right,gauss_residual";
  for (const Species& s : sim.species()) h += ",count_" + s.name;
  return h + "\n";
}

std::string diagnostics_row(const PicRow& r) {
  std::ostringstream row;
  row.precision(12);
  const EnergyReport& e = r.energies;
  row << r.step << ',' << r.time / (2 * kPi) << ',' << e.field << ',' << e.e_field << ',' << e.b_field;
  for (double k : e.kinetic) row << ',' << k;
  row << ',' << e.total << ',' << r.flux_left << ',' << r.flux_right << ',' << r.energy_in << ',' << r.energy_out << ','
      << r.gauss_change;
  for (std::size_t n : r.counts) row << ',' << n;
  return row.str();
}

void PicDiagnosticsOutput::write(PicRunState& s) {
  const PicRow& r = s.diagnostics();  // (collective)
  if (dir_ != nullptr) dir_->append_diagnostics(diagnostics_row(r));
}

void PicDiagnosticsOutput::finish(PicRunState& s, RunEnd how) {
  if (how == RunEnd::completed && s.step() > 0 && !c_.at(s.step())) write(s);
}

void PicDiagnosticsOutput::record_progress(PicProgress& p) const {
  if (dir_ != nullptr) p.diagnostics_rows = dir_->diagnostics_rows();
}

void PicDumpOutput::dump(PicRunState& s) {
  // (collective) the openPMD file holds the whole state; the reduced outputs need only their
  // histograms, made on the device where the engine can
  if (openpmd_available()) {
    PicSimulation& h = s.host();
    if (dir_ != nullptr) {
      h.compute_rho();
      write_openpmd(dir_->path().string(), h, wavelength_m_);
    }
  }
  const ReducedData r = s.reduced();
  if (dir_ == nullptr) return;
  const PicSimulation& at = s.layout();
  write_reduced_outputs(dir_->path().string(), s.step(), at.settings().geom, species_names(at), r);
}

void PicDumpOutput::write(PicRunState& s) {
  dump(s);
  written_ = s.step();
}

void PicDumpOutput::finish(PicRunState& s, RunEnd how) {
  if (how == RunEnd::completed && c_.every > 0 && s.step() != written_) dump(s);
}

void PicImagesOutput::write(PicRunState& s) {
  PicSimulation& h = s.host();  // (collective)
  if (dir_ != nullptr) write_images(dir_->path().string(), h);
  written_ = s.step();
}

void PicImagesOutput::finish(PicRunState& s, RunEnd how) {
  if (how != RunEnd::completed || c_.every <= 0 || s.step() == written_) return;
  PicSimulation& h = s.host();
  if (dir_ != nullptr) write_images(dir_->path().string(), h);
}

PicCheckpointOutput::PicCheckpointOutput(PicCadence c, double every_seconds, PicRunDirectory* dir, std::string run_id,
                                         std::vector<const PicOutput*> recorded, ParticlePrecision precision)
    : c_(c),
      every_seconds_(every_seconds),
      dir_(dir),
      run_id_(std::move(run_id)),
      recorded_(std::move(recorded)),
      precision_(precision) {}

bool PicCheckpointOutput::due(PicRunState& s) {
  if (s.step() == 0) return false;
  if (c_.at(s.step())) return true;
  return every_seconds_ > 0 && std::chrono::duration<double>(Clock::now() - last_wall_).count() >= every_seconds_;
}

void PicCheckpointOutput::write(PicRunState& s) {
  PicSimulation& h = s.host();                     // (collective)
  const PoyntingTrack t = s.engine().poynting();  // (collective on the GPU slabs)
  written_at_ = s.step();
  last_wall_ = Clock::now();
  if (dir_ == nullptr) return;
  PicRunRecord rec;
  rec.run_id = run_id_;
  rec.progress = s.start();
  rec.progress.energy_in = t.energy_in_left, rec.progress.energy_out = t.energy_out_right;
  for (const PicOutput* o : recorded_) o->record_progress(rec.progress);
  dir_->sync();
  save_pic_checkpoint(dir_->files().checkpoint_path(s.step()).string(), h, &rec, precision_);
  dir_->files().keep_latest_checkpoints(s.step());
  s.log().detail("checkpoint at step " + std::to_string(s.step()));
}

void PicCheckpointOutput::finish(PicRunState& s, RunEnd /*how*/) {
  if (written_at_ != s.step()) write(s);
}

}  // namespace nbody::pic
