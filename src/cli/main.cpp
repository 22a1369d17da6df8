// The nbody program: subcommands run, check (and more), one error line and a clear exit status.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "core/parallel.hpp"
#include "nbody/error.hpp"
#include "nbody/version.hpp"

int main(int argc, char** argv) {
  using namespace nbody;
  use_yielding_wait_policy(argv);  // before any parallel region; see core/parallel.hpp
  CLI::App app{"nbody: direct-summation gravitational N-body simulation on GPUs and CPUs", "nbody"};
  app.set_version_flag("--version", std::string("nbody ") + kVersion + " (" + kGitRevision + ")");
  app.require_subcommand(1);
  app.fallthrough(false);

  std::vector<cli::Command> commands;
  commands.push_back(cli::add_run_command(app));
  commands.push_back(cli::add_check_command(app));
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  commands.push_back(cli::add_bench_command(app, command_line));
  commands.push_back(cli::add_convert_command(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "nbody: error: %s (see nbody --help)\n", e.what());
    return 2;
  }

  try {
    for (const auto& c : commands) {
      if (c.app->parsed()) return c.run();
    }
    return 2;
  } catch (const Error& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "nbody: error: %s\n", e.what());
    return e.exit_status();
  } catch (const std::bad_alloc&) {
    std::fflush(stdout);
    std::fprintf(stderr, "nbody: error: out of host memory\n");
    return 2;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "nbody: error: %s\n", e.what());
    return 1;
  }
}
