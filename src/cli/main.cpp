// The nbody program: subcommands run, check (and more), one error line and a clear exit status.
#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "comm/mpi_communicator.hpp"
#include "core/strings.hpp"
#include "core/parallel.hpp"
#include "nbody/error.hpp"
#include "nbody/version.hpp"

namespace {

// What the program does, first in `nbody --help`, `nbody help` and `nbody` alone.
const char* const kProgramDescription =
    "nbody: particle simulations on GPUs (CUDA) and CPUs.\n"
    "  gravity   nbody run: collisionless N-body dynamics, forces by direct summation (--gravity direct, or the\n"
    "            float64 reference) or a Barnes-Hut tree (--gravity tree); integrators euler, leapfrog, yoshida4\n"
    "            and hermite4 with fixed, adaptive or block time steps; fp32, fp64 or mixed precision; models\n"
    "            (plummer, king, hernquist, ...) or a particle file; several GPUs or CPU ranks under mpirun\n"
    "            (--gpus K); snapshots (HDF5, Tipsy, CSV), restart checkpoints, --resume and --from\n"
    "  plasma    nbody pic run: 2D3V electromagnetic particle-in-cell (lasers, plasmas) from a TOML deck\n"
    "  tools     bench (timed, verified kernels), check (a backend against the float64 reference), convert\n"
    "            (particle files between formats), pic check (the PIC validation suite)\n"
    "  pictures  nbody run --render-every K (frames), render (frames of snapshots), movie (an MP4 through\n"
    "            ffmpeg), plot (a run's diagnostics with matplotlib), view (a run in the browser)";

// One line for each subcommand (the first sentence of its description for one not named here).
std::string summary_of(const CLI::App& sub) {
  const std::string name = sub.get_name();
  if (name == "run") return "run a simulation, --resume DIR one that stopped, --from DIR one with new physics";
  if (name == "check") return "check a backend against the float64 reference (the source documents' program)";
  if (name == "bench") {
    return "benchmark the kernels (direct, tree, multi-GPU, PIC suites), each verified before it is timed";
  }
  if (name == "convert") return "convert a particle file between HDF5 (GADGET-4), Tipsy and CSV";
  if (name == "pic") return "2D3V electromagnetic particle-in-cell: pic run --config DECK, pic check";
  if (name == "plot") return "plot a run directory (gravity or PIC) with matplotlib into a PNG";
  if (name == "render") return "frames (PNG) of a snapshot or of every snapshot of a run directory";
  if (name == "movie") return "an MP4 (ffmpeg) of a run's frames, or of a PIC run's image series";
  if (name == "view") return "show a run in the browser: its snapshots as 3D points, a PIC run's images";
  std::string line = sub.get_description();
  const auto end = line.find(". ");
  if (end != std::string::npos) line = line.substr(0, end);
  return line;
}

// The subcommands, one line each.
std::string subcommand_list(const CLI::App& app) {
  std::string text = app.get_description() + "\n\nUsage: nbody SUBCOMMAND [OPTIONS]\n\nSubcommands:\n";
  for (const CLI::App* sub : app.get_subcommands({})) {
    const std::string line = summary_of(*sub);
    char name[32];
    std::snprintf(name, sizeof name, "  %-9s ", sub->get_name().c_str());
    text += name + line + "\n";
  }
  text += "  help      this list (nbody help SUBCOMMAND: that subcommand's options)\n\n"
          "nbody SUBCOMMAND --help lists a subcommand's options; nbody --version the version.\n";
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace nbody;
  // A file size limit (ulimit -f) would kill the program with SIGXFSZ in the middle of a write,
  // leaving its temporary file behind; ignored, the write fails with EFBIG and is reported.
  std::signal(SIGXFSZ, SIG_IGN);
  use_yielding_wait_policy(argv);  // before any parallel region; see core/parallel.hpp
  CLI::App app{kProgramDescription, "nbody"};
  // (and what this build has: scripts and users ask before they use it)
  std::string features;
  for (const auto& [on, name] : {std::pair{NBODY_HAVE_CUDA, "cuda"}, std::pair{NBODY_HAVE_MPI, "mpi"},
                                 std::pair{NBODY_HAVE_NCCL, "nccl"}, std::pair{NBODY_HAVE_HDF5, "hdf5"},
                                 std::pair{NBODY_HAVE_RENDER, "render"},
                                 std::pair{NBODY_HAVE_VIEW, "view"}})
    if (on) features += (features.empty() ? "" : " ") + std::string(name);
  app.set_version_flag("--version", std::string("nbody ") + kVersion + " (" + kGitRevision + ")\nfeatures: " +
                                        (features.empty() ? "none" : features));
  app.require_subcommand(1);
  app.fallthrough(false);

  std::vector<cli::Command> commands;
  commands.push_back(cli::add_run_command(app, std::vector<std::string>(argv, argv + argc)));
  commands.push_back(cli::add_check_command(app));
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  commands.push_back(cli::add_bench_command(app, command_line));
  commands.push_back(cli::add_convert_command(app));
  commands.push_back(cli::add_pic_command(app));
  commands.push_back(cli::add_ensemble_command(app));
  commands.push_back(cli::add_plot_command(app));
  commands.push_back(cli::add_render_command(app));
  commands.push_back(cli::add_movie_command(app));
  commands.push_back(cli::add_view_command(app));

  // `nbody` alone: the list, and exit 2 (it asks for nothing); `nbody help`: the list, exit 0;
  // `nbody help SUBCOMMAND`: that subcommand's --help.
  if (argc == 1) {
    std::fprintf(stderr, "%s", subcommand_list(app).c_str());
    return 2;
  }
  if (std::string(argv[1]) == "help") {
    if (argc == 2) {
      std::printf("%s", subcommand_list(app).c_str());
      return 0;
    }
    for (const auto& c : commands) {
      if (c.app->get_name() == argv[2]) {
        std::printf("%s", c.app->help().c_str());
        return 0;
      }
    }
    std::fprintf(stderr, "nbody: error: help: unknown subcommand %s\n%s", quoted_text(argv[2]).c_str(),
                 subcommand_list(app).c_str());
    return 2;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "nbody: error: %s (see nbody --help)\n", printable_line(e.what()).c_str());
    return 2;
  }

  // Under an MPI launcher the ranks of the run are this program's processes. A failing rank
  // ends them all (MPI_Abort with its exit status), naming itself: the others may be waiting in
  // a collective and would never return.
  std::optional<comm::MpiSession> mpi;
  int rank = 0;
  auto fail = [&](const std::string& what, int status) {
    // One printable line, whatever bytes of the input the message quotes.
    const std::string message = printable_line(what);
    std::fflush(stdout);
    if (mpi && mpi->world().size() > 1) {
      std::fprintf(stderr, "nbody: error: rank %d: %s\n", rank, message.c_str());
      std::fflush(stderr);
      comm::abort_all(status);
    }
    std::fprintf(stderr, "nbody: error: %s\n", message.c_str());
    return status;
  };
  try {
    int launched = 0;
    if (comm::launched_by_mpi(&launched) && (comm::mpi_available() || launched > 1)) {
      mpi.emplace(&argc, &argv);
      rank = mpi->world().rank();
    }
    for (const auto& c : commands) {
      if (c.app->parsed()) return c.run();
    }
    return 2;
  } catch (const Error& e) {
    return fail(e.what(), e.exit_status());
  } catch (const std::bad_alloc&) {
    return fail("out of host memory", 2);
  } catch (const std::exception& e) {
    return fail(e.what(), 1);
  }
}
