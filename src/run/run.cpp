// The entry points of the run loop: a new run from a configuration (or from another run's
// checkpoint), a run continued from the newest checkpoint of its directory.
#include "nbody/run.hpp"

#include <cmath>
#include <optional>
#include <utility>

#include "comm/communicator.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "ic/ic.hpp"
#include "io/checkpoint.hpp"
#include "io/run_directory.hpp"
#include "nbody/error.hpp"
#include "run/run_loop.hpp"

namespace nbody {

namespace fs = std::filesystem;

namespace {

// A run's length from t_end when it is set: the first step at or past it.
void resolve_run_length(RunConfig& cfg) {
  if (cfg.t_end <= 0) return;
  if (!(cfg.t_end > cfg.start_time)) {
    throw_input_error("--t-end: " + toml_real(cfg.t_end) + " is not after the start time " + toml_real(cfg.start_time));
  }
  cfg.steps = step_at_time(cfg, cfg.t_end);
}

Particles<double> state_as_double(const Checkpoint& ck) {
  return std::visit([](const auto& p) { return p.template as<double>(); }, ck.state);
}

// The checkpoint a --from run starts from: a checkpoint file, or a run directory's newest.
Checkpoint source_checkpoint(const std::string& from, fs::path* file) {
  std::error_code ec;
  if (from.empty()) throw_input_error("from: the path is empty");
  if (fs::is_directory(from, ec)) {
    auto found = RunDirectory::latest_checkpoint(from);
    *file = found.file;
    return std::move(found.checkpoint);
  }
  if (!fs::exists(from, ec)) throw_input_error("from: '" + from + "' does not exist");
  *file = from;
  return read_checkpoint(from);
}

// What a new run starts with: lines to say first, and where its initial state came from.
struct Start {
  std::vector<std::string> notes;
  std::string model_extra;
};

RunResult start_run(RunConfig cfg, const RunHooks& hooks, ExistingRunFiles existing, Start start) {
  validate(cfg);
  // Over several ranks only rank 0 has a directory (and its lock), writes and logs.
  const bool writer = comm::world().rank() == 0;
  if (!cfg.out.empty() && writer) {
    RunDirectoryLock::check_free(cfg.out, "out");
    RunDirectory::check_usable(cfg.out, existing == ExistingRunFiles::replace);
  }
  // An explicit G wins over the unit system's; the resolved value is what config.toml, model.toml
  // and checkpoints record, so a resumed run keeps it whatever the unit system's G.
  cfg.gravitational_constant = effective_gravitational_constant(cfg);

  // Everything that can reject the input (memory included) happens before any file is written.
  std::unique_ptr<Simulation> sim;
  if (!cfg.from.empty()) {
    fs::path file;
    const Checkpoint ck = source_checkpoint(cfg.from, &file);
    // The state's numbers mean what the source's model and units made them mean.
    for (const auto& section : run_sections()) {
      if (section.name != "model") continue;
      for (const auto& spec : section.params) {
        if (spec.is_alias() || spec.key == "n") continue;
        const std::string was = param_value_text(ck.config, spec), now = param_value_text(cfg, spec);
        if (was != now) {
          throw_input_error(spec.flag() + ": a run continued --from a checkpoint keeps its model (" + was +
                            " there, " + now + " here)");
        }
      }
    }
    cfg.from = fs::absolute(file).lexically_normal().string();
    cfg.start_time = ck.time;
    resolve_run_length(cfg);
    sim = Simulation::create(cfg, state_as_double(ck));
    start.notes.push_back("continued from " + cfg.from + " (step " + std::to_string(ck.step) + ", t = " +
                          toml_real(ck.time) + ", run id " + (ck.run_id.empty() ? "none" : ck.run_id) +
                          ") as step 0 of a new run");
    start.model_extra += "\n# The initial state is another run's checkpoint.\n[continued_from]\ncheckpoint = " +
                         toml_string(cfg.from) + "\nstep = " + std::to_string(ck.step) + "\ntime = " +
                         toml_real(ck.time) + "\nrun_id = " + toml_string(ck.run_id) + "\n";
  } else {
    resolve_run_length(cfg);
    sim = Simulation::create(cfg, writer ? hooks.logger : nullptr);  // a long set-up says what it does
  }
  cfg.device = sim->config().device;  // resolved: never "auto"
  cfg.gravity = sim->config().gravity;
  cfg.n = static_cast<std::int64_t>(sim->size());
  if (cfg.start_time != sim->config().start_time) {  // from the initial conditions' file
    cfg.start_time = sim->config().start_time;
    start.notes.push_back("start time t = " + toml_real(cfg.start_time) + " (the initial conditions' file's time)");
    resolve_run_length(cfg);
  }

  std::optional<RunDirectory> dir;
  if (!writer) {
    return runloop::run_loop(*sim, cfg, nullptr, nullptr, hooks);
  } else if (!cfg.out.empty()) {
    RunDirectory::NewRun how;
    how.run_id = RunDirectory::run_id_of(cfg, sim->particles());
    how.replace_existing = existing == ExistingRunFiles::replace;
    how.model = ic_metadata_toml(cfg) + start.model_extra;
    dir.emplace(cfg.out, cfg, how);
  } else {
    start.notes.push_back("no --out: nothing will be written (give --out DIR to keep the configuration, "
                          "diagnostics, snapshots and restart checkpoints)");
  }
  return runloop::run_loop(*sim, cfg, dir ? &*dir : nullptr, nullptr, hooks, start.notes);
}

}  // namespace

RunResult run_simulation(RunConfig cfg, const RunHooks& hooks, ExistingRunFiles existing) {
  return start_run(std::move(cfg), hooks, existing, {});
}

std::int64_t step_at_time(const RunConfig& cfg, double t) {
  if (!(t > cfg.start_time)) return 0;
  const double steps = std::ceil((t - cfg.start_time) / cfg.dt * (1 - 1e-12));
  if (!(steps < 9.0e18)) throw_input_error("--t-end: " + toml_real(t) + " is too many steps of --dt away");
  return static_cast<std::int64_t>(steps);
}

RunResult advance_run(Simulation& sim, std::int64_t last_step, const Diagnostics& initial, const RunHooks& hooks) {
  RunConfig cfg = sim.config();
  cfg.steps = last_step;
  cfg.t_end = 0;
  cfg.out.clear();
  RunProgress progress;
  progress.initial = initial;
  return runloop::run_loop(sim, cfg, nullptr, &progress, hooks);
}

RunConfig continuation_config(const std::filesystem::path& from) {
  fs::path file;
  RunConfig cfg = source_checkpoint(from.string(), &file).config;
  cfg.out.clear();
  cfg.from = from.string();
  return cfg;
}

namespace {

ResumePoint find_resume_point_here(const std::filesystem::path& dir) {
  std::error_code ec;
  // A run killed before its first checkpoint: its configuration is all it needs to start again.
  if (fs::is_directory(dir, ec) && fs::is_regular_file(dir / "config.toml", ec) &&
      !RunDirectory::has_checkpoint_files(dir)) {
    RunDirectoryLock::check_free(dir, "resume");
    ResumePoint point{dir, {}, {}, {}};
    apply_toml_file(point.checkpoint.config, dir / "config.toml");
    point.from_start = true;
    return point;
  }
  auto found = RunDirectory::latest_checkpoint(dir);
  return {dir, std::move(found.file), std::move(found.checkpoint), std::move(found.skipped)};
}

}  // namespace

// Over several ranks rank 0 reads the directory (it holds the lock for the run) and sends the
// checkpoint's bytes to the others, so every rank starts from the same state whatever file
// system it sees.
ResumePoint find_resume_point(const std::filesystem::path& dir) {
  comm::Communicator& world = comm::world();
  if (world.size() == 1) return find_resume_point_here(dir);
  ResumePoint point;
  std::string bytes;
  if (world.rank() == 0) {
    point = find_resume_point_here(dir);
    bytes = encode_checkpoint(point.checkpoint);  // from_start: the configuration alone
  }
  const auto from_start = world.broadcast_value<std::int32_t>(point.from_start ? 1 : 0, 0);
  bytes = world.broadcast_bytes(std::move(bytes), 0);
  if (world.rank() != 0) {
    point.directory = dir;
    point.from_start = from_start != 0;
    point.checkpoint = decode_checkpoint(bytes, "the checkpoint rank 0 read from " + dir.string());
  }
  return point;
}

namespace {

// The configuration a resumed run goes on with: `requested` may differ from the stored one only
// in the parameters marked may_change_on_resume (how long it runs and how often it writes). That
// leaves out the parameters of the initial conditions (units, mass_scale, ...): they cannot act
// on a resumed run, whose state comes from the checkpoint, but config.toml, model.toml and the
// snapshots' /Parameters and /Units must go on describing the run the state was drawn for, and
// units also gives the meaning of every number in the state (and G).
RunConfig resumed_config(const ResumePoint& point, RunConfig requested) {
  const RunConfig& stored = point.checkpoint.config;
  if (!requested.out.empty() && requested.out != stored.out && requested.out != point.directory) {
    throw_input_error("--out: a resumed run writes into its own directory (" + point.directory.string() +
                      "); leave --out out");
  }
  requested.out = stored.out;
  std::vector<std::string> may;
  for (const auto& spec : run_params()) {
    if (spec.may_change_on_resume) may.push_back(spec.flag());
  }
  for (const auto& spec : run_params()) {
    const std::string was = param_value_text(stored, spec), now = param_value_text(requested, spec);
    if (was == now || spec.may_change_on_resume) continue;
    throw_input_error(spec.flag() + ": differs from the run being resumed (" + was + " there, " + now +
                      " here); a resumed run may only change " + join(may) +
                      " (to change the physics, start a new run from it: nbody run --from " +
                      point.directory.string() + " --out NEW_DIR)");
  }
  resolve_run_length(requested);
  if (requested.steps < point.checkpoint.step) {
    throw_input_error("--steps: " + std::to_string(requested.steps) + " is before the checkpoint's step " +
                      std::to_string(point.checkpoint.step));
  }
  return requested;
}

}  // namespace

RunResult resume_run(ResumePoint point, const RunConfig& requested, const RunHooks& hooks) {
  // Everything that can reject the request happens before the directory is touched.
  const RunConfig cfg = resumed_config(point, requested);
  if (point.from_start) {
    RunConfig again = cfg;
    again.out = point.directory.string();  // where it is now, whatever config.toml says
    Start start;
    start.notes.push_back("resume: no checkpoint in " + point.directory.string() +
                          " (the run ended before its first): starting it again from step 0, rewriting its outputs");
    return start_run(again, hooks, ExistingRunFiles::replace, std::move(start));
  }
  Checkpoint& ck = point.checkpoint;
  ck.config = cfg;
  auto sim = Simulation::create_from_checkpoint(ck);
  if (comm::world().rank() != 0) return runloop::run_loop(*sim, cfg, nullptr, &ck.progress, hooks);
  // The id of a directory of an earlier release, which has none (used only then).
  const std::string id = RunDirectory::stored_run_id(point.directory).empty()
                             ? RunDirectory::run_id_of(cfg, state_as_double(ck))
                             : std::string();
  RunDirectory dir(point.directory, cfg, ck.progress, id);
  for (const auto& why : point.skipped) {
    const std::string line = "skipped a checkpoint that did not read back: " + why;
    if (hooks.logger != nullptr) hooks.logger->detail(line);
    dir.log(line);
  }
  return runloop::run_loop(*sim, cfg, &dir, &ck.progress, hooks);
}

}  // namespace nbody
