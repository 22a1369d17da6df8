// nbody plot RUN_DIR [--out FILE.png|DIR]: the figure of a run directory with matplotlib, drawn by
// the Python program that ships beside nbody (share/nbody/plot.py, python/nbody/plot.py in the
// sources, nbody.plot in Python) with a Python that has numpy and matplotlib (python_program.hpp).
// A gravity run (config.toml): energy error, virial ratio, Lagrangian radii, momentum drifts; a
// PIC run (deck.toml): energies and their balance, the Gauss residual, the energy spectra.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/child_process.hpp"
#include "cli/python_program.hpp"
#include "core/strings.hpp"
#include "nbody/error.hpp"

namespace nbody::cli {
namespace {

namespace fs = std::filesystem;

struct PlotOptions {
  std::string run_dir, out;
};

// Where the figure goes: --out FILE (.png, .pdf or .svg, in a directory that exists), --out DIR
// (an existing directory: DIR/<run name>.png), or RUN_DIR/plot.png.
fs::path figure_path(const PlotOptions& o) {
  std::error_code ec;
  if (o.out.empty()) return fs::path(o.run_dir) / "plot.png";
  if (fs::is_directory(o.out, ec)) {
    fs::path name = fs::weakly_canonical(o.run_dir, ec).filename();
    if (name.empty()) name = "plot";
    return fs::path(o.out) / (name.string() + ".png");
  }
  std::string ext = fs::path(o.out).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (ext != ".png" && ext != ".pdf" && ext != ".svg")
    throw_input_error("plot: --out " + quoted_text(o.out) +
                      ": neither an existing directory nor a file name ending in .png, .pdf or .svg");
  const fs::path dir = fs::path(o.out).parent_path().empty() ? fs::path(".") : fs::path(o.out).parent_path();
  if (!fs::is_directory(dir, ec))
    throw_input_error("plot: --out " + quoted_text(o.out) + ": no directory " + quoted_text(dir.string()));
  return o.out;
}

int execute(const PlotOptions& o) {
  std::error_code ec;
  if (!fs::is_directory(o.run_dir, ec))
    throw_input_error("plot: RUN_DIR " + quoted_text(o.run_dir) + ": no such directory");
  if (!fs::is_regular_file(fs::path(o.run_dir) / "config.toml", ec) &&
      !fs::is_regular_file(fs::path(o.run_dir) / "deck.toml", ec))
    throw_input_error("plot: RUN_DIR " + quoted_text(o.run_dir) +
                      ": not a run directory (no config.toml of nbody run nor deck.toml of nbody pic run)");
  const fs::path out = figure_path(o);
  const fs::path script = shipped_file("plot.py");
  std::string python;
  try {
    python = find_python({"numpy", "matplotlib"});
  } catch (const Error& e) {
    throw Error(e.kind(), "plot: " + std::string(e.what()));
  }
  std::fflush(stdout);
  const int status = run_child({python, "-B", script.string(), o.run_dir, out.string()});
  // (The program said what went wrong, in one line for bad input.)
  if (status != 0) return status;
  if (!fs::is_regular_file(out, ec))
    throw_runtime_error("plot: " + python + " " + script.string() + " exited 0 but wrote no " + out.string());
  return 0;
}

}  // namespace

Command add_plot_command(CLI::App& parent) {
  auto opts = std::make_shared<PlotOptions>();
  CLI::App* app = parent.add_subcommand(
      "plot",
      "plot a run directory with matplotlib (a Python with numpy and matplotlib: $NBODY_PYTHON, else Debian's "
      "/usr/bin/python3, else python3 on PATH). A gravity run: energy error, virial ratio, Lagrangian radii and "
      "momentum drifts against time; a PIC run: energies and their balance, Gauss's-law residual and the energy "
      "spectra");
  app->add_option("RUN_DIR", opts->run_dir, "a run directory of nbody run or nbody pic run")->required();
  app->add_option("--out", opts->out,
                  "the figure: FILE.png (or .pdf, .svg) or an existing DIR (DIR/<run name>.png); default "
                  "RUN_DIR/plot.png");
  return {app, [opts] { return execute(*opts); }};
}

}  // namespace nbody::cli
