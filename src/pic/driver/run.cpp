#include "pic/driver/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "comm/communicator.hpp"
#include "config/deck_identity.hpp"
#include "core/fnv1a.hpp"
#include "io/atomic_file.hpp"
#include "io/run_files.hpp"
#include "nbody/error.hpp"
#include "pic/driver/engine.hpp"
#include "pic/driver/memory_plan.hpp"
#include "pic/driver/outputs.hpp"
#include "pic/driver/run_state.hpp"
#include "pic/output/checkpoint.hpp"
#include "pic/output/run_directory.hpp"
#include "pic/parallel/domain.hpp"
#include "pic/physics/units.hpp"
#include "run/drive.hpp"
#include "run/run_log.hpp"
#include "run/stop_file.hpp"

namespace nbody::pic {

namespace {

std::string units_json(const PicConfig& c, const PicSimulation& sim) {
  const SiUnits u = si_units(c.wavelength_um * 1e-6);
  std::ostringstream o;
  o.precision(17);
  o << "{\n  \"normalisation\": \"time 1/omega0, length c/omega0, density n_c, E m_e c omega0/e, B m_e omega0/e\",\n"
    << "  \"wavelength_m\": " << u.wavelength_m << ",\n  \"omega0_per_s\": " << u.omega0 << ",\n"
    << "  \"time_unit_s\": " << u.time_s << ",\n  \"length_unit_m\": " << u.length_m << ",\n"
    << "  \"critical_density_per_m3\": " << u.density_m3 << ",\n  \"efield_unit_V_per_m\": " << u.efield_V_m << ",\n"
    << "  \"bfield_unit_T\": " << u.bfield_T << ",\n  \"energy_unit_J\": " << u.energy_J << ",\n"
    << "  \"dt\": " << sim.settings().dt << ",\n  \"dx\": " << sim.settings().geom.dx << ",\n  \"dy\": " << sim.settings().geom.dy
    << ",\n  \"laser_a0\": " << sim.settings().laser.a0 << "\n}\n";
  return o.str();
}

}  // namespace

bool use_slab_decomposition(const PicConfig& c) {
  return !c.use_gpu && (comm::world().size() > 1 || c.deterministic);
}

bool use_gpu_slabs(const PicConfig& c) { return c.use_gpu && (comm::world().size() > 1 || c.deterministic); }

std::optional<CellWindow> rank_load_window(const PicConfig& c) {
  const comm::Communicator& comm = comm::world();
  if (comm.size() < 2 || comm.rank() == 0 || !(use_slab_decomposition(c) || use_gpu_slabs(c))) return std::nullopt;
  return block_load_window(c, comm.size(), comm.rank(), block_rows(c, comm.size()));
}

CellWindow block_load_window(const PicConfig& c, int ranks, int rank, int ranks_y) {
  const SlabLayout l = block_layout(c.nx, c.ny, c.field_bc.x == FieldBoundary::periodic,
                                    c.field_bc.y == FieldBoundary::periodic, ranks, ranks_y, rank);
  return CellWindow{std::max(0, l.i0 - 1), std::min(c.nx, l.i1 + 1), std::max(0, l.j0 - 1), std::min(c.ny, l.j1 + 1)};
}

namespace {

// The loop's view of an engine: steps counted with the particles they push.
class EngineStepper final : public runloop::Stepper {
 public:
  EngineStepper(PicEngine& e, const PicSimulation& sim) : e_(e), t0_(sim.settings().t0), dt_(sim.settings().dt) {}
  [[nodiscard]] std::int64_t step_count() const override { return e_.step_count(); }
  [[nodiscard]] double time() const override { return t0_ + double(e_.step_count()) * dt_; }
  void advance(std::int64_t steps) override {
    for (std::int64_t k = 0; k < steps; ++k) {
      particle_steps += double(e_.local_particles(true));
      e_.step();
    }
  }
  double particle_steps = 0;

 private:
  PicEngine& e_;
  double t0_, dt_;
};

std::string run_id_of(const PicConfig& c) {
  Fnv1a64 h;
  h.update(c.deck_identity);
  char text[24];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h.value()));
  return text;
}

// The run itself, new (`resumed` false: step 0's outputs written) or resumed; `dir` rank 0's.
PicRunResult run_engine(const PicConfig& c, PicSimulation& sim, PicProgress start, PicRunDirectory* dir,
                        const std::string& run_id, bool resumed, const RunHooks& hooks,
                        const std::vector<std::string>& notes) {
  namespace fs = std::filesystem;
  comm::Communicator& world = comm::world();
  const bool root = world.rank() == 0;
  runloop::RunLog log(root ? hooks.logger : nullptr,
                      dir != nullptr ? [dir](std::string_view line) { dir->log(line); } : runloop::RunLog::Record());
  for (const auto& line : notes) log.info(line);
  // (the float32 store: the host state as the device will hold it, before the Gauss reference is
  // measured on it; a checkpoint's state already is)
  if (c.use_gpu && c.particle_precision == ParticlePrecision::float32)
    for (Species& s : sim.species()) round_to_float32_store(s, store_cells_of(sim.settings().geom));
  if (!resumed && root) {
    // (rank 0 alone holds the whole state and uses these numbers: the diagnostics and the
    // checkpoints are its)
    measure_gauss_reference(sim, start);
    start.energy_start = sim.energies().total;
  }
  const GridGeometry& g = sim.settings().geom;
  const PoyntingPlanes planes{1, g.nx - 2, start.energy_in, start.energy_out};
  std::unique_ptr<PicEngine> engine = make_pic_engine(c, sim, world, planes, start.initial_residual);

  const std::int64_t last = pic_steps(c);
  PicDiagnosticsOutput diagnostics({c.diag_every, last}, dir);
  PicDumpOutput dumps({c.fields_every, last}, dir, c.wavelength_um * 1e-6, start.fields_step);
  PicImagesOutput images({c.images_every, last}, dir, start.images_step);
  const bool files = !c.out_dir.empty();
  std::vector<PicOutput*> outputs{&diagnostics};
  if (files) outputs.insert(outputs.end(), {&dumps, &images});
  // The named outputs ([[output.fields]], [[output.particles]], [[output.probe]]), each on its own
  // schedule; a resumed run's trims what it finds to the checkpoint's step.
  const std::int64_t resumed_at = resumed ? engine->step_count() : -1;
  std::vector<std::unique_ptr<PicOutput>> named;
  if (files) {
    for (const SelectedDumpConfig& d : c.dumps)
      named.push_back(std::make_unique<PicSelectedDumpOutput>(d, last, dir, c.wavelength_um * 1e-6, resumed_at));
    for (const ProbeConfig& p : c.probes)
      named.push_back(std::make_unique<PicProbeOutput>(p, last, dir, sim, c.wavelength_um * 1e-6, resumed_at));
  }
  for (const auto& o : named) outputs.push_back(o.get());
  std::optional<PicCheckpointOutput> checkpoints;
  if (files) {
    const std::vector<const PicOutput*> recorded(outputs.begin(), outputs.end());
    outputs.push_back(&checkpoints.emplace(PicCadence{c.checkpoint_every, last}, c.checkpoint_every_s, dir, run_id, recorded,
                                                   c.particle_precision));
  }
  std::optional<PicBalanceOutput> balance;
  if (c.balance.every > 0) outputs.push_back(&balance.emplace(c.balance, last));
  std::vector<StopCondition*> stops = hooks.stop_conditions;
  std::optional<runloop::StopFileOf<RunFiles>> stop_file;
  if (dir != nullptr) stops.push_back(&stop_file.emplace(dir->files()));

  PicRunState state(*engine, sim, c, start, log, root);
  runloop::DriveSettings settings;
  settings.last_step = last;
  settings.chunk_seconds = hooks.chunk_seconds;
  settings.heartbeat_seconds = hooks.heartbeat_seconds;
  settings.progress = root ? hooks.progress : nullptr;
  settings.every_rank_writes = true;
  settings.root = root;
  if (world.size() > 1) settings.agree = [&world](std::int64_t v) { return world.broadcast_value(v, 0); };

  PicRunResult r;
  r.first_step = engine->step_count();
  if (dir != nullptr) r.directory = dir->path();
  r.engine = engine->name();
  r.gpu = engine->on_gpu();
  r.energy_start = start.energy_start;
  r.laser = c.laser.enabled, r.open_x = c.field_bc.x != FieldBoundary::periodic;
  if (!resumed) runloop::write_due(outputs, state, settings);
  if (settings.progress != nullptr) settings.progress->started(r.first_step, last);
  EngineStepper stepper(*engine, sim);
  const runloop::Driven driven = runloop::drive(stepper, state, outputs, stops, log, settings);
  if (settings.progress != nullptr) settings.progress->ended();
  const RunEnd how = driven.stopped_by != nullptr ? RunEnd::stopped : RunEnd::completed;
  // (every rank: the outputs' collective parts; stopped or not is rank 0's word)
  const RunEnd agreed = world.size() > 1 ? RunEnd(world.broadcast_value(std::int64_t(how), 0)) : how;
  for (auto o = outputs.rbegin(); o != outputs.rend(); ++o) (*o)->finish(state, agreed);
  const PicRow& row = state.diagnostics();  // (collective: the summary's numbers)
  r.state_copies = state.state_copies(), r.field_copies = state.field_copies();
  (void)state.host();  // `sim` ends with the final state (collective)

  r.last_step = engine->step_count();
  r.steps = r.last_step - r.first_step;
  r.wall_seconds = driven.wall_seconds;
  r.particle_steps = stepper.particle_steps;
  r.laser_energy_in = row.energy_in, r.energy_out = row.energy_out;
  r.gauss_residual = row.gauss_change;
  r.energy_end = root ? row.energies.total : 0;
  r.particle_kernel_seconds = engine->particle_kernel_seconds();
  r.rebalances = engine->rebalances();
  r.slab_starts = engine->slab_starts();
  r.ranks = world.size();
  const PicGpu::StepTimes t = engine->times();
  r.slabs_gpu = r.gpu && std::string(engine->name()) == "GPU slabs";
  r.time_particles = t.particles, r.time_fields = t.fields, r.time_comm = t.comm, r.time_sort = t.sort;
  if (world.size() > 1) {
    r.gauss_residual = world.broadcast_value(r.gauss_residual, 0);
    r.energy_end = world.broadcast_value(r.energy_end, 0);
    r.particle_steps = world.allreduce_sum(r.particle_steps);  // exact: integers below 2^53
    r.time_particles = world.allreduce_max(r.time_particles);
    r.time_fields = world.allreduce_max(r.time_fields);
    r.time_comm = world.allreduce_max(r.time_comm);
    r.time_sort = world.allreduce_max(r.time_sort);
    r.particle_kernel_seconds = world.allreduce_max(r.particle_kernel_seconds);
  }
  if (driven.stopped_by != nullptr) {
    r.stopped_by = driven.reason;
    driven.stopped_by->acknowledge();
    log.info("pic: stopped by " + *driven.reason + " at step " + std::to_string(r.last_step) + " (t = " +
             std::to_string(state.time() / (2 * kPi)) + " periods)" +
             (dir != nullptr ? "; checkpointed: continue it with nbody pic run --resume " + dir->path().string() : ""));
  }
  if (hooks.announce)
    for (const auto& line : pic_summary(r)) log.info(line);
  if (dir != nullptr && r.slabs_gpu) {
    // The time split for a scaling study (bench/): seconds summed over the steps, largest over ranks.
    std::ostringstream o;
    o.precision(9);
    o << "{\n  \"ranks\": " << r.ranks << ",\n  \"steps\": " << r.steps << ",\n  \"deposit\": \"" << c.deposit
      << "\",\n  \"wall_seconds\": " << r.wall_seconds << ",\n  \"particle_steps\": " << r.particle_steps
      << ",\n  \"particles_seconds\": " << r.time_particles << ",\n  \"fields_seconds\": " << r.time_fields
      << ",\n  \"comm_seconds\": " << r.time_comm << ",\n  \"sort_seconds\": " << r.time_sort
      << ",\n  \"rebalances\": " << r.rebalances << ",\n  \"slab_starts\": [";
    for (std::size_t k = 0; k < r.slab_starts.size(); ++k) o << (k ? ", " : "") << r.slab_starts[k];
    o << "]\n}\n";
    write_file_atomic(dir->path() / "timings.json", o.str());
  }
  return r;
}

}  // namespace

std::vector<std::string> pic_summary(const PicRunResult& r) {
  std::vector<std::string> lines;
  char b[512];
  const double ns = r.particle_steps > 0 ? r.wall_seconds * 1e9 / r.particle_steps : 0.0;
  std::snprintf(b, sizeof b, "pic: done on the %s, %lld steps in %.3g s (%.4g ns per particle per step, whole step)",
                r.engine.c_str(), static_cast<long long>(r.steps), r.wall_seconds, ns);
  lines.emplace_back(b);
  if (r.gpu && r.particle_steps > 0) {
    std::snprintf(b, sizeof b, "pic: particle kernels (gather + push + deposit): %.4g ns per particle per step",
                  r.particle_kernel_seconds * 1e9 / r.particle_steps);
    lines.emplace_back(b);
  }
  if (r.slabs_gpu && r.steps > 0) {
    const double ms = 1e3 / double(r.steps);
    std::snprintf(b, sizeof b,
                  "pic: time per step (largest over %d rank%s): particles %.4g ms, fields %.4g ms, communication %.4g ms, "
                  "migration and sort %.4g ms",
                  r.ranks, r.ranks > 1 ? "s" : "", r.time_particles * ms, r.time_fields * ms, r.time_comm * ms,
                  r.time_sort * ms);
    lines.emplace_back(b);
  }
  if (r.engine != "CPU") {  // (the CPU engine steps the host state itself: nothing is copied)
    std::snprintf(b, sizeof b, "pic: host copies for the outputs: the whole state %lld time%s, the fields alone %lld",
                  static_cast<long long>(r.state_copies), r.state_copies == 1 ? "" : "s",
                  static_cast<long long>(r.field_copies));
    lines.emplace_back(b);
  }
  if (r.rebalances > 0 && r.slab_starts.size() > 1) {
    std::string widths;
    for (std::size_t k = 0; k + 1 < r.slab_starts.size(); ++k)
      widths += (k ? ", " : "") + std::to_string(r.slab_starts[k + 1] - r.slab_starts[k]);
    lines.push_back("pic: load balance moved the slab boundaries " + std::to_string(r.rebalances) + " time" +
                    (r.rebalances > 1 ? "s" : "") + "; columns per slab at the end: " + widths);
  }
  // The Poynting planes' energies where the laser and the boundaries give them a meaning.
  char in[48] = "", out[48] = "";
  if (r.laser) std::snprintf(in, sizeof in, "laser in %.6g", r.laser_energy_in);
  if (r.open_x) std::snprintf(out, sizeof out, "%sout right %.6g", r.laser ? ", " : "", r.energy_out);
  std::snprintf(b, sizeof b, "pic: energy %.6g -> %.6g%s%s%s%s, Gauss residual %.3g", r.energy_start, r.energy_end,
                r.laser || r.open_x ? " (" : "", in, out, r.laser || r.open_x ? ")" : "", r.gauss_residual);
  lines.emplace_back(b);
  if (r.directory) lines.push_back("pic: wrote " + r.directory->string());
  return lines;
}

PicRunResult run_pic(const PicConfig& c, PicSimulation& sim, const RunHooks& hooks, ExistingRunFiles existing,
                     const std::vector<std::string>& notes) {
  const bool root = comm::world().rank() == 0;
  const std::string run_id = run_id_of(c);
  std::unique_ptr<PicRunDirectory> dir;
  std::vector<std::string> said = notes;
  if (!c.out_dir.empty() && root) {
    dir = std::make_unique<PicRunDirectory>(c.out_dir, run_id, existing == ExistingRunFiles::replace, c.deck,
                                            units_json(c, sim), diagnostics_header(sim));
  } else if (c.out_dir.empty()) {
    said.push_back("pic: no --out: nothing will be written (give --out DIR to keep the deck, diagnostics, dumps and restart "
                   "checkpoints)");
  }
  return run_engine(c, sim, PicProgress{}, dir.get(), run_id, false, hooks, said);
}

PicRunResult resume_pic(const std::filesystem::path& dir, const std::vector<std::string>& overrides,
                        const PicFlags& flags, const RunHooks& hooks, const std::vector<std::string>& notes) {
  namespace fs = std::filesystem;
  comm::Communicator& world = comm::world();
  const bool root = world.rank() == 0;
  std::error_code ec;
  RunFiles::check_resumable(dir);
  const fs::path deck = dir / PicRunDirectory::kDeck;
  if (!fs::is_regular_file(deck, ec))
    throw_input_error("resume: '" + dir.string() + "' is not a PIC run directory (no deck.toml)");
  if (root) RunDirectoryLock::check_free(dir, "resume");
  if (flags.out && fs::path(*flags.out) != dir && fs::absolute(*flags.out) != fs::absolute(dir))
    throw_input_error("--out: a resumed run writes into its own directory (" + dir.string() + "); leave --out out");
  const PicConfig stored = read_pic_config(deck.string(), {});
  PicFlags f = flags;
  f.out.reset();
  PicConfig c = read_pic_config(deck.string(), overrides, f);
  if (const std::string key = first_deck_difference(stored.deck_identity, c.deck_identity); !key.empty())
    throw_input_error(key + ": differs from the run being resumed (" + deck.string() +
                      "); a resumed run may only change time.steps, time.t_end, [output], [parallel] and [balance]");
  std::vector<std::string> said = notes;
  const auto found = RunFiles::checkpoints(dir);
  if (found.empty()) {
    said.push_back("pic: resume: no checkpoint in " + dir.string() +
                   " (the run ended before its first): starting it again from step 0, rewriting its outputs");
    const std::optional<CellWindow> window = rank_load_window(c);
    require_pic_memory(c);
    PicSimulation sim = build_pic_simulation(c, true, window ? &*window : nullptr);
    return run_pic(c, sim, hooks, ExistingRunFiles::replace, said);
  }
  // (every rank reads the newest checkpoint whole: the plan takes its size)
  const std::uintmax_t newest_bytes = fs::file_size(found.front().second, ec);
  require_pic_memory(c, ec ? 0 : newest_bytes);
  // The newest checkpoint that reads back whole (rank 0 chooses; every rank reads it).
  const std::string id = RunFiles::stored_run_id(dir);
  PicSimulation sim = build_pic_simulation(c, false);
  std::optional<PicRunRecord> rec;
  std::int64_t chosen = -1;
  std::string newest_fault;
  if (root) {
    for (std::size_t k = 0; k < found.size() && chosen < 0; ++k) {
      try {
        // (another run's checkpoint is refused below, whatever its state)
        rec = load_pic_checkpoint(found[k].second.string(), sim, false, c.particle_precision);
        if (!rec || rec->run_id == id) check_pic_state(found[k].second.string(), sim);
        chosen = std::int64_t(k);
      } catch (const Error& e) {
        if (newest_fault.empty()) newest_fault = e.what();
        said.push_back(std::string("pic: resume: skipped a checkpoint that did not read back: ") + e.what());
      }
    }
  }
  if (world.size() > 1) chosen = world.broadcast_value(chosen, 0);
  if (chosen < 0)
    throw_input_error("resume: no usable checkpoint in '" + dir.string() + "'" +
                      (newest_fault.empty() ? std::string() : " (the newest: " + newest_fault + ")"));
  const fs::path file = found[std::size_t(chosen)].second;
  if (!root) rec = load_pic_checkpoint(file.string(), sim, true, c.particle_precision);
  if (!rec) throw_input_error("resume: " + file.string() + " holds no run record (a checkpoint of an earlier release)");
  if (rec->run_id != id)
    throw_input_error("resume: " + file.string() + " belongs to another run (run id " + rec->run_id +
                      ", this directory's is " + (id.empty() ? std::string("none") : id) + ")");
  if (pic_steps(c) < sim.step_count())
    throw_input_error("--steps: " + std::to_string(pic_steps(c)) + " is before the checkpoint's step " +
                      std::to_string(sim.step_count()));
  std::unique_ptr<PicRunDirectory> run_dir;
  if (root) run_dir = std::make_unique<PicRunDirectory>(dir, rec->progress, c.deck);
  said.push_back("pic: resumed from " + file.string() + " at step " + std::to_string(sim.step_count()));
  return run_engine(c, sim, rec->progress, run_dir.get(), id, true, hooks, said);
}

}  // namespace nbody::pic
