#include "view/server.hpp"

#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <set>
#include <string>
#include <thread>

#include "nbody/error.hpp"
#include "view/snapshot_source.hpp"

extern char** environ;

namespace nbody::view {
namespace fs = std::filesystem;
namespace {

constexpr const char* kHost = "127.0.0.1";
// Debian's cpp-httplib compresses the content types it knows by exact name (application/javascript,
// application/json) with brotli at its highest quality when the browser accepts it: five seconds
// for three.js on one core. With a charset the names differ, and these files go uncompressed
// (they come from this machine).
constexpr const char* kJavaScript = "application/javascript; charset=utf-8";
constexpr const char* kJson = "application/json; charset=utf-8";

// Where xdg-open is on PATH; empty when it is not.
std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const fs::path candidate = fs::path(dirs.substr(start, end - start)) / name;
    if (end > start && ::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    start = end + 1;
  }
  return "";
}

// Starts `xdg-open url` with its output discarded, and reaps it on a detached thread.
void open_in_browser(const std::string& url) {
  const std::string xdg = find_on_path("xdg-open");
  if (xdg.empty()) return;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  char* argv[] = {const_cast<char*>(xdg.c_str()), const_cast<char*>(url.c_str()), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, xdg.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return;
  std::thread([pid] { ::waitpid(pid, nullptr, 0); }).detach();
}

void add_api(httplib::Server& svr, SnapshotSource& source) {
  svr.Get("/api/run", [&source](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    res.set_content(source.run_json(), kJson);
  });
  svr.Get(R"(/api/snapshot/(\d{1,9}))", [&source](const httplib::Request& req, httplib::Response& res) {
    const std::size_t index = std::stoul(req.matches[1].str());
    if (index >= source.catalog().snapshots.size()) {
      res.status = 404;
      res.set_content("no snapshot " + req.matches[1].str() + "\n", "text/plain");
      return;
    }
    try {
      const std::string bytes = source.encoded(index);
      res.set_content(bytes.data(), bytes.size(), "application/octet-stream");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "nbody view: %s\n", e.what());
      res.status = 500;
      res.set_content(std::string(e.what()) + "\n", "text/plain");
    }
  });
  std::set<std::string> images;
  for (const auto& series : source.catalog().images) {
    for (const auto& f : series.frames) images.insert(f.file);
  }
  const fs::path image_dir = source.catalog().dir / "images";
  svr.Get(R"(/api/image/([^/]+))", [images, image_dir](const httplib::Request& req, httplib::Response& res) {
    const std::string name = req.matches[1].str();
    std::string bytes;
    if (images.count(name)) {
      if (std::FILE* f = std::fopen((image_dir / name).c_str(), "rb")) {
        char buf[1 << 16];
        for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) bytes.append(buf, got);
        std::fclose(f);
        res.set_content(bytes, "image/png");
        return;
      }
    }
    res.status = 404;
    res.set_content("no image " + name + "\n", "text/plain");
  });
}

}  // namespace

bool server_available(std::string*) { return true; }

int serve(const ServerOptions& options) {
  // Everything that can refuse the request first: the run, the page.
  SnapshotSource source(scan_run(options.run_dir), options.max_points);
  httplib::Server svr;
  if (!svr.set_mount_point("/", options.web_dir.string())) {
    throw_input_error("view: cannot serve the page from '" + options.web_dir.string() + "'");
  }
  svr.set_file_extension_and_mimetype_mapping("js", kJavaScript);
  add_api(svr, source);

  // SIGINT and SIGTERM end the server: blocked here (so the server's threads inherit the mask)
  // and taken by sigwait below.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  int port = options.port;
  if (port == 0) {
    port = svr.bind_to_any_port(kHost);
    if (port < 0) throw_input_error("view: cannot listen on any port of 127.0.0.1");
  } else if (!svr.bind_to_port(kHost, port)) {
    throw_input_error("view: --port " + std::to_string(port) + ": cannot listen on 127.0.0.1:" +
                      std::to_string(port) + " (in use, or a privileged port)");
  }
  const std::string url = "http://" + std::string(kHost) + ":" + std::to_string(port) + "/";
  std::thread server([&svr] { svr.listen_after_bind(); });
  // The first snapshot is read while the browser loads the page.
  std::thread prefetch([&source] {
    if (source.catalog().snapshots.empty()) return;
    try {
      (void)source.encoded(0);
    } catch (const std::exception&) {
      // reported when the page asks for it
    }
  });
  const auto& c = source.catalog();
  const std::string what = c.kind == RunCatalog::Kind::gravity
                               ? std::to_string(c.snapshots.size()) + " snapshot(s)"
                               : std::to_string(c.images.size()) + " image series";
  std::printf("nbody view: %s (%s) at %s (Ctrl-C to stop)\n", options.run_dir.string().c_str(), what.c_str(),
              url.c_str());
  std::fflush(stdout);
  if (options.open_browser) open_in_browser(url);

  int sig = 0;
  sigwait(&stop_signals, &sig);
  svr.stop();
  server.join();
  prefetch.join();
  pthread_sigmask(SIG_UNBLOCK, &stop_signals, nullptr);
  return 0;
}

}  // namespace nbody::view
