#pragma once
// Each subcommand registers its options on the app and returns what to run if it is chosen.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace nbody::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;  // the exit status
};

// argv: the program's arguments (--gpus K starts the program again under mpirun with them).
Command add_run_command(CLI::App& parent, const std::vector<std::string>& argv);
Command add_check_command(CLI::App& parent);
// command_line: how the program was invoked, recorded in benchmark JSON.
Command add_bench_command(CLI::App& parent, const std::string& command_line);
Command add_convert_command(CLI::App& parent);
Command add_pic_command(CLI::App& parent);  // cmd_pic.cpp
Command add_ensemble_command(CLI::App& parent);  // cmd_ensemble.cpp
Command add_plot_command(CLI::App& parent);  // cmd_plot.cpp
Command add_render_command(CLI::App& parent);  // cmd_render.cpp
Command add_movie_command(CLI::App& parent);   // cmd_movie.cpp
Command add_view_command(CLI::App& parent);  // cmd_view.cpp

}  // namespace nbody::cli
