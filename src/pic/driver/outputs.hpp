#pragma once
// The outputs of a PIC run, each an object on its schedule (nbody::BasicOutput over PicRunState),
// in the order the run loop writes them:
//   PicDiagnosticsOutput  a row of diagnostics.csv at step 0, every diag_every steps and the last
//   PicDumpOutput         openPMD (builds with HDF5) and the reduced CSV outputs, every fields_every
//   PicImagesOutput       the PNG field maps and phase spaces, every images_every
//   PicSelectedDumpOutput an [[output.fields]] / [[output.particles]] dump, on its own schedule
//   PicProbeOutput        an [[output.probe]]'s row of probes/<name>.csv, on its own schedule
//   PicCheckpointOutput   checkpoint_<step>.ckpt every checkpoint_every steps, every
//                         checkpoint_every_s of wall time, on a stop and at the end
//   PicBalanceOutput      the slabs' load balance every balance.every steps (writes nothing)
// Every rank writes each due output together (the host copy and the Poynting integrals are
// collective); rank 0 alone touches files.
#include <chrono>
#include <cstdint>
#include <vector>

#include "nbody/run.hpp"
#include "pic/driver/run_state.hpp"
#include "pic/output/field_probe.hpp"
#include "pic/output/run_directory.hpp"
#include "pic/physics/particle_precision.hpp"

namespace nbody::pic {

using PicOutput = BasicOutput<PicRunState, PicProgress>;

// Step 0 and every `every` steps (never when every is 0), up to `last`.
struct PicCadence {
  std::int64_t every = 0, last = 0;
  [[nodiscard]] bool at(std::int64_t step) const { return every > 0 && step % every == 0; }
  [[nodiscard]] std::int64_t next(std::int64_t step) const {
    return every > 0 ? std::min(last, (step / every + 1) * every) : last;
  }
};

class PicDiagnosticsOutput final : public PicOutput {
 public:
  PicDiagnosticsOutput(PicCadence c, PicRunDirectory* dir) : c_(c), dir_(dir) {}
  [[nodiscard]] std::int64_t next_step_due(std::int64_t step) const override { return c_.next(step); }
  [[nodiscard]] bool due(PicRunState& s) override { return s.step() == 0 || c_.at(s.step()); }
  void write(PicRunState& s) override;
  // Completed: a row of the last step when it is not on the schedule.
  void finish(PicRunState& s, RunEnd how) override;
  void record_progress(PicProgress& p) const override;

 private:
  PicCadence c_;
  PicRunDirectory* dir_;  // null on ranks other than 0 and without a directory
};

class PicDumpOutput final : public PicOutput {
 public:
  PicDumpOutput(PicCadence c, PicRunDirectory* dir, double wavelength_m, std::int64_t last_written)
      : c_(c), dir_(dir), wavelength_m_(wavelength_m), written_(last_written) {}
  [[nodiscard]] std::int64_t next_step_due(std::int64_t step) const override { return c_.next(step); }
  [[nodiscard]] bool due(PicRunState& s) override { return c_.every > 0 && (s.step() == 0 || c_.at(s.step())); }
  void write(PicRunState& s) override;
  void finish(PicRunState& s, RunEnd how) override;
  void record_progress(PicProgress& p) const override { p.fields_step = written_; }

 private:
  void dump(PicRunState& s);
  PicCadence c_;
  PicRunDirectory* dir_;
  double wavelength_m_;
  std::int64_t written_;  // the step of the last scheduled dump
};

class PicImagesOutput final : public PicOutput {
 public:
  PicImagesOutput(PicCadence c, PicRunDirectory* dir, std::int64_t last_written)
      : c_(c), dir_(dir), written_(last_written) {}
  [[nodiscard]] std::int64_t next_step_due(std::int64_t step) const override { return c_.next(step); }
  [[nodiscard]] bool due(PicRunState& s) override { return c_.every > 0 && (s.step() == 0 || c_.at(s.step())); }
  void write(PicRunState& s) override;
  void finish(PicRunState& s, RunEnd how) override;
  void record_progress(PicProgress& p) const override { p.images_step = written_; }

 private:
  PicCadence c_;
  PicRunDirectory* dir_;
  std::int64_t written_;
};

// <dir>/dumps/<name>/pic_SSSSSSSS.h5 at step 0 and every `every` steps, and at the last step of
// a completed run. A resumed run (`resumed_at` the checkpoint's step, -1 for a new run) first
// removes the files the run would not have written by then: those after the checkpoint, and one
// at the checkpoint's step that is not on the schedule (the end of the shorter run).
class PicSelectedDumpOutput final : public PicOutput {
 public:
  PicSelectedDumpOutput(const SelectedDumpConfig& d, std::int64_t last, PicRunDirectory* dir, double wavelength_m,
                        std::int64_t resumed_at);
  [[nodiscard]] std::int64_t next_step_due(std::int64_t step) const override { return c_.next(step); }
  [[nodiscard]] bool due(PicRunState& s) override { return c_.at(s.step()); }
  void write(PicRunState& s) override;
  void finish(PicRunState& s, RunEnd how) override;

 private:
  SelectedDumpConfig d_;
  PicCadence c_;
  PicRunDirectory* dir_;
  double wavelength_m_;
  std::int64_t written_ = -1;
};

// <dir>/probes/<name>.csv: a row at step 0 and every `every` steps (none at an unscheduled last
// step). A resumed run keeps the header and the rows up to the checkpoint's step and appends:
// the file ends with the bytes of the run that never stopped.
class PicProbeOutput final : public PicOutput {
 public:
  PicProbeOutput(const ProbeConfig& p, std::int64_t last, PicRunDirectory* dir, const PicSimulation& sim,
                 double wavelength_m, std::int64_t resumed_at);
  ~PicProbeOutput() override;
  PicProbeOutput(const PicProbeOutput&) = delete;
  PicProbeOutput& operator=(const PicProbeOutput&) = delete;
  [[nodiscard]] std::int64_t next_step_due(std::int64_t step) const override { return c_.next(step); }
  [[nodiscard]] bool due(PicRunState& s) override { return c_.at(s.step()); }
  void write(PicRunState& s) override;

 private:
  FieldProbe probe_;
  PicCadence c_;
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;  // rank 0 with a directory
};

class PicCheckpointOutput final : public PicOutput {
 public:
  // `recorded`: the outputs whose progress a checkpoint records (those before it); `precision`:
  // the run's particle store, recorded in each checkpoint.
  PicCheckpointOutput(PicCadence c, double every_seconds, PicRunDirectory* dir, std::string run_id,
                      std::vector<const PicOutput*> recorded, ParticlePrecision precision = ParticlePrecision::float64);
  [[nodiscard]] std::int64_t next_step_due(std::int64_t step) const override { return c_.next(step); }
  // On the step schedule, or when checkpoint_every_s has passed since the last one (rank 0's clock).
  [[nodiscard]] bool due(PicRunState& s) override;
  void write(PicRunState& s) override;
  // Stopped or completed: a checkpoint unless this run wrote one at this step.
  void finish(PicRunState& s, RunEnd how) override;

 private:
  using Clock = std::chrono::steady_clock;
  PicCadence c_;
  double every_seconds_;
  PicRunDirectory* dir_;
  std::string run_id_;
  std::vector<const PicOutput*> recorded_;
  ParticlePrecision precision_;
  std::int64_t written_at_ = -1;
  Clock::time_point last_wall_ = Clock::now();
};

class PicBalanceOutput final : public PicOutput {
 public:
  PicBalanceOutput(const BalanceSettings& b, std::int64_t last) : b_(b), c_{b.every, last} {}
  [[nodiscard]] std::int64_t next_step_due(std::int64_t step) const override { return c_.next(step); }
  // (not at step 0 nor after the last step)
  [[nodiscard]] bool due(PicRunState& s) override { return s.step() > 0 && s.step() < c_.last && c_.at(s.step()); }
  void write(PicRunState& s) override { (void)s.engine().balance(b_); }

 private:
  BalanceSettings b_;
  PicCadence c_;
};

// "step,time_periods,field_energy,..." for these species, and one row.
std::string diagnostics_header(const PicSimulation& sim);
std::string diagnostics_row(const PicRow& r);

}  // namespace nbody::pic
