// nbody ensemble --config FILE: many small independent systems integrated together
// (docs/ensembles.md), under the run contract of `nbody run` and `nbody pic run`.
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/run_hooks.hpp"
#include "ensemble/config.hpp"
#include "ensemble/generators.hpp"
#include "ensemble/run.hpp"
#include "io/run_files.hpp"
#include "nbody/error.hpp"

namespace nbody::cli {
namespace {

struct EnsembleOptions {
  std::string config, out, resume;
  bool overwrite = false;
  std::vector<std::string> set;
  CLI::Option* resume_option = nullptr;
};

int run_ensemble_command(const EnsembleOptions& o) {
  if (o.resume_option->count() > 0) {
    if (o.resume.empty()) throw_input_error("--resume: the directory is empty");
    if (!o.config.empty()) throw_input_error("--config: a resumed run reads its own deck.toml; leave --config out");
    if (!o.out.empty()) throw_input_error("--out: a resumed run writes into its own directory; leave --out out");
    return run_with_the_program_hooks(true, [&](const RunHooks& hooks) {
      RunHooks h = hooks;
      h.resume_command = "nbody ensemble --resume";
      return ensemble::resume_ensemble(o.resume, o.set, h);
    });
  }
  if (o.config.empty()) throw_input_error("--config: a configuration is needed (or --resume DIR)");
  ensemble::EnsembleFlags flags;
  if (!o.out.empty()) flags.out = o.out;
  const ensemble::EnsembleConfig cfg = ensemble::read_ensemble_config(o.config, o.set, flags);
  // Everything that can reject the input happens before anything is written.
  if (!cfg.out_dir.empty()) {
    RunDirectoryLock::check_free(cfg.out_dir, "out");
    RunFiles::check_usable(cfg.out_dir, o.overwrite);
  }
  ensemble::EnsembleStore systems = ensemble::make_systems(cfg);
  return run_with_the_program_hooks(!cfg.out_dir.empty(), [&](const RunHooks& hooks) {
    RunHooks h = hooks;
    h.resume_command = "nbody ensemble --resume";
    return ensemble::run_ensemble(cfg, systems, h, o.overwrite ? ExistingRunFiles::replace : ExistingRunFiles::refuse);
  });
}

}  // namespace

Command add_ensemble_command(CLI::App& parent) {
  auto opts = std::make_shared<EnsembleOptions>();
  CLI::App* app = parent.add_subcommand(
      "ensemble",
      "integrate many small independent systems (scatterings, planetary systems, small clusters, a table) on the CPU "
      "cores or a GPU into a run directory (deck.toml, run.log, results.csv, results.h5, checkpoints); SIGINT, SIGTERM "
      "or a file DIR/stop makes it checkpoint and exit, and --resume DIR continues it with the same bits "
      "(docs/ensembles.md)");
  app->add_option("--config", opts->config, "the configuration (TOML)");
  app->add_option("--out", opts->out, "run directory (overrides output.dir); must be new or empty");
  app->add_option("--set", opts->set, "override a key: table.key=value (repeatable)");
  auto* overwrite = app->add_flag("--overwrite", opts->overwrite, "reuse a non-empty --out directory");
  opts->resume_option =
      app->add_option("--resume", opts->resume, "continue the run in DIR from its newest checkpoint")->excludes(overwrite);
  return {app, [opts]() { return run_ensemble_command(*opts); }};
}

}  // namespace nbody::cli
