#pragma once
// The program's side of a run, for every physics (`nbody run`, `nbody pic run`): messages on
// stdout (with a heartbeat line where stdout is no terminal, e.g. a batch job's log), the progress
// line on a terminal and, for a run with a directory to checkpoint in, SIGINT and SIGTERM as a
// stop (without one they end the process as usual).
#include <cstdio>
#include <optional>
#include <string_view>

#include <unistd.h>

#include "cli/progress.hpp"
#include "cli/stop_signals.hpp"
#include "nbody/run.hpp"

namespace nbody::cli {

// Lines for the user on stdout (run.log, written by the library, has them too).
class StdoutLogger final : public Logger {
 public:
  void info(std::string_view line) override {
    std::printf("%.*s\n", static_cast<int>(line.size()), line.data());
    std::fflush(stdout);
  }
  // On a terminal the progress line shows the same; a log file gets the heartbeat.
  void heartbeat(std::string_view line) override {
    if (!to_terminal_) info(line);
  }

 private:
  bool to_terminal_ = ::isatty(::fileno(stdout)) != 0;
};

// Runs `run(hooks)` with the program's hooks; the exit status 0.
template <class Run>
int run_with_the_program_hooks(bool has_directory, Run&& run) {
  StdoutLogger logger;
  ProgressLine progress;
  std::optional<StopSignals> signals;
  RunHooks hooks;
  hooks.logger = &logger;
  hooks.progress = &progress;
  if (has_directory) hooks.stop_conditions.push_back(&signals.emplace());
  (void)run(hooks);
  return 0;
}

}  // namespace nbody::cli
