// nbody view RUN_DIR: the run in the browser, served on 127.0.0.1 (src/view/, the page in web/).
#include <filesystem>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "nbody/error.hpp"
#include "view/server.hpp"
#include "view/web_dir.hpp"

namespace nbody::cli {
namespace {

// The most bodies of one snapshot sent to the page: a 10^6-body run opens in under 3 s on a
// 2-core machine without a GPU (docs/pictures.md, "Viewer").
constexpr std::size_t kDefaultMaxPoints = 1'000'000;

struct ViewOptions {
  std::string run_dir;
  int port = 0;
  std::size_t max_points = kDefaultMaxPoints;
  bool no_open = false;
};

int execute(const ViewOptions& opts) {
  std::string why;
  if (!view::server_available(&why)) throw_input_error("view: " + why);
  view::ServerOptions s;
  s.run_dir = opts.run_dir;
  s.web_dir = view::find_web_dir();
  s.port = opts.port;
  s.max_points = opts.max_points;
  s.open_browser = !opts.no_open;
  return view::serve(s);
}

}  // namespace

Command add_view_command(CLI::App& parent) {
  auto* app = parent.add_subcommand(
      "view",
      "Show a run in the browser: serves RUN_DIR on 127.0.0.1 and opens the page (xdg-open, when there). A "
      "gravity run's snapshots play as 3D points (orbit controls, a time slider, colour by component, point "
      "size by mass; more than --max-points bodies are subsampled, their masses scaled to keep the total); a "
      "PIC run's images play over time, one slider per quantity. Ctrl-C stops the server.");
  auto opts = std::make_shared<ViewOptions>();
  app->add_option("RUN_DIR", opts->run_dir, "run directory (nbody run --out, nbody pic run --out)")->required();
  app->add_option("--port", opts->port, "port on 127.0.0.1 (0: a free one, printed)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  app->add_option("--max-points", opts->max_points, "most bodies of a snapshot sent to the page")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100'000'000}))
      ->capture_default_str();
  app->add_flag("--no-open", opts->no_open, "print the address only, open no browser");
  return {app, [opts]() { return execute(*opts); }};
}

}  // namespace nbody::cli
