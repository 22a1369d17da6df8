#pragma once
// `nbody view`'s HTTP server: the page (web/) and the run's data on 127.0.0.1 only.
//   GET /                      web/index.html, and the rest of web/ (viewer.js, three.js in
//                              web/node_modules/three)
//   GET /api/run               the run as JSON (run_catalog.hpp)
//   GET /api/snapshot/K        snapshot K's points, binary (point_cloud.hpp)
//   GET /api/image/NAME.png    a PIC run's image RUN/images/NAME.png (only those of the catalog)
// server.cpp is the only file that includes cpp-httplib; server_stub.cpp takes its place in a
// build without it.
#include <cstddef>
#include <filesystem>
#include <string>

namespace nbody::view {

struct ServerOptions {
  std::filesystem::path run_dir;
  std::filesystem::path web_dir;  // holds index.html, viewer.js and node_modules/three
  int port = 0;                   // 0: a free port chosen by the system
  std::size_t max_points = 0;
  bool open_browser = true;       // xdg-open the page's address, when xdg-open is there
};

// Whether this build has the server; `why` says why not.
[[nodiscard]] bool server_available(std::string* why = nullptr);

// Scans the run, binds 127.0.0.1:port, prints "nbody view: http://127.0.0.1:PORT/ ..." and
// serves until SIGINT or SIGTERM; returns the exit status (0). Input errors (no run, a port that
// cannot be bound) before anything is served.
int serve(const ServerOptions& options);

}  // namespace nbody::view
