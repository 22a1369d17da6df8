// The server in a build without cpp-httplib: `nbody view` is refused with one line.
#include "nbody/error.hpp"
#include "view/server.hpp"

namespace nbody::view {

bool server_available(std::string* why) {
  if (why) {
    *why = "this build of nbody has no viewer: cpp-httplib was not found when it was configured (install "
           "libcpp-httplib-dev, e.g. through scripts/setup, and configure again)";
  }
  return false;
}

int serve(const ServerOptions&) {
  std::string why;
  (void)server_available(&why);
  throw_input_error("view: " + why);
}

}  // namespace nbody::view
